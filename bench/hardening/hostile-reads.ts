/**
 * Hostile pages read by the built `evident mcp` over stdio, from a loopback site (not a test):
 * JSON that grows with the square of its nesting, and a PDF whose one stream inflates past the
 * reader's memory. For each case, a fresh server reads one small page first, then the case,
 * while the client sends `tools/list` one after another: it reports the slowest listing (how long
 * the server's main thread was held), the peak resident set during the read (VmHWM, reset just
 * before it), the resident set right after the answer and after the server has been idle for
 * `--idle-ms`, and what the read answered.
 *
 * Usage: npm run build && node --import tsx bench/hardening/hostile-reads.ts
 *          [--cases deep,fourteen,wide,million,pdf] [--pdf-mb 1024] [--idle-ms 15000]
 *          [--jemalloc] [--trim] [--smaps] [--cli PATH] [--env NAME=VALUE ...]
 * `--jemalloc` preloads libjemalloc.so.2 into the server (as the deploy image does); without it
 * the server runs on glibc's malloc, as on a bare machine. `--cli` runs another build's entry
 * point (an older commit's, to compare). `--trim` then calls glibc's malloc_trim(0) in the server
 * through gdb and reads the resident set again: what glibc kept but held free (measurement only);
 * `--smaps` prints the server's largest mappings and, on its stderr, glibc's malloc_stats().
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { inflatingPdf } from "../../test/fixtures/inflating-pdf.js";
import { startLoopback } from "../../test/net/loopback.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const option = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] as string) : fallback;
};
const CLI = option("--cli", `${repo}dist/adapters/cli/main.js`);
const CASES = option("--cases", "deep,fourteen,wide,million,pdf").split(",");
const PDF_MB = Number(option("--pdf-mb", "1024"));
const IDLE_MS = Number(option("--idle-ms", "15000"));
const JEMALLOC = process.argv.includes("--jemalloc");
const TRIM = process.argv.includes("--trim");
const EXTRA_ENV = Object.fromEntries(
  process.argv.flatMap((arg, i) =>
    process.argv[i - 1] === "--env" ? [arg.split(/=(.*)/s).slice(0, 2)] : [],
  ),
);

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const sideBySide = (unit: string, count: number) =>
  `[${Array.from({ length: count }, () => unit).join(",")}]`;
const PAGES: Record<string, () => { type: string; body: Buffer; what: string }> = {
  deep: () => ({
    type: "application/json",
    body: Buffer.from(nested(4_000)),
    what: "one array nested 4,000 deep",
  }),
  fourteen: () => ({
    type: "application/json",
    body: Buffer.from(sideBySide(nested(4_000), 14)),
    what: "fourteen arrays nested 4,000 deep, side by side",
  }),
  wide: () => ({
    type: "application/json",
    body: Buffer.from(sideBySide(nested(400), 2_000)),
    what: "2,000 arrays nested 400 deep, side by side",
  }),
  million: () => ({
    type: "application/json",
    body: Buffer.from(nested(1_000_000)),
    what: "one array nested a million deep",
  }),
  pdf: () => ({
    type: "application/pdf",
    body: inflatingPdf(PDF_MB),
    what: `a PDF whose stream inflates to ${PDF_MB} MB`,
  }),
};

const status = (pid: number, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024;

async function runCase(name: string, page: { type: string; body: Buffer; what: string }, url: string) {
  const base = mkdtempSync(join(tmpdir(), "evident-hostile-"));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp"],
    cwd: base,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: base,
      XDG_CONFIG_HOME: join(base, "config"),
      EVIDENT_CACHE_DIR: join(base, "cache"),
      EVIDENT_ALLOW_PRIVATE_NETWORK: "true",
      EVIDENT_CALL_DEADLINE_MS: "600000",
      EVIDENT_DIRECT_DEADLINE_MS: "600000",
      ...(JEMALLOC ? { LD_PRELOAD: "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2" } : {}),
      ...EXTRA_ENV,
    },
    stderr: process.argv.includes("--smaps") ? "inherit" : "ignore",
  });
  const client = new Client({ name: "hostile-reads", version: "1.0.0" });
  await client.connect(transport);
  const pid = transport.pid as number;
  const read = (path: string) =>
    client.callTool({ name: "web_read", arguments: { url: `${url}${path}` } }, { timeout: 900_000 });
  await read("/small");
  const before = status(pid, "VmRSS");
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
  const started = performance.now();
  let done = false;
  const answer = read(`/${name}`).finally(() => {
    done = true;
  });
  let slowest = 0;
  let lists = 0;
  while (!done) {
    const sent = performance.now();
    await client.listTools();
    slowest = Math.max(slowest, performance.now() - sent);
    lists++;
  }
  const result = await answer;
  const seconds = (performance.now() - started) / 1000;
  const peak = status(pid, "VmHWM");
  const after = status(pid, "VmRSS");
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const idle = status(pid, "VmRSS");
  if (process.argv.includes("--smaps")) {
    const maps = readFileSync(`/proc/${pid}/smaps`, "utf8").split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/);
    const rows = maps
      .map((m) => ({ head: m.split("\n")[0], rss: Number(/\nRss:\s+(\d+)/.exec(m)?.[1] ?? 0) / 1024 }))
      .sort((a, b) => b.rss - a.rss)
      .slice(0, 8);
    for (const row of rows) console.log(`  ${row.rss.toFixed(1)} MB ${row.head}`);
    execFileSync("gdb", ["-p", String(pid), "-batch", "-nx", "-ex", "call (void) malloc_stats()"], {
      stdio: "ignore",
    });
  }
  if (TRIM) {
    execFileSync("gdb", ["-p", String(pid), "-batch", "-nx", "-ex", "call (int) malloc_trim(0)"], {
      stdio: "ignore",
    });
  }
  const trimmed = TRIM ? status(pid, "VmRSS").toFixed(0) : undefined;
  const envelope = JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? "{}");
  const outcome =
    envelope.error !== undefined
      ? `${envelope.error.code} ${JSON.stringify(envelope.error.provider_reasons ?? {})}`
      : `ok, ${envelope.contentChars?.total} chars${envelope.warnings?.length ? `; ${envelope.warnings.join(" | ").slice(0, 160)}` : ""}`;
  await client.close();
  rmSync(base, { recursive: true, force: true });
  return {
    case: `${name} (${page.what}, ${(page.body.length / 1024).toFixed(0)} KB)`,
    read_s: seconds.toFixed(1),
    slowest_list_ms: slowest.toFixed(0),
    lists,
    rss_before_mb: before.toFixed(0),
    peak_rss_mb: peak.toFixed(0),
    rss_after_mb: after.toFixed(0),
    [`rss_idle_${IDLE_MS / 1000}s_mb`]: idle.toFixed(0),
    ...(trimmed === undefined ? {} : { rss_after_malloc_trim_mb: trimmed }),
    outcome,
  };
}

if (!existsSync(CLI)) throw new Error(`no build at ${CLI}: run npm run build`);
const pages = Object.fromEntries(
  CASES.map((name) => [name, (PAGES[name] as () => ReturnType<(typeof PAGES)["deep"]>)()]),
);
const site = await startLoopback((req, res) => {
  const page = pages[(req.url ?? "").slice(1)];
  res.setHeader("content-type", page?.type ?? "text/html");
  res.end(page?.body ?? "<html><head><title>Small</title></head><body><p>A small page.</p></body></html>");
});
console.log(
  `cli ${CLI}; allocator ${JEMALLOC ? "jemalloc (preloaded)" : "glibc malloc"}; ${JSON.stringify(EXTRA_ENV)}`,
);
for (const name of CASES) {
  const page = pages[name];
  if (page === undefined) throw new Error(`unknown case ${name}`);
  console.log(JSON.stringify(await runCase(name, page, site.url)));
}
await site.close();
