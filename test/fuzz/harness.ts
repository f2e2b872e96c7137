/**
 * The fuzz harness: starts the fuzzed server (server.ts) in a process of its own on one
 * transport, sends each tool its seeded cases (arguments.ts), `concurrency` at a time, and
 * judges every answer. Findings are what the suite forbids:
 * - crash: the server process ended, or a request got no HTTP answer at all;
 * - hang: no answer within `hangMs` (the cases run with deadlines below it, see world.ts);
 * - shape: an answer outside the documented shapes (a tool result, text first; a failure's text
 *   is `{"error":{"code","message"}}` with a code from the one list; a JSON-RPC error only when
 *   the arguments are not an object, -32602; over HTTP a 413 or 503 in the error shape);
 * - internal_error: a failure nobody anticipated;
 * - leak: a vendor key or the bearer token in an answer;
 * - guard: a connection reached the loopback canary.
 * The server's resident memory is sampled while it runs, and after it is stopped no process it
 * started may remain (each carries a marker in its environment).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ERROR_CODES } from "../../src/core/errors.js";
import { spawnedFixture } from "../fixtures/spawned.js";
import { fuzzArguments, type JsonSchema } from "./arguments.js";
import type { FuzzWorld } from "./world.js";

export type Transport = "stdio" | "http";
export type FindingKind = "crash" | "hang" | "shape" | "internal_error" | "leak" | "guard";

export interface Finding {
  readonly kind: FindingKind;
  readonly transport: Transport;
  readonly tool: string;
  readonly index: number;
  readonly detail: string;
  /** The case's arguments, cut for the report (rebuild them from seed, tool and index). */
  readonly args: string;
}

/** The server's memory after a full collection: V8's live heap and memory outside it (buffers). */
export interface LiveMemory {
  readonly heapUsed: number;
  readonly external: number;
}

/** The line server.ts writes on stderr when asked (SIGUSR2) for its live memory. */
const LIVE_MEMORY_LINE = /^fuzz-live-memory (\{.*\})$/m;

export interface FuzzOptions {
  readonly world: FuzzWorld;
  readonly transport: Transport;
  readonly seed: number;
  readonly tools: readonly string[];
  /** Cases per tool; `first` is the index of the first one (to resume or repeat a range). */
  readonly cases: number;
  readonly first?: number;
  readonly concurrency: number;
  readonly hangMs: number;
  /**
   * Start the server compiled, from build/ (scripts/run-tests.mjs builds it first), instead of from
   * source through tsx, which costs several times the CPU at each start.
   */
  readonly compiled?: boolean;
  /** NODE_OPTIONS of the server (e.g. a small heap, to tell a leak from garbage not yet collected). */
  readonly nodeOptions?: string;
  /**
   * Measure what the server keeps: before the cases, halfway through them (with none in flight)
   * and at the end, it collects its garbage and reports its live memory (see server.ts).
   */
  readonly measureLive?: boolean;
  /** Called after each case (progress for long runs). */
  readonly onCase?: (done: number) => void;
}

export interface FuzzReport {
  readonly transport: Transport;
  readonly calls: number;
  readonly findings: Finding[];
  /** Answers by outcome: `ok`, an error code, `jsonrpc -32602`, `http 413`... */
  readonly outcomes: Record<string, number>;
  readonly rss: { readonly start: number; readonly end: number; readonly peak: number };
  /** Live memory after a full collection: before the cases, halfway and at the end (with `measureLive`). */
  readonly live?: {
    readonly start: LiveMemory | undefined;
    readonly half: LiveMemory | undefined;
    readonly end: LiveMemory | undefined;
  };
  /** Processes the server started that were still alive after it stopped. */
  readonly leftover: string[];
  readonly exitCode: number | null;
  readonly seconds: number;
  /** The slowest answer, with its case. */
  readonly slowest: { readonly ms: number; readonly tool: string; readonly index: number };
}

const SERVER = fileURLToPath(new URL("./server.ts", import.meta.url));
/** tsx as this repository has it: the server runs in the corpus, which has no node_modules. */
const TSX = import.meta.resolve("tsx");

/** How the server is started: compiled (as the test runner builds it) or from source through tsx. */
function serverCommand(compiled: boolean): string[] {
  return compiled ? [spawnedFixture("test/fuzz/server.ts")] : ["--import", TSX, SERVER];
}
const JSON_RPC_INVALID_PARAMS = -32602;

interface Answer {
  /** HTTP status (200 on stdio). */
  readonly status: number;
  /** The JSON-RPC message, or the body of a non-JSON-RPC HTTP answer. */
  readonly message: Record<string, unknown> | undefined;
  readonly raw: string;
}

/** One server process and how to send it a JSON-RPC request. */
abstract class Connection {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  #stderr = "";

