/**
 * One server of the web benchmark, run as its own process so that its CPU is its own: the
 * client and the instant vendor fake live in the parent. Prints `READY <url>` on stdout.
 *
 *   npx tsx bench/web/server.ts evident <vendor-base-url> <token>
 *   npx tsx bench/web/server.ts evident-colocated - <token>   (vendor fake in the same process)
 *   npx tsx bench/web/server.ts evident-inproc <unused-url> <token>   (provider answers in-process, no HTTP)
 *   npx tsx bench/web/server.ts bare
 *   npx tsx bench/web/server.ts vendor     (the instant Tavily-shaped fake)
 */
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { startHttpServer } from "../../src/adapters/mcp/http-server.js";
import { resolveHttpSettings } from "../../src/config/http.js";
import { resolveSettings } from "../../src/config/settings.js";
import { silentLogger } from "../../src/core/logger.js";
import { createCodeSearchTool } from "../../src/tools/code-search.js";
import { createProductRegistry } from "../../src/tools/product.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { createWebReadTool } from "../../src/tools/web-read.js";
import { createWebSearchTool } from "../../src/tools/web-search.js";
import type { Provider } from "../../src/web/provider.js";

const INSTANT_ROWS = Array.from({ length: 5 }, (_, i) => ({
  title: `Result ${i}`,
  url: `https://example.com/${i}`,
  snippet: `snippet ${i} `.repeat(10),
}));

/** The instant Tavily-shaped fake: answers every request at once with five rows. */
async function startVendor(): Promise<string> {
  const body = JSON.stringify({
    answer: "instant answer",
    results: INSTANT_ROWS.map((row) => ({ title: row.title, url: row.url, content: row.snippet, score: 1 })),
  });
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function instantProvider(id: string): Provider {
  return {
    id,
    adapter: "tavily",
    anonymous: false,
    capabilities: { search: true, read: false, focus: false },
    search: async () => ({ answer: "instant answer", results: INSTANT_ROWS }),
  };
}

const [mode, vendorUrlArg, token] = process.argv.slice(2);

if (mode === "evident" || mode === "evident-inproc" || mode === "evident-colocated") {
  const home = mkdtempSync(join(tmpdir(), "evident-bench-"));
  // evident-colocated: the vendor fake listens in this very process (still a real loopback HTTP
  // exchange per call, but no third process to schedule on a small machine).
  const vendorUrl = mode === "evident-colocated" ? await startVendor() : vendorUrlArg;
  const environment = {
    cwd: home,
    // An explicit environment: no config file, one keyed provider pointing at the loopback fake.
    settings: resolveSettings({
      XDG_CONFIG_HOME: home,
      TAVILY_API_KEY: "tvly-bench",
      EVIDENT_TAVILY_BASE_URL: vendorUrl,
    }),
    logger: silentLogger,
  };
  // evident-inproc: the same tools, with the tavily adapter replaced by a provider that answers
  // at once without HTTP, to isolate evident's own per-call cost from the vendor round trip.
  const registry =
    mode === "evident"
      ? createProductRegistry(environment)
      : new ToolRegistry()
          .register(
            createWebSearchTool(environment, {
              factories: { tavily: async (spec) => instantProvider(spec.id) },
            }),
          )
          .register(createWebReadTool(environment))
          .register(createCodeSearchTool(environment));
  const server = await startHttpServer({
    registry,
    logger: silentLogger,
    settings: { ...resolveHttpSettings({ EVIDENT_AUTH_TOKEN: token }), port: 0, host: "127.0.0.1" },
  });
  process.stdout.write(`READY ${server.url}\n`);
  process.stdin.on("end", () => void server.close().then(() => process.exit(0)));
  process.stdin.resume();
} else if (mode === "vendor") {
  process.stdout.write(`READY ${await startVendor()}\n`);
  process.stdin.on("end", () => process.exit(0));
  process.stdin.resume();
} else {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "bare", version: "1.0.0" });
    server.registerTool(
      "noop",
      { description: "Does nothing.", inputSchema: z.object({ query: z.string() }) },
      async () => ({ content: [{ type: "text", text: "ok" }] }),
    );
    return server;
  });
  const node = toNodeHandler(handler);
  const server = createServer((req, res) => {
    void node(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  process.stdout.write(`READY http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp\n`);
  process.stdin.on("end", () => process.exit(0));
  process.stdin.resume();
}
