/**
 * Starting children through a small long-lived process (`launcher-main.ts`) instead of from
 * this one, whose memory grows with the snapshots it keeps: a fork copies the page tables of the
 * process that forks, so a start from here costs more the more this process holds.
 *
 * A small process forks cheaply, and a launched start costs an IPC round trip more, so children
 * are started directly until this process's resident memory passes LAUNCHER_RSS_THRESHOLD_BYTES
 * (a one-shot CLI run never gets there); then one launcher per process is started, and used once
 * it is ready. A long-lived server (`evident mcp`) starts it at once with `start()`.
 * `Launcher.spawn` returns a child with the parts of a ChildProcess that `runOwnedProcess` uses
 * (pid, stdout, stderr, kill, exit state, and `spawn`/`error`/`close` events with the same
 * meaning), whose pipes are the child's own, handed over by the launcher: its output never
 * passes through another process. The launcher kills and reaps what it started when this
 * process goes away. Where it cannot work (Bun, Windows, a launcher that cannot hand pipes
 * over, or one that fails to start) children are started directly, as before.
 */
import { type ChildProcess, fork, spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { LAUNCHER_RSS_THRESHOLD_BYTES, PROCESS_CLOSE_TIMEOUT_MS } from "../core/limits.js";

/** What `runOwnedProcess` needs of a child. */
export interface OwnedChild extends EventEmitter {
  readonly pid?: number | undefined;
  /** Present when the child was started with `input` (see SpawnOptions). */
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  kill(signal?: NodeJS.Signals): boolean;
  /** Whether the child (its process and pipes) keeps this process's event loop alive. */
  ref(): void;
  unref(): void;
}

export interface SpawnOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Give the child a stdin pipe (a ripgrep that reads its pattern from it); none by default. */
  readonly input?: boolean;
}

export type Spawner = (command: string, args: readonly string[], options: SpawnOptions) => OwnedChild;

/** Starts the child from this process (the default, and the fallback). */
export const directSpawn: Spawner = (command, args, options) => {
  const child = spawn(command, [...args], {
    cwd: options.cwd,
    env: options.env,
    shell: false,
    stdio: [options.input === true ? "pipe" : "ignore", "pipe", "pipe"],
    windowsHide: true,
  });
  // A ChildProcess's ref() covers its process handle only; its pipes hold the event loop too.
  const setRef = (on: boolean) => {
    for (const stream of [child.stdin, child.stdout, child.stderr]) {
      const socket = stream as Partial<Socket> | null;
      if (on) socket?.ref?.();
      else socket?.unref?.();
    }
  };
  const refProcess = child.ref.bind(child);
  const unrefProcess = child.unref.bind(child);
  return Object.assign(child, {
    ref: () => {
      refProcess();
      setRef(true);
    },
    unref: () => {
      unrefProcess();
      setRef(false);
    },
  }) as ChildProcess & OwnedChild;
};

type LauncherMessage =
  | { type: "ready"; id?: undefined }
  | { type: "stdin"; id: number }
  | { type: "stdout"; id: number; pid: number }
  | { type: "stderr"; id: number }
  | { type: "exit"; id: number; code: number | null; signal: NodeJS.Signals | null }
  | { type: "error"; id: number; code: string }
  | { type: "unsupported"; id: number };

/** The launcher script next to this module: compiled JavaScript, or TypeScript under a loader. */
function launcherPath(): string {
  const self = fileURLToPath(import.meta.url);
  return self.replace(/launcher\.(ts|js)$/, "launcher-main.$1");
}

/** Starts children for its owner, directly or through one launcher process (see `sharedLauncher`). */
export class Launcher {
  #process: ChildProcess | undefined;
  #ready = false;
  #disabled: boolean;
  #next = 1;
  /**
   * Children still running, each with the launcher that started it and whether it keeps this
   * process alive (a ripgrep waiting for its pattern does not).
   */
  readonly #children = new Map<
    number,
    { readonly child: LaunchedChild; readonly launcher: ChildProcess; referenced: boolean }
  >();

  readonly #script: string;

