/**
 * Process hygiene, long form (not a test; the short form is test/code/process-hygiene.test.ts):
 * the built `evident mcp` serves code_search on a large generated tree while a client starts
 * calls several at a time and cancels each at a random moment, over MCP stdio (a cancel notice)
 * and over Streamable HTTP (the client drops its request). It reports, per transport: outcomes,
 * the most ripgreps alive under the server at once, ripgreps alive right after the last call
 * ended (once the server has answered a ping), how long until none was left, and how many calls
 * had a ripgrep start after their cancel had been sent (each call excludes a unique name, so a
 * ripgrep's command line names its call; the process table is sampled every 10 ms).
 *
 * Usage: npm run build && node --import tsx bench/hardening/process-hygiene.ts
 *          [--files 200000] [--calls 1000] [--http-calls 100] [--parallel 10] [--seed 1] [--cli PATH]
 * The tree is generated once into bench/.corpora/hygiene-<files>.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { seeded } from "../../test/fixtures/seeded.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const FILES = arg("--files", 200_000);
const CALLS = arg("--calls", 1_000);
const HTTP_CALLS = arg("--http-calls", 100);
const PARALLEL = arg("--parallel", 10);
const random = seeded(arg("--seed", 1));
/** `--cli PATH`: another build's entry point (an older commit's, to compare). */
const CLI = process.argv.includes("--cli")
  ? (process.argv[process.argv.indexOf("--cli") + 1] as string)
  : `${repo}dist/adapters/cli/main.js`;
const WORDS = ["alpha", "beta", "needle", "gamma", "delta", "omega", "function", "return", "const", "import"];

function tree(files: number): string {
  const root = `${repo}bench/.corpora/hygiene-${files}`;
  if (existsSync(root)) return root;
  const building = `${root}.partial`;
  const local = seeded(7);
  for (let i = 0; i < files; i++) {
    const dir = `${building}/d${Math.floor(i / 1000)}/e${Math.floor(i / 100) % 10}`;
    if (i % 100 === 0) mkdirSync(dir, { recursive: true });
    const lines = Array.from({ length: 20 }, () =>
      Array.from({ length: 8 }, () => WORDS[Math.floor(local() * WORDS.length)]).join(" "),
    );
    writeFileSync(`${dir}/f${i}.txt`, lines.join("\n"));
  }
  renameSync(building, root);
  return root;
}

/** Wall-clock milliseconds at boot, to place a process's start (clock ticks since boot) in time. */
const BOOT_MS = Date.now() - Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]) * 1000;
const TICKS_PER_S = 100;

interface Ripgrep {
  readonly cmdline: string;
  /** When the kernel started it (10 ms resolution), whenever the sampler saw it. */
  readonly startedMs: number;
}

/** ripgrep children of `pid`, with their command lines and start times. */
function ripgreps(pid: number): Map<number, Ripgrep> {
  const found = new Map<number, Ripgrep>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [, rest = ""] = stat.split(") ");
      const fields = rest.split(" ");
      const [state, parent] = fields;
      if (Number(parent) !== pid || state === "Z") continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      // Field 22 of stat, the 20th after the command: start time in clock ticks since boot.
      const startedMs = BOOT_MS + (Number(fields[19]) / TICKS_PER_S) * 1000;
      if (cmdline.includes("rg")) found.set(Number(entry), { cmdline, startedMs });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

interface Tracker {
  readonly cancelledAt: Map<string, number>;
  readonly startedAfterCancel: Set<string>;
  readonly startedLongAfterCancel: Set<string>;
  most: number;
  stop(): void;
}

/**
 * Samples the server's ripgreps every 10 ms; a ripgrep naming a cancelled call counts against it
 * when the kernel started it after the cancel was sent (by its own start time, so a sampler that
 * lags does not count a ripgrep started earlier).
 */
function track(server: ChildProcess): Tracker {
  const seen = new Set<number>();
  const tracker: Tracker = {
    cancelledAt: new Map(),
    startedAfterCancel: new Set(),
    startedLongAfterCancel: new Set(),
    most: 0,
    stop: () => clearInterval(timer),
  };
  const timer = setInterval(() => {
    const alive = ripgreps(server.pid as number);
    tracker.most = Math.max(tracker.most, alive.size);
    for (const [pid, { cmdline, startedMs }] of alive) {
      if (seen.has(pid)) continue;
      seen.add(pid);
      const token = /zq(\d+)x/.exec(cmdline)?.[1];
      const cancelled = token === undefined ? undefined : tracker.cancelledAt.get(token);
      if (token === undefined || cancelled === undefined) continue;
      // Beyond the two clocks' resolution (10 ms each).
      if (startedMs - cancelled > 30) tracker.startedAfterCancel.add(token);
      if (startedMs - cancelled > 100) tracker.startedLongAfterCancel.add(token);
    }
  }, 10);
  return tracker;
}

function input(i: number): Record<string, unknown> {
  return {
    pattern: ["needle", "alpha.*beta", "gamma", "omega\\s+needle", "import", "ret(urn)?"][i % 6],
    // Names the call in the command line of every ripgrep it starts, and excludes nothing.
    exclude: `zq${i}x`,
    ...(random() < 0.5 ? { glob: `d${Math.floor(random() * (FILES / 1000))}/**` } : {}),
    ...(random() < 0.5 ? { mode: "summary" } : {}),
  };
}

async function drain(server: ChildProcess): Promise<{ rightAfter: number; drainedMs: number }> {
  const rightAfter = ripgreps(server.pid as number).size;
  const start = Date.now();
  while (ripgreps(server.pid as number).size > 0 && Date.now() - start < 120_000) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { rightAfter, drainedMs: Date.now() - start };
}

async function stdioRun(root: string) {
  const server = spawn(process.execPath, [CLI, "mcp"], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
  let errors = 0;
  server.stderr?.on("data", (chunk: Buffer) => {
    errors += (chunk.toString().match(/evident error/g) ?? []).length;
  });
  const waiters = new Map<number, (message: { result?: { isError?: boolean } }) => void>();
  createInterface({ input: server.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    const message = JSON.parse(line);
    waiters.get(message.id)?.(message);
  });
  const send = (message: unknown) => server.stdin?.write(`${JSON.stringify(message)}\n`);
  const request = (id: number, method: string, params: unknown) =>
    new Promise<{ result?: { isError?: boolean } }>((resolve) => {
      waiters.set(id, resolve);
      send({ jsonrpc: "2.0", id, method, params });
    });
  await request(0, "initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "hygiene", version: "1" },
  });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const tracker = track(server);
  const outcomes = { answered: 0, toolErrors: 0, cancelled: 0 };
  let next = 0;
  const started = Date.now();
  const one = async () => {
    const i = next++;
    const id = i + 1;
    const answer = request(id, "tools/call", { name: "code_search", arguments: input(i) });
    let timer: NodeJS.Timeout | undefined;
    const cancel = new Promise<"cancel">((resolve) => {
      timer = setTimeout(() => resolve("cancel"), 50 + random() * 550);
    });
    const first = await Promise.race([answer, cancel]);
    clearTimeout(timer);
    if (first === "cancel") {
      tracker.cancelledAt.set(String(i), Date.now());
      send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "bench" } });
      waiters.delete(id);
      outcomes.cancelled++;
    } else if (first.result?.isError === true) outcomes.toolErrors++;
    else outcomes.answered++;
  };
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < CALLS) await one();
    }),
  );
  await request(CALLS + 1, "ping", {});
  const elapsed = Date.now() - started;
  const { rightAfter, drainedMs } = await drain(server);
  tracker.stop();
  server.stdin?.end();
  await new Promise((resolve) => server.once("exit", resolve));
  return { transport: "stdio", calls: CALLS, elapsed, ...outcomes, errors, tracker, rightAfter, drainedMs };
}

