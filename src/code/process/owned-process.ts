/**
 * Owned subprocesses: a child we start is a child we reap. It is spawned without a shell, its
 * stderr is captured up to a byte bound, and every way out of `runOwnedProcess` (success, early
 * stop, a consumer error, cancellation) waits until the child has exited and its pipes have
 * closed. Termination is SIGTERM, then SIGKILL after PROCESS_KILL_ESCALATION_MS; a child that is
 * still not closed PROCESS_CLOSE_TIMEOUT_MS later is reported as a failure, never ignored.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { basename } from "node:path";
import type { Readable } from "node:stream";
import { abortReason, throwIfAborted } from "../../core/abort.js";
import { EvidentError } from "../../core/errors.js";
import {
  PROCESS_CLOSE_TIMEOUT_MS,
  PROCESS_KILL_ESCALATION_MS,
  PROCESS_STDERR_MAX_BYTES,
} from "../../core/limits.js";
import { countChild } from "../../core/metrics.js";
import type { Slots } from "../../core/slots.js";

export interface OwnedProcessSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The child's environment; without one it inherits evident's own (Node's default). */
  readonly env?: NodeJS.ProcessEnv;
  readonly signal?: AbortSignal;
  /** Observes the child's pid once it runs (process-table checks, diagnostics). */
  readonly onSpawn?: (pid: number) => void;
  /** Give the child a stdin pipe, written by `StartedProcess.run` (see `startOwnedProcess`). */
  readonly input?: boolean;
  /** Wait for one of these before starting, and hold it until the child has closed. */
  readonly slots?: Slots;
}

export interface OwnedProcessOutcome {
  readonly exitCode: number | null;
  readonly exitSignal: NodeJS.Signals | null;
  readonly stderr: string;
  readonly stderrTruncated: boolean;
  /** The consumer asked to stop early and the child was terminated for it. */
  readonly stopped: boolean;
  readonly pid: number;
}

/**
 * What the stdout consumer returns: `done` after reading to the end, `stop` when it has what it
 * needs (a retention bound) and the child should be terminated.
 */
export type ConsumeResult = "done" | "stop";

export async function runOwnedProcess(
  spec: OwnedProcessSpec,
  consume: (stdout: Readable) => Promise<ConsumeResult>,
): Promise<OwnedProcessOutcome> {
  const started = await startOwnedProcess(spec);
  spec.onSpawn?.(started.pid);
  return started.run(consume, spec.signal === undefined ? {} : { signal: spec.signal });
}

/**
 * A started child that has not been run yet (Git tells a failed start apart from a failed run).
 * `run` is called once, and the child is awaited however it ends.
 */
export interface StartedProcess {
  readonly pid: number;
  /**
   * Writes `input` (if given) to the child's stdin and ends it, hands stdout to `consume`, and
   * resolves once the child has closed; cancellation and early stops terminate it.
   */
  run(
    consume: (stdout: Readable) => Promise<ConsumeResult>,
    options?: { readonly input?: string; readonly signal?: AbortSignal },
  ): Promise<OwnedProcessOutcome>;
}

/** A spawned child and what running it needs: its closure, its stderr, and one termination. */
interface Spawned {
  readonly child: ChildProcess;
  readonly name: string;
  readonly pid: number;
  readonly closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly stderr: ReturnType<typeof boundedCollector>;
  readonly terminate: () => Promise<void>;
  /** The termination under way, if one was started. */
  readonly terminating: () => Promise<void> | undefined;
}

/**
 * Starts the child and resolves once it runs. `spec.input` gives it a stdin pipe for `run` to
 * write. Startup errors keep their cause: ENOENT and EACCES are configuration errors. A spec
 * whose signal has aborted (before, or while it waited for a slot) starts nothing.
 */