  /** `script`: the launcher's entry point (tests); by default the one next to this module. */
  constructor(options: { script?: string } = {}) {
    this.#script = options.script ?? launcherPath();
    this.#disabled = process.versions.bun !== undefined || process.platform === "win32";
  }

  readonly spawn: Spawner = (command, args, options) => {
    if (this.#disabled) return directSpawn(command, args, options);
    if (!this.#ready) {
      // Started once this process is big enough to need it; until it is ready, start directly.
      if (this.#process === undefined && process.memoryUsage.rss() > LAUNCHER_RSS_THRESHOLD_BYTES)
        this.#start();
      return directSpawn(command, args, options);
    }
    const launcher = this.#process;
    if (launcher === undefined) return directSpawn(command, args, options);
    const id = this.#next++;
    const child = new LaunchedChild(
      (signal) => this.#kill(id, child, launcher, signal),
      (on) => this.#reference(id, on),
      options.input === true,
    );
    this.#children.set(id, { child, launcher, referenced: true });
    // Held (and the launcher kept referenced) until the child has closed, not merely exited: its
    // pipes may still be on their way, and nothing else would keep this process waiting for them.
    child.once("close", () => this.#settle(id));
    // While a child is pending the launcher must keep this process alive; idle, it must not.
    this.#updateRef(launcher);
    const request = { type: "spawn", id, command, args, cwd: options.cwd, env: options.env };
    launcher.send(options.input === true ? { ...request, input: true } : request);
    return child;
  };

  /**
   * Stops the launcher (it kills anything it still runs) and resolves once it has exited, so a
   * process that awaits this before exiting leaves nothing behind; one that has not exited
   * within PROCESS_CLOSE_TIMEOUT_MS is killed. A later start begins again.
   */
  close(): Promise<void> {
    const launcher = this.#process;
    this.#process = undefined;
    this.#ready = false;
    if (launcher === undefined || launcher.exitCode !== null || launcher.signalCode !== null) {
      return Promise.resolve();
    }
    // Referenced while we wait: an idle launcher is unreferenced, and an awaited exit that
    // nothing keeps the event loop alive for would never arrive.
    launcher.ref();
    const exited = new Promise<void>((resolve) => {
      const timer = setTimeout(() => launcher.kill("SIGKILL"), PROCESS_CLOSE_TIMEOUT_MS);
      launcher.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
    });
    if (launcher.connected) launcher.disconnect();
    else launcher.kill("SIGKILL");
    return exited;
  }

  /** Starts the launcher now (tests; a process that knows it will grow). */
  start(): Promise<void> {
    if (this.#disabled) return Promise.resolve();
    const launcher = this.#process ?? this.#start();
    if (launcher === undefined || this.#ready) return Promise.resolve();
    // Waiting for it must keep this process alive, which an idle launcher never does.
    launcher.ref();
    launcher.channel?.ref();
    return new Promise((resolve) => {
      const done = () => {
        launcher.off("message", onMessage);
        this.#updateRef(launcher);
        resolve();
      };
      const onMessage = (message: LauncherMessage) => {
        if (message.type === "ready") done();
      };
      launcher.on("message", onMessage);
      launcher.once("exit", done);
    });
  }

  get ready(): boolean {
    return this.#ready;
  }

  /** The launcher's own pid while it runs (diagnostics, process-table checks). */
  get pid(): number | undefined {
    return this.#process?.pid;
  }

  #start(): ChildProcess | undefined {
    let launcher: ChildProcess;
    try {
      launcher = fork(this.#script, [], {
        // stdout ignored: this process's stdout may be an MCP channel.
        stdio: ["ignore", "ignore", "inherit", "ipc"],
        serialization: "json",
        execArgv: launcherExecArgv(process.execArgv),
      });
    } catch {
      this.#disabled = true;
      return undefined;
    }
    launcher.on("message", (message: LauncherMessage, handle?: Socket) => this.#receive(message, handle));
    // `on`, not `once`: a send to a launcher that has just died reports an error each time.
    launcher.on("error", () => this.#lost(launcher));
    // Its channel closing is the first sign of its end (the exit may be reported later).
    launcher.once("disconnect", () => this.#lost(launcher));
    launcher.once("exit", () => this.#lost(launcher));
    this.#idle(launcher);
    this.#process = launcher;
    return launcher;
  }

  #receive(message: LauncherMessage, handle: Socket | undefined): void {
    if (message.type === "ready") {
      this.#ready = true;
      return;
    }
    const child = this.#children.get(message.id)?.child;
    if (child === undefined) {
      handle?.destroy();
      return;
    }
    switch (message.type) {
      case "stdin":
        if (handle === undefined) child.failed("ELAUNCHER");
        else child.attachStdin(handle);
        break;
      case "stdout":
      case "stderr":
        if (handle === undefined) {
          // A pipe that did not come with its message: the output cannot be read. Loudly.
          if (message.type === "stdout") this.#killPid(message.pid);
          child.failed("ELAUNCHER");
        } else if (message.type === "stdout") child.attachStdout(handle, message.pid);
        else child.attachStderr(handle);
        break;
      case "exit":
        if (child.started) child.exited(message.code, message.signal);
        // Its pipes should be here first; wait for them a while, then give up loudly.
        else child.exitedBeforeStart(message.code, message.signal, PROCESS_CLOSE_TIMEOUT_MS);
        break;
      case "error":
        child.failed(message.code);
        break;
      case "unsupported":
        // This runtime cannot hand pipes over: start children directly from now on.
        this.#disabled = true;
        void this.close();
        child.failed("ELAUNCHER");
        break;
    }
  }

  #killPid(pid: number | undefined): void {
    if (pid === undefined) return;
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }

  #settle(id: number): void {
    const entry = this.#children.get(id);
    this.#children.delete(id);
    if (entry !== undefined) this.#updateRef(entry.launcher);
  }

  #reference(id: number, on: boolean): void {
    const entry = this.#children.get(id);
    if (entry === undefined) return;
    entry.referenced = on;
    this.#updateRef(entry.launcher);
  }

  /** Referenced while one of its children keeps this process alive; idle otherwise. */
  #updateRef(launcher: ChildProcess): void {
    for (const entry of this.#children.values()) {
      if (entry.launcher === launcher && entry.referenced) {
        launcher.ref();
        launcher.channel?.ref();
        return;
      }
    }
    this.#idle(launcher);
  }

  #idle(launcher: ChildProcess): void {
    launcher.unref();
    launcher.channel?.unref();
  }

  #kill(id: number, child: LaunchedChild, launcher: ChildProcess, signal: NodeJS.Signals): void {
    if (launcher.connected && this.#children.has(id)) launcher.send({ type: "kill", id, signal });
    else if (child.pid !== undefined) {
      try {
        process.kill(child.pid, signal);
      } catch {
        // Already gone.
      }
    }
  }

  /** The launcher died: its children are orphans now; end them here and report them killed. */
  #lost(launcher: ChildProcess): void {
    if (this.#process === launcher) {
      // One that never got ready cannot run here (its script missing from a bundle, say): start
      // children directly from now on rather than trying again at every start.
      if (!this.#ready) this.#disabled = true;
      this.#process = undefined;
      this.#ready = false;
    }
    for (const { child, launcher: owner } of [...this.#children.values()]) {
      if (owner !== launcher) continue;
      this.#killPid(child.pid);
      // Started (both pipes here): it was killed. Otherwise it never started as far as the
      // caller knows, and whatever pipe did arrive is let go.
      if (child.started) child.exited(null, "SIGKILL");
      else child.failed("ELAUNCHER");
    }
  }
}

/**
 * A child started by the launcher. `spawn` is emitted once both pipes have arrived; `close`
 * once it has exited and both pipes have ended, as for a ChildProcess.
 */
class LaunchedChild extends EventEmitter implements OwnedChild {
  pid: number | undefined;
  stdin: Socket | null = null;
  stdout: Socket | null = null;
  stderr: Socket | null = null;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  #exited = false;
  #openPipes = 2;
  #closed = false;
  #earlyExit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #earlyExitTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sendKill: (signal: NodeJS.Signals) => void,
    private readonly setReferenced: (on: boolean) => void,
    private readonly input: boolean,
  ) {
    super();
  }

  attachStdin(socket: Socket): void {
    this.stdin = socket;
    // Its errors (the child gone before its input was written) reach whoever writes it.
    socket.on("error", () => {});
  }

  attachStdout(socket: Socket, pid: number): void {
    this.pid = pid;
    this.stdout = socket;
    this.#watch(socket);
  }

  attachStderr(socket: Socket): void {
    this.stderr = socket;
    this.#watch(socket);
    if (this.input && this.stdin === null) {
      // Its input pipe did not come first: nothing could ever tell it what to search.
      this.sendKill("SIGKILL");
      this.failed("ELAUNCHER");
      return;
    }
    this.emit("spawn");
    const early = this.#earlyExit;
    if (early !== undefined) {
      clearTimeout(this.#earlyExitTimer);
      this.exited(early.code, early.signal);
    }
  }

  /** Both pipes have arrived and `spawn` was emitted. */
  get started(): boolean {
    return this.stderr !== null;
  }

  /** The exit was reported before the pipes: kept until they arrive, or failed after `waitMs`. */
  exitedBeforeStart(code: number | null, signal: NodeJS.Signals | null, waitMs: number): void {
    this.#earlyExit = { code, signal };
    this.#earlyExitTimer = setTimeout(() => {
      if (!this.started) this.failed("ELAUNCHER");
    }, waitMs);
  }

