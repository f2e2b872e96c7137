/**
 * The fuzzed server: the real CLI entry (`mcp` over stdio, or `mcp --transport http`) with the
 * product's three tools, whose web tools resolve names through a table instead of DNS (there is
 * none here, and a fuzz run must never ask the network). Every name is given a public address,
 * which the guard accepts and the proxy of world.ts then stands in for; loopback names keep
 * their loopback address, which the guard refuses.
 *
 *   node --import tsx test/fuzz/server.ts mcp [--transport http]
 *   node build/test/fuzz/server.js mcp [--transport http]   (compiled by scripts/run-tests.mjs)
 */
import type { LookupAddress } from "node:dns";
import { runCli } from "../../src/adapters/cli/cli.js";
import { resolveSettings } from "../../src/config/settings.js";
import type { LookupFunction } from "../../src/net/guard.js";
import { createCodeSearchTool } from "../../src/tools/code-search.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import type { ToolEnvironment } from "../../src/tools/tool.js";
import { createWebReadTool } from "../../src/tools/web-read.js";
import { createWebSearchTool } from "../../src/tools/web-search.js";

/** Documentation address (RFC 5737 ranges are refused as reserved, this one is public). */
const PUBLIC_ADDRESS = "93.184.216.34";

const lookup: LookupFunction = (hostname, options, callback) => {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  const address = name === "localhost" || name.endsWith(".localhost") ? "127.0.0.1" : PUBLIC_ADDRESS;
  if (options.all) callback(null, [{ address, family: 4 }] as LookupAddress[]);
  else callback(null, address, 4);
};

// With --expose-gc (the harness's `measureLive`), SIGUSR2 asks for the memory still live after
// a full collection: what the server keeps, without the garbage V8 has not collected yet.
const collect = (globalThis as { gc?: () => void }).gc;
if (collect !== undefined) {
  process.on("SIGUSR2", () => {
    collect();
    collect();
    const { heapUsed, external } = process.memoryUsage();
    process.stderr.write(`fuzz-live-memory ${JSON.stringify({ heapUsed, external })}\n`);
  });
}

const controller = new AbortController();
process.on("SIGINT", () => controller.abort());
process.on("SIGTERM", () => controller.abort());
const code = await runCli(
  process.argv.slice(2),
  { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() },
  {
    signal: controller.signal,
    createRegistry: (logger, _surface, root) => {
      const environment: ToolEnvironment = {
        cwd: process.cwd(),
        settings: resolveSettings(process.env),
        logger,
        ...(root === undefined ? {} : { root }),
      };
      return new ToolRegistry()
        .register(createWebSearchTool(environment, { lookup }))
        .register(createWebReadTool(environment, { lookup }))
        .register(createCodeSearchTool(environment));
    },
  },
);
process.stdout.write("", () => process.exit(code));
