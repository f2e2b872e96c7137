/**
 * Per-call cost of web_search over MCP Streamable HTTP (issue 4 benchmark, not a test).
 *
 * Two servers on loopback, each in its own process (bench/web/server.ts), measured in one run with
 * the same client, call count and concurrency:
 *   - evident: the product registry behind `startHttpServer`, web_search routed to the `tavily`
 *     adapter whose base URL is an instant loopback fake, a third process (so the router,
 *     envelope, adapter and HTTP client all run, but no vendor latency is added);
 *   - bare: an official-SDK McpServer with one no-op tool behind `createMcpHandler` + `toNodeHandler`.
 * Prints p50/p99 latency of both, their throughput and the ratio (target >= 0.8x).
 *
 * Run: npx tsx bench/web/bench.ts [calls=2000] [concurrency=8]
 */
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { HTTP_MIN_TOKEN_CHARS } from "../../src/core/limits.js";

const CALLS = Number(process.argv[2] ?? 2000);
const CONCURRENCY = Number(process.argv[3] ?? 8);
const WARMUP = Math.min(200, Math.ceil(CALLS / 10));
const TOKEN = `${"b".repeat(HTTP_MIN_TOKEN_CHARS)}-bench`;

/** Starts bench/web/server.ts in a child process and waits for its `READY <url>` line. */
async function startChild(args: string[]): Promise<{ url: string; close(): Promise<void> }> {
  // BENCH_CPU_PROF=<dir> writes a CPU profile of each server process there.
  const profile = process.env.BENCH_CPU_PROF
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  const child = spawn(
    process.execPath,
    [...profile, "--import", "tsx", fileURLToPath(new URL("./server.ts", import.meta.url)), ...args],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      buffer += chunk;
      const match = /READY (\S+)/.exec(buffer);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return {
    url,
    close: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.stdin.end();
      }),
  };
}

interface Measured {
  readonly latenciesMs: number[];
  readonly seconds: number;
}

async function measure(
  url: string,
  headers: Record<string, string>,
  tool: string,
  args: Record<string, unknown>,
): Promise<Measured> {
  const clients = await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      const client = new Client({ name: "bench", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
      return client;
    }),
  );
  const call = async (client: Client) => {
    const result = await client.callTool({ name: tool, arguments: args });
    if (result.isError) throw new Error(`${tool} failed: ${JSON.stringify(result.content)}`);
  };
  // Warm up: JIT, connection pools, lazy modules (undici, adapters) of the first call.
  await Promise.all(
    clients.map(async (client) => {
      for (let i = 0; i < Math.ceil(WARMUP / CONCURRENCY); i++) await call(client);
    }),
  );
  const latenciesMs: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (next < CALLS) {
        next++;
        const t0 = performance.now();
        await call(client);
        latenciesMs.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  await Promise.all(clients.map((client) => client.close()));
  return { latenciesMs, seconds };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function report(name: string, m: Measured): number {
  const throughput = m.latenciesMs.length / m.seconds;
  console.log(
    `${name.padEnd(46)} calls=${m.latenciesMs.length} throughput=${throughput.toFixed(0)}/s p50=${percentile(m.latenciesMs, 50).toFixed(2)}ms p99=${percentile(m.latenciesMs, 99).toFixed(2)}ms`,
  );
  return throughput;
}

async function main(): Promise<void> {
  const vendor = await startChild(["vendor"]);
  const evident = await startChild(["evident", vendor.url, TOKEN]);
  const colocated = await startChild(["evident-colocated", "-", TOKEN]);
  const inproc = await startChild(["evident-inproc", "http://127.0.0.1:9", TOKEN]);
  const bare = await startChild(["bare"]);
  try {
    console.log(`web_search over MCP HTTP: ${CALLS} calls, concurrency ${CONCURRENCY}, warm-up ${WARMUP}`);
    const auth = { authorization: `Bearer ${TOKEN}` };
    const runEvident = () => measure(evident.url, auth, "web_search", { query: "bench" });
    const runInproc = () => measure(inproc.url, auth, "web_search", { query: "bench" });
    const runColocated = () => measure(colocated.url, auth, "web_search", { query: "bench" });
    const runBare = () => measure(bare.url, {}, "noop", { query: "bench" });
    // Two rounds in opposite orders, so no server always runs on a colder (or busier) machine.
    const e1 = await runEvident();
    const c1 = await runColocated();
    const i1 = await runInproc();
    const b1 = await runBare();
    const b2 = await runBare();
    const i2 = await runInproc();
    const c2 = await runColocated();
    const e2 = await runEvident();
    const merge = (a: Measured, b: Measured): Measured => ({
      latenciesMs: [...a.latenciesMs, ...b.latenciesMs],
      seconds: a.seconds + b.seconds,
    });
    const b = report("bare", merge(b1, b2));
    const e = report("evident (loopback HTTP vendor)", merge(e1, e2));
    const c = report("evident (loopback HTTP vendor, same process)", merge(c1, c2));
    const i = report("evident (in-process instant provider)", merge(i1, i2));
    for (const [name, value] of [
      ["loopback HTTP vendor", e],
      ["loopback HTTP vendor, same process", c],
      ["in-process instant provider", i],
    ] as const) {
      const ratio = value / b;
      console.log(
        `throughput ratio evident/bare, ${name} = ${ratio.toFixed(2)}x (target >= 0.8x) ${ratio >= 0.8 ? "MET" : "NOT MET"}`,
      );
    }
  } finally {
    await Promise.all([evident.close(), colocated.close(), inproc.close(), bare.close(), vendor.close()]);
  }
}

await main();
