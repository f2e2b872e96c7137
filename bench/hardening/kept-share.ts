/**
 * One caller's huge page against another caller's kept page (issue #31, section 2), not a test:
 * the built `evident mcp --transport http` serves two tokens (two callers). Caller A reads a long
 * page (a cursor is kept); caller B reads a JSON page whose formatted text is far larger than the
 * kept-page store (three arrays nested 3,000 deep: 18 KB that pretty-print to about 54 million
 * characters, unless the reader declines to format them); then A asks for its next part.
 *
 * Reported: how long B's read took; the longest `/healthz` answer while it ran (probes every
 * 50 ms: the time the server's main thread was blocked, to within a probe); the server's peak
 * resident set (VmHWM) and its resident set (VmRSS) before, right after, and 30 s after the read
 * with no call in flight (what the server keeps once the calls stop); and whether A's next part
 * came or was `cursor_expired`.
 *
 * Usage: npm run build && node --import tsx bench/hardening/kept-share.ts [--cli PATH] [--idle 30]
 *          [--reads N]   (B reads its page N times, each kept: one caller many large values)
 *   (--cli: another build's dist/adapters/cli/main.js, e.g. a worktree of main, for "before")
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startLoopback } from "../../test/net/loopback.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const option = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const CLI = option("--cli") ?? `${repo}dist/adapters/cli/main.js`;
const IDLE_S = Number(option("--idle") ?? 30);
/** How many times B reads its page (each read keeps a value of its own). */
const READS = Number(option("--reads") ?? 1);
const TOKENS = ["a".repeat(40), "b".repeat(40)];
const PAGE = Array.from(
  { length: 300 },
  (_, i) => `line ${String(i).padStart(4, "0")} of the long page`,
).join("\n");
const DEEP = `[${Array.from({ length: 3 }, () => `${"[".repeat(3000)}${"]".repeat(3000)}`).join(",")}]`;

const mb = (kb: number) => `${Math.round(kb / 1024)} MB`;
function status(pid: number, field: "VmRSS" | "VmHWM"): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN);
}

function healthz(url: string): Promise<number> {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request(new URL("/healthz", url), (res) => {
      res.resume();
      res.on("end", () => resolve(Number(process.hrtime.bigint() - start) / 1e6));
    });
    req.on("error", reject);
    req.end();
  });
}

const site = await startLoopback((req, res) => {
  const deep = req.url?.startsWith("/deep.json") === true;
  res.setHeader("content-type", deep ? "application/json" : "text/plain; charset=utf-8");
  res.end(deep ? DEEP : PAGE);
});
const home = mkdtempSync(join(tmpdir(), "evident-kept-share-bench-"));
const server = spawn(process.execPath, [CLI, "mcp", "--transport", "http"], {
  env: {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CONFIG_HOME: join(home, "config"),
    EVIDENT_CACHE_DIR: join(home, "cache"),
    EVIDENT_ALLOW_PRIVATE_NETWORK: "true",
    EVIDENT_ENVELOPE_BUDGET_CHARS: "3000",
    EVIDENT_AUTH_TOKENS: TOKENS.join(","),
    EVIDENT_HTTP_PORT: "0",
  },
  stdio: ["ignore", "ignore", "pipe"],
});
const url = await new Promise<string>((resolve, reject) => {
  let seen = "";
  server.stderr?.on("data", (chunk: Buffer) => {
    seen += chunk.toString();
    const found = /listening on (http:\/\/[^\s"]+)/.exec(seen);
    if (found) resolve(found[1] as string);
  });
  server.on("exit", (code) => reject(new Error(`server exited (${code}): ${seen}`)));
});
const pid = server.pid as number;
const clients: Client[] = [];
try {
  for (const token of TOKENS) {
    const client = new Client({ name: "kept-share-bench", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
  }
  const [alice, bob] = clients as [Client, Client];
  // biome-ignore lint/suspicious/noExplicitAny: the envelope is read loosely.
  const read = async (client: Client, args: Record<string, unknown>): Promise<Record<string, any>> => {
    const result = await client.callTool({ name: "web_read", arguments: args });
    return JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? "{}");
  };
  const first = await read(alice, { url: `${site.url}/long` });
  const rssBefore = status(pid, "VmRSS");

  let reading = true;
  let worst = 0;
  let failedProbes = 0;
  const probes = (async () => {
    while (reading) {
      // A probe refused or reset by a busy server is counted, not fatal.
      try {
        worst = Math.max(worst, await healthz(url));
      } catch {
        failedProbes++;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const start = process.hrtime.bigint();
  let huge = await read(bob, { url: `${site.url}/deep.json` });
  for (let again = 1; again < READS; again++)
    huge = await read(bob, { url: `${site.url}/deep.json?${again}` });
  const readMs = Number(process.hrtime.bigint() - start) / 1e6;
  reading = false;
  await probes;
  const rssAfter = status(pid, "VmRSS");
  const next = await read(alice, { cursor: first.cursor });
  await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000));
  const rssIdle = status(pid, "VmRSS");

  console.log(`cli: ${CLI}`);
  console.log(
    `B's ${READS} read(s): ${Math.round(readMs)} ms, ${huge.error?.code ?? "ok"}, ${huge.contentChars?.total} characters; ` +
      `cut: ${huge.warnings?.find((w: string) => w.startsWith("only the first")) ?? "none"}`,
  );
  console.log(`longest /healthz during it: ${Math.round(worst)} ms (${failedProbes} probes failed)`);
  console.log(
    `RSS before ${mb(rssBefore)}, right after ${mb(rssAfter)}, after ${IDLE_S} s idle ${mb(rssIdle)}; peak ${mb(status(pid, "VmHWM"))}`,
  );
  console.log(`A's next part: ${next.error?.code ?? `ok (from ${next.contentChars?.from})`}`);
} finally {
  for (const client of clients) await client.close().catch(() => undefined);
  server.kill("SIGTERM");
  await new Promise((resolve) => server.once("exit", resolve));
  await site.close();
  rmSync(home, { recursive: true, force: true });
}