  constructor(world: FuzzWorld, command: string[], marker: string, nodeOptions: string | undefined) {
    const [key, value] = marker.split("=") as [string, string];
    this.child = spawn(process.execPath, command, {
      cwd: world.corpus,
      env: {
        ...world.env,
        [key]: value,
        ...(nodeOptions === undefined ? {} : { NODE_OPTIONS: nodeOptions }),
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.exited = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)));
    this.child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString()).slice(-4_000);
    });
  }

  get stderr(): string {
    return this.#stderr;
  }

  /** Asks the server to collect its garbage and report its live memory; undefined if it does not. */
  liveMemory(): Promise<LiveMemory | undefined> {
    return new Promise((resolve) => {
      let seen = "";
      const done = (value: LiveMemory | undefined) => {
        clearTimeout(timer);
        this.child.stderr?.off("data", look);
        resolve(value);
      };
      const look = (chunk: Buffer) => {
        seen += chunk.toString();
        const line = LIVE_MEMORY_LINE.exec(seen);
        if (line?.[1] !== undefined) done(JSON.parse(line[1]) as LiveMemory);
      };
      // A bound, not a wait: a server that cannot report (no --expose-gc) is simply not measured.
      const timer = setTimeout(() => done(undefined), 30_000);
      this.child.stderr?.on("data", look);
      this.child.kill("SIGUSR2");
    });
  }

  abstract start(): Promise<void>;
  /** The answer, or undefined when none came (the request is then abandoned or cancelled). */
  abstract request(
    id: number,
    method: string,
    params: unknown,
    signal: AbortSignal,
  ): Promise<Answer | undefined>;
  abstract stop(): Promise<void>;
}

class StdioConnection extends Connection {
  readonly #pending = new Map<number, (answer: Answer) => void>();
  #rest = "";

  constructor(world: FuzzWorld, server: string[], marker: string, nodeOptions: string | undefined) {
    super(world, [...server, "mcp"], marker, nodeOptions);
    this.child.stdout?.setEncoding("utf8");
    this.child.stdout?.on("data", (chunk: string) => {
      const lines = (this.#rest + chunk).split("\n");
      this.#rest = lines.pop() ?? "";
      for (const line of lines) {
        if (line.trim() === "") continue;
        let message: Record<string, unknown> | undefined;
        try {
          message = JSON.parse(line) as Record<string, unknown>;
        } catch {
          message = undefined;
        }
        const id = message?.id;
        const wake = typeof id === "number" ? this.#pending.get(id) : undefined;
        if (wake !== undefined) {
          this.#pending.delete(id as number);
          wake({ status: 200, message, raw: line });
        }
      }
    });
    this.child.stdin?.on("error", () => {}); // a crashed server: reported by `exited`
  }

  async start(): Promise<void> {
    const init = await this.request(
      0,
      "initialize",
      {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "evident-fuzz", version: "1.0.0" },
      },
      AbortSignal.timeout(60_000),
    );
    if (init?.message?.result === undefined)
      throw new Error(`initialize failed: ${init?.raw ?? this.stderr}`);
    this.#write({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  #write(message: unknown): void {
    this.child.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  request(id: number, method: string, params: unknown, signal: AbortSignal): Promise<Answer | undefined> {
    return new Promise((resolve) => {
      const done = (answer: Answer | undefined) => {
        signal.removeEventListener("abort", abandon);
        resolve(answer);
      };
      const abandon = () => {
        this.#pending.delete(id);
        // As a client gives up: the server stops the call and sends nothing for it.
        this.#write({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
        done(undefined);
      };
      this.#pending.set(id, done);
      signal.addEventListener("abort", abandon, { once: true });
      void this.exited.then(() => {
        if (this.#pending.delete(id)) done(undefined);
      });
      this.#write({ jsonrpc: "2.0", id, method, params });
    });
  }

  async stop(): Promise<void> {
    this.child.stdin?.end();
    await this.exited;
  }
}

class HttpConnection extends Connection {
  #url = "";
  readonly #token: string;

  constructor(world: FuzzWorld, server: string[], marker: string, nodeOptions: string | undefined) {
    super(world, [...server, "mcp", "--transport", "http"], marker, nodeOptions);
    this.#token = world.token;
  }

  async start(): Promise<void> {
    this.#url = await new Promise<string>((resolve, reject) => {
      let seen = "";
      const look = (chunk: Buffer) => {
        seen += chunk.toString();
        const match = /listening on (\S+)/.exec(seen);
        if (match?.[1] !== undefined) resolve(match[1]);
      };
      this.child.stdout?.on("data", look);
      this.child.stderr?.on("data", look);
      void this.exited.then((code) => reject(new Error(`the server exited with ${code}: ${seen}`)));
    });
  }

