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
 * Run: npx tsx bench/web/bench.ts [calls=2000] [concurrency=8] [clients=raw,sdk]
 *
 * Reading the numbers: on a 2-vCPU machine the client, the servers and the vendor fake compete
 * for two cores, so the ratios move with scheduling as much as with evident's own cost; compare
 * several runs. Two runs on the project machine with nothing else running gave, evident/bare
 * throughput: in-process provider 0.97-0.99x (raw client) and 1.22-1.25x (SDK client); loopback
 * vendor in the server's process 0.97-1.04x (raw) and 1.21-1.22x (SDK); loopback vendor in a
 * third process 0.71-0.74x (raw) and 0.84-0.86x (SDK), where four processes share two cores.
 */
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Pool } from "undici";
import { HTTP_MIN_TOKEN_CHARS } from "../../src/core/limits.js";

const CALLS = Number(process.argv[2] ?? 2000);
const CONCURRENCY = Number(process.argv[3] ?? 8);
/** Load generators to run: `raw` (minimal MCP POSTs), `sdk` (the official client), or both. */
const CLIENTS = (process.argv[4] ?? "raw,sdk").split(",") as Array<"raw" | "sdk">;
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

/** One way to make a tools/call: each caller is used by one worker, one call at a time. */
interface Callers {
  readonly callers: ReadonlyArray<() => Promise<void>>;
  close(): Promise<void>;
}

/** The official SDK client, one connected client per worker. */
async function sdkCallers(
  url: string,
  headers: Record<string, string>,
  tool: string,
  args: Record<string, unknown>,
): Promise<Callers> {
  const clients = await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      const client = new Client({ name: "bench", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
      return client;
    }),
  );
  return {
    callers: clients.map((client) => async () => {
      const result = await client.callTool({ name: tool, arguments: args });
      if (result.isError) throw new Error(`${tool} failed: ${JSON.stringify(result.content)}`);
    }),
    close: async () => {
      await Promise.all(clients.map((client) => client.close()));
    },
  };
}

/**
 * A minimal MCP client: a stateless `tools/call` POST over a keep-alive pool, reading the one SSE
 * message of the answer. It spends far less CPU per call than the SDK client, so on a small
 * machine the servers, not the load generator, set the pace.
 */
async function rawCallers(
  url: string,
  headers: Record<string, string>,
  tool: string,
  args: Record<string, unknown>,
): Promise<Callers> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: CONCURRENCY });
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: tool, arguments: args },
  });
  const call = async () => {
    const response = await pool.request({
      path: target.pathname,
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
        ...headers,
      },
      body,
    });
    const text = await response.body.text();
    const data = /^data: (.*)$/m.exec(text)?.[1] ?? text;
    const message = JSON.parse(data) as { result?: { isError?: boolean }; error?: unknown };
    if (response.statusCode !== 200 || message.result === undefined || message.result.isError) {
      throw new Error(`${tool} failed: ${response.statusCode} ${text.slice(0, 300)}`);
    }
  };
  return { callers: Array.from({ length: CONCURRENCY }, () => call), close: () => pool.close() };
}

async function measure(make: () => Promise<Callers>): Promise<Measured> {
  const { callers, close } = await make();
  // Warm up: JIT, connection pools, lazy modules (undici, adapters) of the first call.
  await Promise.all(
    callers.map(async (call) => {
      for (let i = 0; i < Math.ceil(WARMUP / CONCURRENCY); i++) await call();
    }),
  );
  const latenciesMs: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    callers.map(async (call) => {
      while (next < CALLS) {
        next++;
        const t0 = performance.now();
        await call();
        latenciesMs.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  await close();
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
    for (const kind of CLIENTS) {
      const make = kind === "sdk" ? sdkCallers : rawCallers;
      console.log(
        `\nweb_search over MCP HTTP, ${kind} client: ${CALLS} calls, concurrency ${CONCURRENCY}, warm-up ${WARMUP}`,
      );
      const auth = { authorization: `Bearer ${TOKEN}` };
      const args = { query: "bench" };
      const runs: Record<string, () => Promise<Measured>> = {
        bare: () => measure(() => make(bare.url, {}, "noop", args)),
        "evident (loopback HTTP vendor process)": () =>
          measure(() => make(evident.url, auth, "web_search", args)),
        "evident (loopback HTTP vendor, same process)": () =>
          measure(() => make(colocated.url, auth, "web_search", args)),
        "evident (in-process instant provider)": () =>
          measure(() => make(inproc.url, auth, "web_search", args)),
      };
      // Two rounds in opposite orders, so no server always runs on a colder (or busier) machine.
      const names = Object.keys(runs);
      const results = new Map<string, Measured[]>();
      for (const order of [names, [...names].reverse()]) {
        for (const name of order) {
          const measured = await (runs[name] as () => Promise<Measured>)();
          results.set(name, [...(results.get(name) ?? []), measured]);
        }
      }
      const merged = (name: string): Measured => {
        const list = results.get(name) ?? [];
        return {
          latenciesMs: list.flatMap((m) => m.latenciesMs),
          seconds: list.reduce((sum, m) => sum + m.seconds, 0),
        };
      };
      const bareThroughput = report("bare", merged("bare"));
      for (const name of names.slice(1)) {
        const ratio = report(name, merged(name)) / bareThroughput;
        console.log(
          `  ratio to bare = ${ratio.toFixed(2)}x (target >= 0.8x) ${ratio >= 0.8 ? "MET" : "NOT MET"}`,
        );
      }
    }
  } finally {
    await Promise.all([evident.close(), colocated.close(), inproc.close(), bare.close(), vendor.close()]);
  }
}

await main();
