/**
 * Load benchmark of the Streamable HTTP server (issue 18; a benchmark, not a test).
 *
 * `evident mcp --transport http` (the built CLI, its own process, default settings) and a bare
 * SDK server running the same ripgrep search (bench/load/bare-server.ts) each get the same
 * load, one after the other: CLIENTS concurrent clients for SECONDS seconds, each alternating a
 * code_search (patterns taken in turn from PATTERNS) and a tools/list, after a warm-up. Reported
 * per server: requests per second, p50/p99 latency per call kind, errors, 503 answers (the
 * documented overload answer; a client then waits its Retry-After), the server's resident memory
 * at the start and end of the measured period and at its peak, and the most ripgreps seen at
 * once. Then, the load still running, evident is sent SIGTERM: what every request in flight or sent
 * afterwards got (answers, `cancelled` answers, 503 + Connection: close, refused connections,
 * resets), its exit status and how long it took. Last, no process either server started may be
 * left running (every process carries a marker in its environment; /proc is searched for it).
 *
 *   npm run build && npx tsx bench/load/bench.ts [--seconds 60] [--clients 50] [--dir DIR] [--heap-mb N]
 *
 * `--heap-mb` caps evident's V8 heap (--max-old-space-size): memory that grows under no cap but
 * holds under a small one, with the same answers, is garbage not yet collected, not a leak.
 *
 * The corpus is the repository itself unless --dir names another directory. On a small machine
 * the load generator, the server and its ripgreps share the cores: note the machine's
 * conditions with the figures (bench/load/RESULTS.md).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";
import { HTTP_MIN_TOKEN_CHARS, HTTP_RETRY_AFTER_SECONDS } from "../../src/core/limits.js";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const CLI = join(ROOT, "dist/adapters/cli/main.js");

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
}
const SECONDS = Number(option("seconds", "60"));
const CLIENTS = Number(option("clients", "50"));
const WARMUP_SECONDS = Number(option("warmup", String(Math.min(15, Math.max(1, SECONDS / 4)))));
const CORPUS = resolve(option("dir", ROOT));
const HEAP_MB = option("heap-mb", "");
const PATTERNS = ["createHttpHandler", "AbortSignal", "EvidentError", "export function"];
const TOKEN = `${"l".repeat(HTTP_MIN_TOKEN_CHARS)}-load`;
/** Every process either server starts inherits this: leftovers are found by it. */
const MARKER = `EVIDENT_LOAD_BENCH=${randomUUID()}`;

interface Server {
  readonly name: string;
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  readonly headers: Record<string, string>;
}

async function startServer(name: string, command: string[], cwd: string, env: Record<string, string>) {
  const [key, value] = MARKER.split("=") as [string, string];
  const child = spawn(process.execPath, command, {
    cwd,
    env: { ...process.env, ...env, [key]: value },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  const url = await new Promise<string>((done, fail) => {
    let out = "";
    const look = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /(?:READY|listening on) (\S+)/.exec(out);
      if (match?.[1] !== undefined) done(match[1]);
    };
    child.stdout?.on("data", look);
    child.stderr?.on("data", look);
    void exited.then((code) => fail(new Error(`${name} exited with ${code}: ${out}`)));
  });
  return { name, url, child, exited };
}

function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) * 1024;
}

/** CPU seconds of a process itself and of its children it has waited for (ripgreps), from /proc. */
function cpuOf(pid: number): { self: number; children: number } {
  // Fields after the command name (which may hold spaces): utime is the 12th, then stime,
  // cutime, cstime, all in clock ticks (100 per second on Linux).
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .map(Number);
  const tick = (i: number) => (fields[i] ?? Number.NaN) / 100;
  return { self: tick(11) + tick(12), children: tick(13) + tick(14) };
}

function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when there is none
  }
  return [...children, ...children.flatMap(descendants)];
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

/** Live processes carrying this run's marker (only our own user's are readable). */
function markedProcesses(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(MARKER))
        found.push(Number(entry));
    } catch {
      // gone, or another user's
    }
  }
  return found;
}

type Kind = "code_search" | "tools/list";
type Outcome = "ok" | "error" | "overloaded" | "cancelled" | "draining" | "refused" | "reset";

interface Tally {
  readonly latencies: Record<Kind, number[]>;
  readonly outcomes: Record<Outcome, number>;
  readonly errors: Map<string, number>;
}

