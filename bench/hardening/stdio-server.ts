/**
 * What the memory benchmarks (soak.ts, mix.ts) share: the built `evident mcp` started over stdio
 * with a minimal JSON-RPC client, the `--env NAME=VALUE` settings for its environment, a fixed
 * number of calls in flight, and the server's resident set read from /proc.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** `--env NAME=VALUE`, repeatable: set in the server's environment, not the client's. */
export function serverEnv(argv: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    argv.flatMap((a, i) => {
      const setting = a === "--env" ? argv[i + 1] : undefined;
      const at = setting?.indexOf("=") ?? -1;
      return setting === undefined || at <= 0 ? [] : [[setting.slice(0, at), setting.slice(at + 1)]];
    }),
  );
}

/**
 * `--usage`: the server preloads usage-probe.mjs (measurement only), and `usage(pid)` has it write
 * V8's heap, its spaces, external memory and ArrayBuffers to its stderr at a reading.
 */
export function usageProbe(argv: readonly string[], env: Record<string, string>): (pid: number) => void {
  if (!argv.includes("--usage")) return () => {};
  const probe = `--import=${fileURLToPath(new URL("./usage-probe.mjs", import.meta.url))}`;
  env.NODE_OPTIONS = [env.NODE_OPTIONS, probe].filter(Boolean).join(" ");
  return (pid) => process.kill(pid, "SIGUSR2");
}

/** A process's resident set now (VmRSS), or its highest so far (VmHWM), in MB. */
export function residentMb(pid: number, field: "VmRSS" | "VmHWM" = "VmRSS"): number {
  const match = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? Number.NaN) / 1024;
}

/**
 * Where a resident set lives, from /proc/PID/smaps: the C allocator's main heap (`[heap]`, what
 * glibc keeps after frees), anonymous mappings (V8's heap pages, thread stacks, other arenas)
 * and file-backed pages (the node binary and native modules), in MB.
 */
function residentParts(pid: number): { heap: number; anonymous: number; files: number } {
  const parts = { heap: 0, anonymous: 0, files: 0 };
  let kind: keyof typeof parts = "anonymous";
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (mapping !== null) {
      const name = mapping[2] ?? "";
      kind = name === "[heap]" ? "heap" : name.startsWith("/") ? "files" : "anonymous";
    } else if (line.startsWith("Rss:")) parts[kind] += Number(line.split(/\s+/)[1]) / 1024;
  }
  return parts;
}

/**
 * The resident set by mapping (see `residentParts`), as the reports print it, and the process's
 * threads (a kept reader thread is one of them).
 */
export function residentSplit(pid: number): string {
  const parts = residentParts(pid);
  return (
    `C heap ${parts.heap.toFixed(1)} MB, other anonymous ${parts.anonymous.toFixed(1)} MB, ` +
    `file-backed ${parts.files.toFixed(1)} MB, ${threadCount(pid)} threads`
  );
}

/** The process's threads now (/proc/PID/status). */
export function threadCount(pid: number): number {
  return Number(/Threads:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN);
}

export interface StdioServer<Answer> {
  readonly server: ChildProcess;
  readonly pid: number;
  /** Sends a request and resolves with the message answering it. */
  request(method: string, params: unknown): Promise<Answer>;
  /** Ends the server's input and waits for it to exit. */
  close(): Promise<void>;
}

/** `evident mcp --structured` from `cli`, in `cwd` with exactly `env`, initialized as `client`. */
export async function startStdioServer<Answer>(options: {
  readonly cli: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly client: string;
}): Promise<StdioServer<Answer>> {
  const server = spawn(process.execPath, [options.cli, "mcp", "--structured"], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const waiters = new Map<number, (message: Answer) => void>();
  createInterface({ input: server.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    const message = JSON.parse(line) as Answer & { id?: number };
    if (message.id === undefined) return;
    waiters.get(message.id)?.(message);
    waiters.delete(message.id);
  });
  let nextId = 0;
  const request = (method: string, params: unknown) =>
    new Promise<Answer>((resolve) => {
      const id = ++nextId;
      waiters.set(id, resolve);
      server.stdin?.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  await request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: options.client, version: "1" },
  });
  server.stdin?.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  return {
    server,
    pid: server.pid as number,
    request,
    async close() {
      server.stdin?.end();
      await new Promise((resolve) => server.once("exit", resolve));
    },
  };
}

/**
 * Keeps `parallel` calls of `one` in flight until `done()` reaches `until` (each call counts
 * itself in `done` as it starts).
 */
export async function runCalls(
  parallel: number,
  until: number,
  done: () => number,
  one: () => Promise<void>,
): Promise<void> {
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (done() < until) await one();
    }),
  );
}
