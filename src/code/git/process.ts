/**
 * Git as an owned subprocess that runs nothing but Git. Repositories are untrusted input: a
 * repository's own configuration can name programs (hooks, filter drivers, an fsmonitor, diff
 * drivers, credential helpers, remote transports) that ordinary Git commands would run. Every
 * command here gets overrides, on the command line where they outrank every config file:
 *
 * - no hooks (`core.hooksPath` to an empty place), no fsmonitor, no credential helper, no
 *   askpass, no external diff or textconv (plumbing commands only, `--no-ext-diff`,
 *   `--no-textconv`), no automatic gc or maintenance;
 * - no network at all (`protocol.allow=never`), and no lazy fetch of missing objects
 *   (`--no-lazy-fetch` where Git has it, 2.45 and newer; older Git refuses partial clones
 *   before any object is read, see repository.ts);
 * - no replacement objects (`--no-replace-objects`), so history reads as it was written;
 * - the filter drivers a repository configures are emptied (repository.ts lists them), so
 *   reading the working tree never runs a clean or process filter;
 * - no optional index writes, no prompts, the C locale (stable messages), and the caller's
 *   `GIT_*` environment dropped so it cannot point Git elsewhere.
 */
import type { Readable } from "node:stream";
import { EvidentError } from "../../core/errors.js";
import { findOnPath } from "../../core/executables.js";
import { GIT_NO_LAZY_FETCH_SINCE } from "../../core/limits.js";
import type { Slots } from "../../core/slots.js";
import { type ConsumeResult, type OwnedProcessOutcome, startOwnedProcess } from "../process/owned-process.js";

/** The overrides every Git command gets (before the command name). */
const SAFETY_CONFIG: readonly string[] = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.untrackedCache=false",
  "credential.helper=",
  "core.askPass=",
  "core.sshCommand=false",
  "protocol.allow=never",
  "diff.external=",
  "gc.auto=0",
  "maintenance.auto=false",
  "safe.bareRepository=explicit",
];

/** Environment variables kept from the caller's environment (everything else Git reads is set). */
const KEPT_ENV = ["PATH", "HOME", "XDG_CONFIG_HOME", "SYSTEMROOT", "TMPDIR", "TEMP", "TMP"];

export interface GitVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly text: string;
}

export interface GitOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Observes every Git child started (process-table checks in tests). */
  readonly onSpawn?: ((pid: number) => void) | undefined;
  /** Bounds the processes code_search runs at once (see core/slots.ts). */
  readonly slots?: Slots | undefined;
}

export interface GitRun {
  readonly cwd: string;
  readonly args: readonly string[];
  readonly signal?: AbortSignal | undefined;
  /** Written to Git's stdin, which is then closed. */
  readonly input?: string | undefined;
  /** Extra `-c name=value` overrides (a repository's filter drivers, emptied). */
  readonly config?: readonly string[] | undefined;
}

export interface GitOutput {
  readonly exitCode: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** Runs Git commands safely; one per service, with the executable's version probed once. */
export class Git {
  readonly #options: GitOptions;
  readonly #env: NodeJS.ProcessEnv;
  #version: Promise<GitVersion> | undefined;
  #executable: Promise<string> | undefined;

  constructor(options: GitOptions) {
    this.#options = options;
    this.#env = safeEnvironment(options.env);
  }

  /** The installed Git's version; `configuration_error` when Git cannot be run. */
  version(signal?: AbortSignal): Promise<GitVersion> {
    this.#version ??= this.#probe(signal);
    // A failure is not kept: the operator may install Git meanwhile.
    this.#version.catch(() => {
      this.#version = undefined;
    });
    return this.#version;
  }

  /** Whether this Git refuses lazy fetches by option (2.45 and newer). */
  async hasNoLazyFetch(signal?: AbortSignal): Promise<boolean> {
    const v = await this.version(signal);
    const [major, minor] = GIT_NO_LAZY_FETCH_SINCE;
    return v.major > major || (v.major === major && v.minor >= minor);
  }

  /** Runs a command and collects its whole output (for small outputs: listings, names). */
  async run(run: GitRun): Promise<GitOutput> {
    const chunks: Buffer[] = [];
    const outcome = await this.stream(run, collectInto(chunks));
    return { exitCode: outcome.exitCode, stdout: Buffer.concat(chunks), stderr: outcome.stderr };
  }

  /** Runs a command and hands its stdout to `consume` as it streams. */
  async stream(
    run: GitRun,
    consume: (stdout: Readable) => Promise<ConsumeResult>,
  ): Promise<OwnedProcessOutcome> {
    const lazy = (await this.hasNoLazyFetch(run.signal)) ? ["--no-lazy-fetch"] : [];
    return this.#spawn(run, [...lazy], consume);
  }

  async #probe(signal: AbortSignal | undefined): Promise<GitVersion> {
    const chunks: Buffer[] = [];
    const outcome = await this.#spawn(
      { cwd: process.cwd(), args: ["--version"], signal },
      [],
      collectInto(chunks),
    );
    const text = Buffer.concat(chunks).toString("utf8").trim();
    const parsed = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
    if (outcome.exitCode !== 0 || parsed === null) {
      throw new EvidentError(
        "configuration_error",
        `Git did not report its version (${text || outcome.stderr.trim()}).`,
      );
    }
    return { major: Number(parsed[1]), minor: Number(parsed[2]), patch: Number(parsed[3] ?? 0), text };
  }

  /**
   * Git's absolute path, from PATH's absolute entries only: Git runs in the repository, so a
   * relative entry (`./node_modules/.bin`, a common one) would run the repository's own `git`.
   */
  #path(): Promise<string> {
    this.#executable ??= findOnPath(this.#options.env, "git").then((found) => {
      if (found !== undefined) return found;
      throw new EvidentError("configuration_error", "Git is not on PATH (its absolute entries).");
    });
    // A failure is not kept: the operator may install Git meanwhile.
    this.#executable.catch(() => {
      this.#executable = undefined;
    });
    return this.#executable;
  }

  async #spawn(
    run: GitRun,
    global: readonly string[],
    consume: (stdout: Readable) => Promise<ConsumeResult>,
  ): Promise<OwnedProcessOutcome> {
    const config = [...SAFETY_CONFIG, ...(run.config ?? [])].flatMap((pair) => ["-c", pair]);
    let started: Awaited<ReturnType<typeof startOwnedProcess>>;
    try {
      started = await startOwnedProcess({
        command: await this.#path(),
        args: ["--no-replace-objects", ...global, ...config, ...run.args],
        cwd: run.cwd,
        env: this.#env,
        input: run.input !== undefined,
        ...(run.signal === undefined ? {} : { signal: run.signal }),
        ...(this.#options.slots === undefined ? {} : { slots: this.#options.slots }),
      });
    } catch (error) {
      if (error instanceof EvidentError && error.code === "configuration_error") {
        throw new EvidentError(
          "configuration_error",
          "Git is needed to compare changes but could not be started; install Git and make sure it is on PATH.",
          { cause: error },
        );
      }
      throw error;
    }
    this.#options.onSpawn?.(started.pid);
    return started.run(consume, {
      ...(run.input === undefined ? {} : { input: run.input }),
      ...(run.signal === undefined ? {} : { signal: run.signal }),
    });
  }
}