async function httpRun(root: string) {
  const token = "h".repeat(40);
  const port = 20_000 + Math.floor(random() * 20_000);
  const server = spawn(process.execPath, [CLI, "mcp", "--transport", "http"], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, EVIDENT_AUTH_TOKEN: token, EVIDENT_HTTP_PORT: String(port) },
  });
  let errors = 0;
  const listening = new Promise<void>((resolve) => {
    server.stderr?.on("data", (chunk: Buffer) => {
      const text = chunk.toString();
      if (text.includes("listening")) resolve();
      errors += (text.match(/evident error/g) ?? []).length;
    });
  });
  await listening;
  const url = `http://127.0.0.1:${port}/mcp`;
  const headers = {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
  };
  const tracker = track(server);
  const outcomes = { answered: 0, toolErrors: 0, cancelled: 0 };
  let next = 0;
  const started = Date.now();
  const one = async () => {
    const i = next++;
    const controller = new AbortController();
    const timer = setTimeout(
      () => {
        tracker.cancelledAt.set(String(i), Date.now());
        controller.abort();
      },
      50 + random() * 550,
    );
    try {
      const response = await fetch(url, {
        method: "POST",
        headers,
        signal: controller.signal,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: i + 1,
          method: "tools/call",
          params: { name: "code_search", arguments: input(i) },
        }),
      });
      const text = await response.text();
      if (text.includes('"isError":true')) outcomes.toolErrors++;
      else outcomes.answered++;
    } catch {
      outcomes.cancelled++;
    } finally {
      clearTimeout(timer);
    }
  };
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < HTTP_CALLS) await one();
    }),
  );
  await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
  }).then((r) => r.text());
  const elapsed = Date.now() - started;
  const { rightAfter, drainedMs } = await drain(server);
  tracker.stop();
  server.kill("SIGTERM");
  await new Promise((resolve) => server.once("exit", resolve));
  return {
    transport: "http",
    calls: HTTP_CALLS,
    elapsed,
    ...outcomes,
    errors,
    tracker,
    rightAfter,
    drainedMs,
  };
}

const root = tree(FILES);
for (const run of [stdioRun, httpRun]) {
  const r = await run(root);
  console.log(
    `${r.transport}: ${r.calls} calls, ${PARALLEL} at a time, on ${FILES} files in ${(r.elapsed / 1000).toFixed(1)} s: ` +
      `${r.answered} answered, ${r.toolErrors} tool errors, ${r.cancelled} cancelled; ` +
      `error log lines ${r.errors}; most ripgreps at once ${r.tracker.most}; ` +
      `ripgreps right after the last call ${r.rightAfter}, none left after ${r.drainedMs} ms; ` +
      `calls with a ripgrep started more than 30 ms after their cancel ${r.tracker.startedAfterCancel.size}, ` +
      `more than 100 ms after ${r.tracker.startedLongAfterCancel.size} (of ${r.tracker.cancelledAt.size} cancelled)`,
  );
}
