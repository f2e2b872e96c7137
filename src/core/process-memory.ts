/**
 * The memory of a process evident owns: the `evident mcp` server started by the executable, never
 * a host's process (the SDK and the Pi extension run inside someone else's runtime and leave it
 * alone). Three settings, measured in bench/hardening/RESULTS.md:
 * - V8's young generation stops growing where it stands (1-2 MB semi-spaces when a server starts)
 *   instead of growing to 16 MB semi-spaces: a server's calls make short-lived garbage by the
 *   megabyte, and a grown young generation holds on to its size for good. Node reads
 *   `--max-semi-space-size` only at start, but V8 reads its growth factor whenever the young
 *   generation would grow, so it can be set from here.
 * - V8's old generation may grow by a fifth past what the last full collection kept before the
 *   next one (OLD_GENERATION_GROWING_PERCENT), not by up to four times: read chunks and other
 *   buffers outlive the small young generation, and their memory is C memory that only a full
 *   collection frees. Freed late, it piled up between collections, and glibc keeps its heap at
 *   that peak for good. V8 reads this factor whenever it sets the next limit, so it too can be set from here.
 * - once no call has run for a while, one full collection: V8 collects when allocation asks it
 *   to, so a server that goes quiet keeps the garbage of its last calls (and the native memory
 *   that garbage holds) until the next one.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { type Env, envInteger } from "./env.js";
import { IDLE_COLLECT_AFTER_MS, OLD_GENERATION_GROWING_PERCENT } from "./limits.js";
import type { Logger } from "./logger.js";

/**
 * The settings for the executable's server, from the operator's environment: the idle
 * collection to tell about calls, or undefined when EVIDENT_IDLE_COLLECT_MS is 0 or the runtime
 * offers no full collection. A bad EVIDENT_IDLE_COLLECT_MS is a configuration_error, checked
 * before anything is set.
 */
export function tuneServerMemory(
  env: Env,
  execArgv: readonly string[],
  logger: Logger,
): IdleCollection | undefined {
  const afterMs = envInteger(env, "EVIDENT_IDLE_COLLECT_MS", IDLE_COLLECT_AFTER_MS, {
    min: 0,
    max: 86_400_000,
  });
  const young = keepYoungGenerationSmall(env.NODE_OPTIONS, execArgv);
  logger.debug(`memory: young generation ${young ? "kept from growing" : "sized by the node options"}`);
  const old = keepOldGenerationTight(env.NODE_OPTIONS, execArgv);
  logger.debug(
    `memory: old generation ${old ? `collected after ${OLD_GENERATION_GROWING_PERCENT}% growth` : "grown as node's options say"}`,
  );
  if (afterMs === 0) return undefined;
  const collect = fullCollection();
  if (collect === undefined) {
    logger.debug("memory: this runtime offers no full collection, so none runs when idle");
    return undefined;
  }
  return new IdleCollection({ afterMs, collect, logger });
}

/** Told when a tool call starts and when it ends, whatever its outcome. */
export interface CallObserver {
  callStarted(): void;
  callEnded(): void;
}

/**
 * Stops V8's young generation growing, unless the operator chose its size
 * (`--max-semi-space-size` or `--min-semi-space-size` in NODE_OPTIONS or on node's command
 * line), whose choice stands. Returns whether it was set here.
 */
export function keepYoungGenerationSmall(
  nodeOptions: string | undefined,
  execArgv: readonly string[],
): boolean {
  const chosen = [nodeOptions ?? "", ...execArgv].some((option) => /semi[-_]space/.test(option));
  if (chosen) return false;
  try {
    setFlagsFromString("--semi-space-growth-factor=1");
    return true;
  } catch {
    return false; // a runtime without V8's flags
  }
}

/**
 * Lets V8's old generation grow by OLD_GENERATION_GROWING_PERCENT past what the last full
 * collection kept before it collects again, unless the operator chose the factor
 * (`--heap-growing-percent` on node's command line), whose choice stands. Returns whether it was
 * set here.
 */
export function keepOldGenerationTight(
  nodeOptions: string | undefined,
  execArgv: readonly string[],
): boolean {
  const chosen = [nodeOptions ?? "", ...execArgv].some((option) => /heap[-_]growing[-_]percent/.test(option));
  if (chosen) return false;
  try {
    setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWING_PERCENT}`);
    return true;
  } catch {
    return false; // a runtime without V8's flags
  }
}

/**
 * A full garbage collection, or undefined where the runtime offers none. The `gc` function is
 * exposed to contexts created while the flag is set, so only the one made here gets it: the
 * process's own global never has `gc`.
 */
export function fullCollection(): (() => void) | undefined {
  try {
    setFlagsFromString("--expose-gc");
    const gc: unknown = runInNewContext("typeof gc === 'function' ? gc : undefined");
    setFlagsFromString("--no-expose-gc");
    return typeof gc === "function" ? () => void gc() : undefined;
  } catch {
    return undefined; // a runtime without V8's flags or its gc extension
  }
}

export interface IdleCollectionOptions {
  /** How long no call may have run before the collection; IDLE_COLLECT_AFTER_MS by default. */
  readonly afterMs?: number;
  readonly collect: () => void;
  readonly logger?: Logger;
}

/**
 * Runs `collect` once per quiet period: `afterMs` after the last call in flight ended, if none
 * has started since. Its timer never keeps the process alive.
 */
export class IdleCollection implements CallObserver {
  readonly #afterMs: number;
  readonly #collect: () => void;
  readonly #logger: Logger | undefined;
  #inFlight = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: IdleCollectionOptions) {
    this.#afterMs = options.afterMs ?? IDLE_COLLECT_AFTER_MS;
    this.#collect = options.collect;
    this.#logger = options.logger;
  }

  callStarted(): void {
    this.#inFlight += 1;
    this.#cancel();
  }

  callEnded(): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    if (this.#inFlight > 0 || this.#closed) return;
    this.#cancel();
    this.#timer = setTimeout(() => this.#run(), this.#afterMs);
    this.#timer.unref();
  }

  close(): void {
    this.#closed = true;
    this.#cancel();
  }

  #run(): void {
    this.#timer = undefined;
    if (this.#inFlight > 0 || this.#closed) return;
    const before = process.memoryUsage();
    const started = performance.now();
    this.#collect();
    const after = process.memoryUsage();
    this.#logger?.debug("idle: full garbage collection", {
      ms: Math.round(performance.now() - started),
      heapUsedMb: `${megabytes(before.heapUsed)} -> ${megabytes(after.heapUsed)}`,
      externalMb: `${megabytes(before.external)} -> ${megabytes(after.external)}`,
    });
  }

  #cancel(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

function megabytes(bytes: number): number {
  return Math.round(bytes / 104_857.6) / 10;
}