/** A consumer that keeps the whole output in `chunks` (for small outputs: listings, names). */
function collectInto(chunks: Buffer[]): (stdout: Readable) => Promise<ConsumeResult> {
  return async (stdout) => {
    for await (const chunk of stdout) chunks.push(chunk as Buffer);
    return "done";
  };
}

/**
 * Feeds Git's output to `push` as it arrives, until it ends (`finish` then checks that all came)
 * or `push` asks to stop; fails if `push` throws or the output is destroyed before its end.
 */
export function feed(
  stdout: Readable,
  push: (chunk: Buffer) => "stop" | undefined,
  finish: () => void = () => {},
): Promise<ConsumeResult> {
  return new Promise((resolve, reject) => {
    let stopped = false;
    const closed = () => reject(new Error("Git's output closed before it ended"));
    const ended = () => {
      if (stopped) return;
      try {
        finish();
        resolve("done");
      } catch (error) {
        reject(error);
      }
    };
    // Over before this was called: no event would come again.
    if (stdout.readableEnded) return ended();
    if (stdout.destroyed) return closed();
    stdout.on("data", (chunk: Buffer) => {
      if (stopped) return;
      try {
        if (push(chunk) === "stop") {
          stopped = true;
          resolve("stop");
        }
      } catch (error) {
        stdout.destroy();
        reject(error);
      }
    });
    stdout.once("end", ended);
    stdout.once("error", reject);
    // Destroyed before its end (cancellation, the deadline): without this the call would wait
    // forever (after "end", the promise is settled and this does nothing).
    stdout.once("close", closed);
  });
}

function safeEnvironment(env: Readonly<Record<string, string | undefined>>): NodeJS.ProcessEnv {
  const safe: NodeJS.ProcessEnv = {};
  for (const name of KEPT_ENV) {
    const value = env[name];
    if (value !== undefined) safe[name] = value;
  }
  return {
    ...safe,
    LC_ALL: "C",
    LANGUAGE: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_NO_LAZY_FETCH: "1",
    GIT_PROTOCOL_FROM_USER: "0",
    GIT_CONFIG_COUNT: "0",
    // Paths are paths: a file named `*.ts` or `:(top)x` means itself.
    GIT_LITERAL_PATHSPECS: "1",
  };
}

/**
 * Git's cause, for messages (bounded): its last `fatal:` line, else its last line. Warnings and
 * a child's refusals come before the line Git dies with ("lazy fetching disabled" before "could
 * not fetch X from promisor remote").
 */
export function gitMessage(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const line = lines.findLast((l) => l.startsWith("fatal: ")) ?? lines.at(-1);
  return (line?.replace(/^(fatal|error|warning): /, "") ?? "no message").slice(0, 300);
}

/**
 * Git stopped at an object the repository lacks and may not fetch: a partial clone's, with lazy
 * fetching off (or refused, as every network access is). `id` is the object Git names.
 */
export class MissingObjectError extends EvidentError {
  readonly id: string;
  /** Git's line naming it. */
  readonly line: string;

  constructor(command: string, id: string, line: string) {
    super("internal_error", `git ${command} failed: ${line}`);
    this.id = id;
    this.line = line;
  }
}

/** Git's line for a missing object, as Git words it under the C locale (object-file.c). */
const MISSING_OBJECT = /^could not fetch ([0-9a-f]{40,64}) from promisor remote$/;

/** The error for a failed Git command: a missing object is told apart from other failures. */
export function gitFailure(command: string, stderr: string): EvidentError {
  const line = gitMessage(stderr);
  const missing = MISSING_OBJECT.exec(line);
  if (missing !== null) return new MissingObjectError(command, missing[1] as string, line);
  return new EvidentError("internal_error", `git ${command} failed: ${line}`);
}
