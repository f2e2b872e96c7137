/**
 * The launcher process: it starts ripgrep on behalf of a code_search service and hands the
 * child's pipes back over the IPC channel, so the service reads (and, for a ripgrep that waits
 * for its pattern, writes) them directly.
 *
 * Why a process of its own: starting a child costs time in proportion to the memory of the
 * process that starts it (fork copies its page tables). A service that keeps snapshots grows,
 * and measured here every ripgrep start went from 0.8 ms to 5 ms at +128 MB and 14 ms at
 * +256 MB. This process stays small, so its starts stay cheap.
 *
 * It imports nothing but Node built-ins and the limits module, never reads the pipes it hands
 * over (bytes read here would be lost to the service), and kills and reaps every child it
 * started when the service goes away.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";
import { PROCESS_CLOSE_TIMEOUT_MS } from "../core/limits.js";

interface SpawnRequest {
  readonly type: "spawn";
  readonly id: number;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Whether the child reads a stdin pipe, handed over like its output pipes. */
  readonly input?: boolean;
}

interface KillRequest {
  readonly type: "kill";
  readonly id: number;
  readonly signal: NodeJS.Signals;
}

const children = new Map<number, ChildProcess>();

function send(message: object, handle?: Socket): void {
  if (process.connected) process.send?.(message, handle);
}

/**
 * Node starts reading a child's pipe as soon as it creates it; stop that before any I/O can
 * happen, so every byte stays in the pipe for the service. False when the runtime has no such
 * handle (then the service starts ripgrep itself).
 */
function stopReading(stream: unknown): boolean {
  const handle = (stream as { _handle?: { readStop?: () => unknown } } | null)?._handle;
  if (typeof handle?.readStop !== "function") return false;
  handle.readStop();
  return true;
}

function start(request: SpawnRequest): void {
  let child: ChildProcess;
  try {
    child = spawn(request.command, [...request.args], {
      cwd: request.cwd,
      env: request.env,
      shell: false,
      stdio: [request.input === true ? "pipe" : "ignore", "pipe", "pipe"],
      windowsHide: true,
    });
  } catch (error) {
    send({ type: "error", id: request.id, code: (error as NodeJS.ErrnoException).code ?? "EINVAL" });
    return;
  }
  const handOver = stopReading(child.stdout) && stopReading(child.stderr);
  children.set(request.id, child);
  child.once("error", (error: NodeJS.ErrnoException) => {
    children.delete(request.id);
    send({ type: "error", id: request.id, code: error.code ?? "unknown" });
  });
  child.once("spawn", () => {
    if (!handOver) {
      child.kill("SIGKILL");
      send({ type: "unsupported", id: request.id });
      return;
    }
    // Handing a pipe over closes this process's end of it: the child sees the end of its input
    // when the service ends it, and nothing here can write to it.
    if (child.stdin !== null) send({ type: "stdin", id: request.id }, child.stdin as Socket);
    send({ type: "stdout", id: request.id, pid: child.pid }, child.stdout as Socket);
    send({ type: "stderr", id: request.id }, child.stderr as Socket);
  });
  child.once("exit", (code, signal) => {
    children.delete(request.id);
    send({ type: "exit", id: request.id, code, signal });
  });
}

process.on("message", (message: SpawnRequest | KillRequest) => {
  if (message.type === "spawn") start(message);
  else if (message.type === "kill") children.get(message.id)?.kill(message.signal);
});

send({ type: "ready" });

// The service is gone (closed, exited or crashed): nothing may outlive it. The children are
// killed and then reaped here: orphaned, they would be left to whatever adopts them, and where
// that does not reap (some containers' first process), each would stay a zombie. Once they are
// reaped nothing keeps this process alive and it ends; the timer is a backstop.
process.once("disconnect", () => {
  for (const child of children.values()) child.kill("SIGKILL");
  setTimeout(() => process.exit(0), PROCESS_CLOSE_TIMEOUT_MS).unref();
});