function newTally(): Tally {
  return {
    latencies: { code_search: [], "tools/list": [] },
    outcomes: { ok: 0, error: 0, overloaded: 0, cancelled: 0, draining: 0, refused: 0, reset: 0 },
    errors: new Map(),
  };
}

function bodyOf(kind: Kind, id: number, pattern: string): string {
  return JSON.stringify(
    kind === "tools/list"
      ? { jsonrpc: "2.0", id, method: "tools/list", params: {} }
      : { jsonrpc: "2.0", id, method: "tools/call", params: { name: "code_search", arguments: { pattern } } },
  );
}

/** One request; what it came to, and how long it took. */
async function call(pool: Pool, server: Server, kind: Kind, id: number, pattern: string) {
  const started = performance.now();
  try {
    const response = await pool.request({
      path: new URL(server.url).pathname,
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
        ...server.headers,
      },
      body: bodyOf(kind, id, pattern),
    });
    const text = await response.body.text();
    const ms = performance.now() - started;
    if (response.statusCode === 503) {
      const draining = /shutting down/.test(text);
      return { outcome: (draining ? "draining" : "overloaded") as Outcome, ms, detail: "" };
    }
    const data = /^data: (.*)$/m.exec(text)?.[1] ?? text;
    const message = JSON.parse(data) as {
      result?: { isError?: boolean; content?: Array<{ text?: string }> };
      error?: { code: number };
    };
    if (response.statusCode !== 200 || message.result === undefined) {
      return { outcome: "error" as Outcome, ms, detail: `HTTP ${response.statusCode} ${text.slice(0, 120)}` };
    }
    if (message.result.isError) {
      const payload = message.result.content?.[0]?.text ?? "";
      const code = /"code":"([a-z_]+)"/.exec(payload)?.[1] ?? "unknown";
      return { outcome: (code === "cancelled" ? "cancelled" : "error") as Outcome, ms, detail: code };
    }
    return { outcome: "ok" as Outcome, ms, detail: "" };
  } catch (error) {
    const code = (error as { code?: string }).code ?? "";
    const ms = performance.now() - started;
    if (code === "ECONNREFUSED") return { outcome: "refused" as Outcome, ms, detail: code };
    return { outcome: "reset" as Outcome, ms, detail: code || String(error) };
  }
}

/**
 * CLIENTS workers, each alternating code_search and tools/list, recording into whichever tally
 * is current (none during the warm-up), until stopped or, once the server is going away, until
 * its connection is refused. A 503 (overload or shutdown) makes the worker wait its Retry-After.
 */
class Load {
  readonly #pool: Pool;
  readonly #workers: Promise<void>;
  #stopped = false;
  tally: Tally | undefined;

  constructor(server: Server) {
    this.#pool = new Pool(new URL(server.url).origin, { connections: CLIENTS });
    let next = 0;
    this.#workers = Promise.all(
      Array.from({ length: CLIENTS }, async (_, worker) => {
        for (let i = 0; !this.#stopped; i++) {
          const kind: Kind = (i + worker) % 2 === 0 ? "code_search" : "tools/list";
          const id = next++;
          const result = await call(this.#pool, server, kind, id, PATTERNS[id % PATTERNS.length] as string);
          const tally = this.tally;
          if (tally !== undefined) {
            tally.outcomes[result.outcome] += 1;
            if (result.outcome === "ok") tally.latencies[kind].push(result.ms);
            if (result.detail !== "" && result.outcome !== "refused") {
              tally.errors.set(result.detail, (tally.errors.get(result.detail) ?? 0) + 1);
            }
          }
          if (result.outcome === "refused") return;
          if (result.outcome === "overloaded" || result.outcome === "draining") {
            await sleep(HTTP_RETRY_AFTER_SECONDS * 1000);
          }
        }
      }),
    ).then(() => undefined);
  }

