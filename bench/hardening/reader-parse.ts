/**
 * Hostile HTML through a real server (issue 31, reader-parse; not a test): the built `evident mcp`
 * reads, from a loopback site, pages whose parsing once held the server's thread or grew with the
 * square of their depth, while a client probes it. Per page and transport, a fresh server: the
 * read's outcome and time, the slowest probe answered while the read ran (`tools/list` over stdio,
 * `/healthz` over HTTP, one after another, so the slowest is how long the server's thread was
 * held), the server's peak resident set (VmHWM) and its resident set after 5 s idle.
 *
 * Usage: npm run build && node --import tsx bench/hardening/reader-parse.ts
 *          [--cli PATH] [--only NAME] [--transport stdio|http]
 * `--cli` runs another build's entry point (an older commit's, to compare before and after).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { startLoopback } from "../../test/net/loopback.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const option = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const CLI = option("--cli") ?? `${repo}dist/adapters/cli/main.js`;
const TOKEN = `${"t".repeat(48)}-bench`;

const PAGES: Record<string, () => string> = {
  "x</p> x 200,000": () => "x</p>".repeat(200_000),
  "</br> x 200,000": () => "</br>".repeat(200_000),
  "nested <div> x 200,000": () => `${"<div>".repeat(200_000)}x${"</div>".repeat(200_000)}`,
  "nested <ul><li> x 100,000": () => `${"<ul><li>".repeat(100_000)}x${"</li></ul>".repeat(100_000)}`,
  "nested <blockquote> x 100,000": () =>
    `${"<blockquote>".repeat(100_000)}x${"</blockquote>".repeat(100_000)}`,
  "<p> x 1,000,000": () => "<p>".repeat(1_000_000),
  "<p a0 a1 ...> x 100,000 attributes": () =>
    `<html><body><p${Array.from({ length: 100_000 }, (_, i) => ` a${i}`).join("")}>x</p></body></html>`,
  // Under every bound: the costliest kind of page still read with a DOM.
  "<a href> x 24,000 in one paragraph": () =>
    `<html><body><p>${Array.from({ length: 24_000 }, (_, i) => `<a href="/l${i}">link ${i}</a>`).join(" ")}</p></body></html>`,
  'class="a a ..." x 300,000': () =>
    `<html><body><article><p class="${"a ".repeat(300_000)}">A paragraph.</p></article></body></html>`,
};

function status(pid: number, field: string): number {
  const match = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Math.round(Number(match?.[1]) / 1024);
}

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

interface Row {
  page: string;
  transport: string;
  outcome: string;
  readMs: number;
  probes: number;
  failed: number;
  slowestProbeMs: number;
  peakMb: number;
  idleMb: number;
}

/** Servers started by `measure`, stopped whatever happens to it. */
const servers = new Set<{ kill(): unknown }>();

async function measure(
  page: string,
  transport: "stdio" | "http",
  siteUrl: string,
  base: string,
): Promise<Row> {
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: base,
    XDG_CONFIG_HOME: join(base, "config"),
    EVIDENT_CACHE_DIR: join(base, "cache"),
    EVIDENT_ALLOW_PRIVATE_NETWORK: "true",
  };
  const client = new Client({ name: "bench", version: "1.0.0" });
  let pid: number;
  let child: ChildProcess | undefined;
  let probe: () => Promise<void>;
  if (transport === "stdio") {
    const stdio = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp"],
      env,
      stderr: "ignore",
    });
    await client.connect(stdio);
    pid = stdio.pid as number;
    servers.add({ kill: () => stdio.close() });
    probe = async () => {
      await client.listTools();
    };
  } else {
    child = spawn(process.execPath, [CLI, "mcp", "--transport", "http"], {
      env: { ...env, EVIDENT_HTTP_HOST: "127.0.0.1", EVIDENT_HTTP_PORT: "0", EVIDENT_AUTH_TOKEN: TOKEN },
      stdio: ["ignore", "pipe", "pipe"],
    });
    pid = child.pid as number;
    servers.add(child);
    const lines = createInterface({ input: child.stderr as NodeJS.ReadableStream });
    const url = await new Promise<string>((done) =>
      lines.on("line", (line) => {
        const found = /(http:\/\/\S+\/mcp)/.exec(line);
        if (found) done(found[1] as string);
      }),
    );
    child.stdout?.resume();
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const health = url.replace(/\/mcp$/, "/healthz");
    probe = async () => {
      await (await fetch(health)).arrayBuffer();
    };
  }
  const read = (path: string) =>
    client.callTool({ name: "web_read", arguments: { url: `${siteUrl}${path}` } }, { timeout: 180_000 });
  await read("/small");
  let reading = true;
  const started = performance.now();
  const answer = read(`/${encodeURIComponent(page)}`).finally(() => {
    reading = false;
  });
  let probes = 0;
  let failed = 0;
  let slowest = 0;
  while (reading) {
    const at = performance.now();
    // A probe the server resets (as a blocked HTTP server's did) is counted, not fatal.
    await probe().catch(() => {
      failed++;
    });
    slowest = Math.max(slowest, performance.now() - at);
    probes++;
    await pause(50);
  }
  const result = await answer;
  const readMs = performance.now() - started;
  const envelope = JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? "{}");
  const outcome = envelope.error
    ? `${envelope.error.code} ${JSON.stringify(envelope.error.provider_reasons ?? "")}`
    : `read, ${(envelope.content ?? []).map((p: { text: string }) => p.text).join("").length} chars${
        envelope.warnings?.some((w: string) => /without main-content/.test(w)) ? ", as text" : ""
      }`;
  const peakMb = status(pid, "VmHWM");
  await pause(5_000);
  const idleMb = status(pid, "VmRSS");
  await client.close();
  child?.kill();
  return { page, transport, outcome, readMs, probes, failed, slowestProbeMs: slowest, peakMb, idleMb };
}

const base = mkdtempSync(join(tmpdir(), "evident-reader-parse-"));
const bodies = new Map<string, string>();
const site = await startLoopback((req, res) => {
  const name = decodeURIComponent((req.url ?? "/").slice(1));
  res.setHeader("content-type", "text/html; charset=utf-8");
  const make = PAGES[name];
  if (make === undefined) res.end("<html><head><title>Small</title></head><body><p>Small.</p></body></html>");
  else {
    if (!bodies.has(name)) bodies.set(name, make());
    res.end(bodies.get(name));
  }
});
const only = option("--only");
const transports = option("--transport")
  ? [option("--transport") as "stdio" | "http"]
  : (["stdio", "http"] as const);
console.log(`cli: ${CLI}`);
console.log("| page | transport | outcome | read | probes | slowest probe | peak RSS | RSS 5 s idle |");
console.log("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |");
try {
  for (const page of Object.keys(PAGES)) {
    if (only !== undefined && !page.includes(only)) continue;
    for (const transport of transports) {
      const row = await measure(page, transport, site.url, base);
      console.log(
        `| ${row.page.replace(/\|/g, "\\|").replace(/</g, "&lt;")} | ${row.transport} | ${row.outcome} | ${(row.readMs / 1000).toFixed(1)} s | ${row.probes}${row.failed > 0 ? ` (${row.failed} failed)` : ""} | ${Math.round(row.slowestProbeMs).toLocaleString("en-US")} ms | ${row.peakMb} MB | ${row.idleMb} MB |`,
      );
    }
  }
} finally {
  for (const server of servers) server.kill();
  await site.close();
  rmSync(base, { recursive: true, force: true });
}