export async function startOwnedProcess(spec: OwnedProcessSpec): Promise<StartedProcess> {
  const name = basename(spec.command);
  const release = spec.slots === undefined ? undefined : await spec.slots.acquire(spec.signal);
  try {
    // In the same turn as the spawn: a call stopped by now never starts a process.
    throwIfAborted(spec.signal);
  } catch (error) {
    release?.();
    throw error;
  }
  const child = spawn(spec.command, [...spec.args], {
    cwd: spec.cwd,
    ...(spec.env === undefined ? {} : { env: spec.env }),
    shell: false,
    stdio: [spec.input === true ? "pipe" : "ignore", "pipe", "pipe"],
    windowsHide: true,
  });
  // Counted until its closure, which comes even for a child that failed to start.
  countChild(name, 1);
  // Listen for closure before anything can await, so the event cannot be missed.
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("close", (code, signal) => {
      countChild(name, -1);
      release?.();
      resolve({ code, signal });
    });
  });
  const stderr = boundedCollector(PROCESS_STDERR_MAX_BYTES);

  try {
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", () => resolve());
      child.once("error", reject);
    });
  } catch (cause) {
    // Nothing ran, but the pipes still close; wait for that so no handle outlives the call.
    await closed;
    const code = (cause as NodeJS.ErrnoException).code;
    throw new EvidentError(
      code === "ENOENT" || code === "EACCES" ? "configuration_error" : "internal_error",
      `Could not start ${name} (${code ?? "unknown error"}).`,
      { cause },
    );
  }
  child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
  // Writing to a child that has gone fails with EPIPE; its exit status tells the story.
  child.stdin?.on("error", () => {});
  const pid = child.pid ?? -1;
  let terminating: Promise<void> | undefined;
  const terminate = () => {
    terminating ??= terminateChild(child, closed, name);
    return terminating;
  };
  const spawned: Spawned = { child, name, pid, closed, stderr, terminate, terminating: () => terminating };
  let used = false;
  return {
    pid,
    run: (consume, options = {}) => {
      if (used) return Promise.reject(new Error(`${name} (pid ${pid}) was already run`));
      used = true;
      return runSpawned(spawned, consume, options);
    },
  };
}

async function runSpawned(
  spawned: Spawned,
  consume: (stdout: Readable) => Promise<ConsumeResult>,
  options: { readonly input?: string; readonly signal?: AbortSignal },
): Promise<OwnedProcessOutcome> {
  const { child, name, pid, closed, stderr, terminate, terminating } = spawned;
  const { signal, input } = options;
  const onAbort = () => void terminate().catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  // Cancellation may have arrived while the child was starting.
  if (signal?.aborted) onAbort();
  if (input !== undefined) {
    if (child.stdin === null) {
      child.stdout?.destroy();
      await terminate();
      signal?.removeEventListener("abort", onAbort);
      throw new Error(`${name} was started without an input pipe`);
    }
    child.stdin.end(input);
  }

  let result: ConsumeResult;
  try {
    if (child.stdout === null) throw new Error("stdout pipe missing");
    result = await consume(child.stdout);
  } catch (consumerError) {
    child.stdout?.destroy();
    await terminate();
    signal?.removeEventListener("abort", onAbort);
    if (signal?.aborted) throw abortReason(signal);
    throw consumerError;
  }
  if (result === "stop") {
    child.stdout?.destroy();
    await terminate();
  }
  // A termination started by cancellation may have failed to close the child: that surfaces here.
  await terminating();
  const exit = await closed;
  signal?.removeEventListener("abort", onAbort);
  if (signal?.aborted) throw abortReason(signal);
  return {
    exitCode: exit.code,
    exitSignal: exit.signal,
    stderr: stderr.text(),
    stderrTruncated: stderr.truncated(),
    stopped: result === "stop",
    pid,
  };
}

/** SIGTERM, SIGKILL after the escalation delay, failure if the child has not closed in time. */
async function terminateChild(child: ChildProcess, closed: Promise<unknown>, name: string): Promise<void> {
  let done = false;
  void closed.then(() => {
    done = true;
  });
  child.stdout?.destroy();
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  const escalation = setTimeout(() => {
    if (!done && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }, PROCESS_KILL_ESCALATION_MS);
  let timeout: NodeJS.Timeout | undefined;
  const expired = new Promise<"timeout">((resolve) => {
    timeout = setTimeout(() => resolve("timeout"), PROCESS_CLOSE_TIMEOUT_MS);
  });
  try {
    let outcome = await Promise.race([closed.then(() => "closed" as const), expired]);
    // An event loop blocked past the timeout runs its timers before it polls for the child's
    // exit, and a pipe's closure completes a turn later: give the loop those turns before
    // calling the child stuck.
    for (let turn = 0; outcome === "timeout" && turn < 3; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      if (done) outcome = "closed";
    }
    if (outcome === "timeout") {
      throw new EvidentError(
        "internal_error",
        `${name} did not close within ${PROCESS_CLOSE_TIMEOUT_MS} ms after termination.`,
        { details: { pid: child.pid } },
      );
    }
  } finally {
    clearTimeout(escalation);
    clearTimeout(timeout);
  }
}

/** A ChildProcess's own ref()/unref() covers its process handle only; its pipes hold the loop too. */
function boundedCollector(maxBytes: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  return {
    push(chunk: Buffer) {
      const room = maxBytes - kept;
      if (room <= 0) {
        dropped += chunk.length;
        return;
      }
      const piece = chunk.length <= room ? chunk : chunk.subarray(0, room);
      chunks.push(piece);
      kept += piece.length;
      dropped += chunk.length - piece.length;
    },
    text: () => Buffer.concat(chunks).toString("utf8"),
    truncated: () => dropped > 0,
  };
}