  async request(
    id: number,
    method: string,
    params: unknown,
    signal: AbortSignal,
  ): Promise<Answer | undefined> {
    let response: Response;
    try {
      response = await fetch(this.#url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${this.#token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
        signal,
      });
      const raw = await response.text();
      // A JSON answer, or an event stream whose last data line is the answer.
      const data = [...raw.matchAll(/^data: (.*)$/gm)].at(-1)?.[1] ?? raw;
      let message: Record<string, unknown> | undefined;
      try {
        message = JSON.parse(data) as Record<string, unknown>;
      } catch {
        message = undefined;
      }
      return { status: response.status, message, raw };
    } catch (error) {
      if (signal.aborted) return undefined;
      return { status: 0, message: undefined, raw: `no answer: ${(error as Error).message}` };
    }
  }

  async stop(): Promise<void> {
    this.child.kill("SIGTERM");
    await this.exited;
  }
}

function rssOf(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** Live processes whose environment carries `marker` (only our own user's are readable). */
export function markedProcesses(marker: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(marker)) continue;
      found.push(
        `${entry} ${readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").slice(0, 120)}`,
      );
    } catch {
      // gone, or another user's
    }
  }
  return found;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** What is wrong with an answer to a tools/call with `args`, or its outcome label. */
export function judge(
  answer: Answer,
  args: unknown,
  secrets: readonly string[],
): { outcome: string; problem?: { kind: FindingKind; detail: string } } {
  const cut = answer.raw.slice(0, 300);
  for (const secret of secrets) {
    if (answer.raw.includes(secret)) return { outcome: "leak", problem: { kind: "leak", detail: cut } };
  }
  if (answer.status === 413 || answer.status === 503) {
    const error = isObject(answer.message?.error) ? answer.message.error : undefined;
    const expected = answer.status === 413 ? "payload_too_large" : "overloaded";
    if (error?.code !== expected || typeof error.message !== "string")
      return { outcome: `http ${answer.status}`, problem: { kind: "shape", detail: cut } };
    return { outcome: `http ${answer.status}` };
  }
  if (answer.status !== 200) {
    const kind = answer.status === 0 ? "crash" : "shape";
    return { outcome: `http ${answer.status}`, problem: { kind, detail: cut } };
  }
  const message = answer.message;
  if (message?.jsonrpc !== "2.0") return { outcome: "not json-rpc", problem: { kind: "shape", detail: cut } };
  if (message.error !== undefined) {
    const error = isObject(message.error) ? message.error : {};
    const outcome = `jsonrpc ${String(error.code)}`;
    // Arguments that are not an object break the protocol's own schema: a protocol error.
    if (!isObject(args) && error.code === JSON_RPC_INVALID_PARAMS && typeof error.message === "string")
      return { outcome };
    return { outcome, problem: { kind: "shape", detail: cut } };
  }
  const result = isObject(message.result) ? message.result : undefined;
  const content = Array.isArray(result?.content) ? (result.content as unknown[]) : [];
  const first = content[0];
  if (!isObject(first) || first.type !== "text" || typeof first.text !== "string" || first.text === "")
    return { outcome: "no text", problem: { kind: "shape", detail: cut } };
  if (result?.isError !== true) return { outcome: "ok" };
  let payload: unknown;
  try {
    payload = JSON.parse(first.text);
  } catch {
    return { outcome: "error text not json", problem: { kind: "shape", detail: cut } };
  }
  const error = isObject(payload) && isObject(payload.error) ? payload.error : undefined;
  const code = error?.code;
  if (
    typeof code !== "string" ||
    !(ERROR_CODES as readonly string[]).includes(code) ||
    typeof error?.message !== "string" ||
    error.message === ""
  ) {
    return { outcome: "bad error payload", problem: { kind: "shape", detail: cut } };
  }
  if (code === "internal_error") return { outcome: code, problem: { kind: "internal_error", detail: cut } };
  return { outcome: code };
}