  /** Stops the workers (each after its current request) and closes the connections. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#workers;
    await this.#pool.destroy();
  }

  /** Resolves once every worker has stopped by itself (its server refused it). */
  async ended(): Promise<void> {
    await this.#workers;
    await this.#pool.destroy();
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

interface Measured {
  readonly tally: Tally;
  readonly seconds: number;
  readonly rssStart: number;
  /** Halfway through the measured period: growth that stops there is a cache filling, not a leak. */
  readonly rssMid: number;
  readonly rssEnd: number;
  readonly rssPeak: number;
  readonly ripgrepsPeak: number;
  /** CPU seconds spent in the measured period by the server and by its ripgreps. */
  readonly cpu: { readonly self: number; readonly children: number };
}

/** Warm-up, then the measured period; the load is left running for what comes next. */
async function measure(server: Server, load: Load, seconds: number): Promise<Measured> {
  const pid = server.child.pid as number;
  await sleep(WARMUP_SECONDS * 1000);
  const tally = newTally();
  load.tally = tally;
  const rssStart = rssBytes(pid);
  const cpuStart = cpuOf(pid);
  let rssPeak = rssStart;
  let ripgrepsPeak = 0;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssBytes(pid));
    const ripgreps = descendants(pid).filter((child) => / --json /.test(commandOf(child))).length;
    ripgrepsPeak = Math.max(ripgrepsPeak, ripgreps);
  }, 1_000);
  const started = performance.now();
  await sleep((seconds * 1000) / 2);
  const rssMid = rssBytes(pid);
  await sleep((seconds * 1000) / 2);
  const elapsed = (performance.now() - started) / 1000;
  const cpuEnd = cpuOf(pid);
  clearInterval(sampler);
  load.tally = undefined;
  const cpu = { self: cpuEnd.self - cpuStart.self, children: cpuEnd.children - cpuStart.children };
  return { tally, seconds: elapsed, rssStart, rssMid, rssEnd: rssBytes(pid), rssPeak, ripgrepsPeak, cpu };
}

/** Two measured periods of one server as one: counts and latencies added, memory from first to last. */
function mergeHalves([first, second]: [Measured, Measured]): Measured {
  const tally = newTally();
  for (const part of [first, second]) {
    for (const kind of ["code_search", "tools/list"] as const)
      tally.latencies[kind].push(...part.tally.latencies[kind]);
    for (const key of Object.keys(tally.outcomes) as Outcome[])
      tally.outcomes[key] += part.tally.outcomes[key];
    for (const [detail, count] of part.tally.errors)
      tally.errors.set(detail, (tally.errors.get(detail) ?? 0) + count);
  }
  return {
    tally,
    seconds: first.seconds + second.seconds,
    rssStart: first.rssStart,
    rssMid: first.rssEnd,
    rssEnd: second.rssEnd,
    rssPeak: Math.max(first.rssPeak, second.rssPeak),
    ripgrepsPeak: Math.max(first.ripgrepsPeak, second.ripgrepsPeak),
    cpu: {
      self: first.cpu.self + second.cpu.self,
      children: first.cpu.children + second.cpu.children,
    },
  };
}

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

function report(server: Server, m: Measured): number {
  const ok = m.tally.outcomes.ok;
  const rate = ok / m.seconds;
  const { latencies, outcomes } = m.tally;
  console.log(`\n${server.name}`);
  console.log(
    `  answered ${ok} in ${m.seconds.toFixed(1)} s = ${rate.toFixed(1)} req/s; errors ${outcomes.error + outcomes.reset}; 503 ${outcomes.overloaded}`,
  );
  for (const kind of ["code_search", "tools/list"] as const) {
    const list = latencies[kind];
    console.log(
      `  ${kind.padEnd(11)} n=${list.length} p50=${percentile(list, 50).toFixed(1)} ms p99=${percentile(list, 99).toFixed(1)} ms`,
    );
  }
  const growth = (m.rssEnd - m.rssStart) / m.rssStart;
  console.log(
    `  RSS start ${mb(m.rssStart)}, halfway ${mb(m.rssMid)}, end ${mb(m.rssEnd)} (${(growth * 100).toFixed(1)}%), peak ${mb(m.rssPeak)}; most ripgreps at once ${m.ripgrepsPeak}`,
  );
  // Where the time goes: CPU per answered request, in the server's own process and in ripgrep.
  console.log(
    `  CPU per answered request: server ${((m.cpu.self * 1000) / ok).toFixed(1)} ms, its ripgreps ${((m.cpu.children * 1000) / ok).toFixed(1)} ms (${m.cpu.self.toFixed(1)} s + ${m.cpu.children.toFixed(1)} s in ${m.seconds.toFixed(0)} s)`,
  );
  if (m.tally.errors.size > 0)
    console.log(`  failures: ${JSON.stringify(Object.fromEntries(m.tally.errors))}`);
  return rate;
}