  exited(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#exited) return;
    this.#exited = true;
    this.exitCode = code;
    this.signalCode = signal;
    this.emit("exit", code, signal);
    this.#maybeClose();
  }

  failed(code: string): void {
    if (this.#closed) return;
    clearTimeout(this.#earlyExitTimer);
    const error = Object.assign(new Error(`could not start the process (${code})`), { code });
    this.stdin?.destroy();
    this.stdout?.destroy();
    if (this.listenerCount("error") > 0) this.emit("error", error);
    this.#openPipes = 0;
    this.#exited = true;
    this.#maybeClose();
  }

  kill(signal: NodeJS.Signals = "SIGTERM"): boolean {
    if (this.#exited) return false;
    this.sendKill(signal);
    return true;
  }

  ref(): void {
    this.setReferenced(true);
    for (const socket of [this.stdin, this.stdout, this.stderr]) socket?.ref();
  }

  unref(): void {
    this.setReferenced(false);
    for (const socket of [this.stdin, this.stdout, this.stderr]) socket?.unref();
  }

  /**
   * A pipe's end counts towards `close`. Its errors reach whoever reads it; one that nobody is
   * reading at that moment (a pipe being let go) must not bring this process down.
   */
  #watch(socket: Socket): void {
    socket.once("close", () => this.#pipeClosed());
    socket.on("error", () => {});
  }

  #pipeClosed(): void {
    this.#openPipes--;
    this.#maybeClose();
  }

  #maybeClose(): void {
    if (this.#closed || !this.#exited || this.#openPipes > 0) return;
    this.#closed = true;
    this.stdin?.destroy();
    this.emit("close", this.exitCode, this.signalCode);
  }
}

/** The process's launcher, shared by every code_search service in it. */
export const sharedLauncher = new Launcher();

/** Inspector and profiler flags; `--inspect=...` and the like carry their value after `=`. */
const TOOLING_FLAG = /^--(inspect|debug|cpu-prof|heap-prof|prof)/;
/** Those of them that may take their value as the next argument instead. */
const TOOLING_FLAG_WITH_VALUE = new Set([
  "--cpu-prof-dir",
  "--cpu-prof-name",
  "--cpu-prof-interval",
  "--heap-prof-dir",
  "--heap-prof-name",
  "--heap-prof-interval",
  "--inspect-port",
  "--debug-port",
  "--inspect-publish-uid",
]);

/**
 * The Node flags the launcher runs with: this process's own, since a loader it runs under (tests
 * run TypeScript) is needed there too, but no inspector or profiler (a second inspector would
 * fight over the port). A flag's separate value goes with it: `--cpu-prof-interval 50` left as
 * `50` would be read as the script to run, and the launcher would never start.
 */
export function launcherExecArgv(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i] as string;
    if (!TOOLING_FLAG.test(arg)) kept.push(arg);
    else if (TOOLING_FLAG_WITH_VALUE.has(arg)) i++;
  }
  return kept;
}