/** Runs the cases of every tool on one transport against a fresh server. */
export async function fuzz(options: FuzzOptions): Promise<FuzzReport> {
  const { world, transport } = options;
  const marker = `EVIDENT_FUZZ=${randomUUID()}`;
  const nodeOptions =
    options.measureLive === true ? `${options.nodeOptions ?? ""} --expose-gc`.trim() : options.nodeOptions;
  const server = serverCommand(options.compiled === true);
  const connection =
    transport === "stdio"
      ? new StdioConnection(world, server, marker, nodeOptions)
      : new HttpConnection(world, server, marker, nodeOptions);
  const started = performance.now();
  const findings: Finding[] = [];
  const outcomes: Record<string, number> = {};
  const secrets = [
    world.token,
    ...["TAVILY_API_KEY", "BRAVE_API_KEY", "JINA_API_KEY"].map((name) => world.env[name] as string),
  ];
  let crashed = false;
  void connection.exited.then(() => {
    crashed = true;
  });
  await connection.start();
  const listed = await connection.request(1, "tools/list", {}, AbortSignal.timeout(60_000));
  const schemas = new Map<string, JsonSchema>();
  for (const tool of ((listed?.message?.result as { tools?: unknown[] } | undefined)?.tools ?? []) as Array<{
    name: string;
    inputSchema: JsonSchema;
  }>) {
    schemas.set(tool.name, tool.inputSchema);
  }
  const pid = connection.child.pid;
  const liveStart = options.measureLive === true ? await connection.liveMemory() : undefined;
  const rssStart = rssOf(pid);
  let rssPeak = rssStart;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssOf(pid));
  }, 500);

  const queue: Array<{ tool: string; index: number }> = [];
  const first = options.first ?? 0;
  for (let index = first; index < first + options.cases; index++)
    for (const tool of options.tools) queue.push({ tool, index });
  let nextId = 10;
  let slowest = { ms: 0, tool: "", index: -1 };
  let done = 0;
  // Halfway, new cases wait until nothing is in flight and the live memory has been read.
  const halfway = Math.floor(queue.length / 2);
  let liveHalf: LiveMemory | undefined;
  let inFlight = 0;
  let pause: Promise<void> | undefined;
  let drained: (() => void) | undefined;
  const worker = async () => {
    for (;;) {
      if (options.measureLive === true && queue.length <= halfway && liveHalf === undefined) {
        pause ??= new Promise<void>((resolve) => {
          drained = resolve;
        }).then(async () => {
          liveHalf = (await connection.liveMemory()) ?? { heapUsed: Number.NaN, external: Number.NaN };
        });
        if (inFlight === 0) drained?.();
        await pause;
      }
      const item = queue.shift();
      if (item === undefined || crashed) break;
      inFlight++;
      const { tool, index } = item;
      const schema = schemas.get(tool);
      if (schema === undefined) throw new Error(`the server does not list ${tool}`);
      const args = fuzzArguments(tool, schema, options.seed, index, {
        site: world.site,
        loopbackPort: world.canaryPort,
      });
      const record = (kind: FindingKind, detail: string) =>
        findings.push({
          kind,
          transport,
          tool,
          index,
          detail,
          args: JSON.stringify(args)?.slice(0, 300) ?? "",
        });
      const id = nextId++;
      const sent = performance.now();
      const answer = await connection.request(
        id,
        "tools/call",
        { name: tool, arguments: args },
        AbortSignal.timeout(options.hangMs),
      );
      const ms = performance.now() - sent;
      if (ms > slowest.ms) slowest = { ms, tool, index };
      if (answer === undefined) {
        if (crashed) record("crash", `the server exited: ${connection.stderr.slice(-500)}`);
        else record("hang", `no answer within ${options.hangMs} ms`);
        outcomes[crashed ? "crash" : "hang"] = (outcomes[crashed ? "crash" : "hang"] ?? 0) + 1;
      } else {
        const { outcome, problem } = judge(answer, args, secrets);
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
        if (problem !== undefined) record(problem.kind, problem.detail);
      }
      done += 1;
      inFlight--;
      if (inFlight === 0) drained?.();
      options.onCase?.(done);
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    clearInterval(sampler);
  }
  const rssEnd = rssOf(pid);
  rssPeak = Math.max(rssPeak, rssEnd);
  const liveEnd = options.measureLive === true && !crashed ? await connection.liveMemory() : undefined;
  if (crashed) {
    findings.push({
      kind: "crash",
      transport,
      tool: "-",
      index: -1,
      detail: `the server exited: ${connection.stderr.slice(-500)}`,
      args: "",
    });
  }
  if (world.hits.canary > 0) {
    findings.push({
      kind: "guard",
      transport,
      tool: "-",
      index: -1,
      detail: "the canary was reached",
      args: "",
    });
  }
  await connection.stop();
  const exitCode = await connection.exited;
  // Children that outlive their parent get a moment to notice it is gone (bounded, not a sleep
  // standing in for an event: there is no event for a process we do not own ending).
  let leftover = markedProcesses(marker);
  for (let i = 0; i < 50 && leftover.length > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    leftover = markedProcesses(marker);
  }
  return {
    transport,
    calls: done,
    findings,
    outcomes,
    rss: { start: rssStart, end: rssEnd, peak: rssPeak },
    ...(options.measureLive === true
      ? {
          live: {
            start: liveStart,
            half: liveHalf !== undefined && Number.isNaN(liveHalf.heapUsed) ? undefined : liveHalf,
            end: liveEnd,
          },
        }
      : {}),
    leftover,
    exitCode,
    seconds: (performance.now() - started) / 1000,
    slowest,
  };
}