/** SIGTERM under the running load: what requests got from the moment the signal was sent. */
async function sigtermUnderLoad(server: Server, load: Load): Promise<string> {
  const tally = newTally();
  load.tally = tally;
  const sent = performance.now();
  server.child.kill("SIGTERM");
  const code = await server.exited;
  const took = performance.now() - sent;
  await load.ended();
  const o = tally.outcomes;
  const details =
    tally.errors.size > 0 ? `\n  details: ${JSON.stringify(Object.fromEntries(tally.errors))}` : "";
  return (
    `\n${server.name}: SIGTERM under load (${CLIENTS} clients)\n` +
    `  exit status ${code} after ${took.toFixed(0)} ms; from the signal on: answered ${o.ok}, cancelled answers ${o.cancelled}, 503 draining ${o.draining}, 503 overloaded ${o.overloaded}, refused connections ${o.refused}, resets ${o.reset}, errors ${o.error}${details}`
  );
}

async function stop(server: Server): Promise<void> {
  server.child.stdin?.end();
  server.child.kill("SIGTERM");
  await server.exited;
}

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error("run `npm run build` first: the benchmark starts the built CLI");
  const home = mkdtempSync(join(tmpdir(), "evident-load-"));
  console.log(
    `load: ${CLIENTS} clients, ${SECONDS} s measured after ${WARMUP_SECONDS} s of warm-up, corpus ${CORPUS}, patterns ${JSON.stringify(PATTERNS)}${HEAP_MB === "" ? "" : `, evident's heap capped at ${HEAP_MB} MB`}`,
  );
  console.log(
    `machine: ${cpus().length} cores, load average before ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
  try {
    const bare: Server = {
      ...(await startServer(
        "bare SDK server (same ripgrep search)",
        ["--import", "tsx", join(ROOT, "bench/load/bare-server.ts"), CORPUS],
        ROOT,
        {},
      )),
      headers: {},
    };
    const evident: Server = {
      ...(await startServer("evident mcp --transport http", [CLI, "mcp", "--transport", "http"], CORPUS, {
        EVIDENT_AUTH_TOKEN: TOKEN,
        EVIDENT_HTTP_PORT: "0",
        XDG_CONFIG_HOME: home,
        EVIDENT_LOG_LEVEL: "error",
        ...(HEAP_MB === "" ? {} : { NODE_OPTIONS: `--max-old-space-size=${Number(HEAP_MB)}` }),
      })),
      headers: { authorization: `Bearer ${TOKEN}` },
    };
    // Bare, evident, bare: evident's SECONDS are one continuous period, the bare server's are
    // split around it, so a machine that gets busier or quieter meanwhile favours neither.
    const bareHalf = async () => {
      const load = new Load(bare);
      const measured = await measure(bare, load, SECONDS / 2);
      await load.stop();
      return measured;
    };
    const bareFirst = await bareHalf();
    const evidentLoad = new Load(evident);
    const evidentMeasured = await measure(evident, evidentLoad, SECONDS);
    // Then, its load still running, evident is sent SIGTERM (reported after the figures).
    const sigterm = await sigtermUnderLoad(evident, evidentLoad);
    const bareMeasured = mergeHalves([bareFirst, await bareHalf()]);
    await stop(bare);
    const bareRate = report(bare, bareMeasured);
    const evidentRate = report(evident, evidentMeasured);
    const ratio = evidentRate / bareRate;
    console.log(
      `\nthroughput evident / bare = ${ratio.toFixed(2)}x (goal >= 0.8x) ${ratio >= 0.8 ? "MET" : "NOT MET"}`,
    );
    const growth = (evidentMeasured.rssEnd - evidentMeasured.rssStart) / evidentMeasured.rssStart;
    console.log(
      `evident RSS growth ${(growth * 100).toFixed(1)}% (goal < 10%) ${growth < 0.1 ? "MET" : "NOT MET"}`,
    );
    console.log(sigterm);
    // Children that outlive their parent need a moment to notice it is gone; then none may remain.
    let left = markedProcesses();
    for (let i = 0; i < 50 && left.length > 0; i++) {
      await sleep(100);
      left = markedProcesses();
    }
    console.log(
      `\nleftover processes: ${left.length}${left.length > 0 ? ` (${left.map(commandOf).join("; ")})` : ""}`,
    );
    console.log(
      `load average after ${loadavg()
        .map((n) => n.toFixed(2))
        .join(" ")}`,
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

await main();
