/**
 * One ripgrep started ahead of the next search. Starting ripgrep costs more than many searches
 * take to read their files (a fork and exec from Node, then ripgrep's own start), so a long-lived
 * service keeps one ripgrep waiting for its pattern on stdin, with the options and file scope of
 * the last search. A search with the same ones writes its pattern and reads the output at once;
 * any other search starts ripgrep as usual, and its shape is the next one kept.
 *
 * Nothing is read before the pattern arrives: the file walk and every file read happen after,
 * so a waiting ripgrep sees the tree as it is when the search runs. What it fixed at its start
 * is its working directory, so a search uses it only if that path is still the same directory.
 * A waiting ripgrep never keeps this process alive and is ended after PRESTART_IDLE_MS unused;
 * if this process ends without closing the slot, ripgrep reads the end of its input and exits
 * without searching (no pattern can match).
 */
import { stat } from "node:fs/promises";
import { PRESTART_IDLE_MS } from "../../core/limits.js";
import type { StartedProcess } from "./owned-process.js";

export interface PrestartOptions {
  /** How long a waiting ripgrep is kept unused; PRESTART_IDLE_MS by default. */
  readonly idleMs?: number;
}

interface Parked {
  readonly key: string;
  readonly directory: string | undefined;
  readonly process: StartedProcess;
  readonly timer: NodeJS.Timeout;
}

export class PrestartSlot {
  readonly #idleMs: number;
  readonly #onError: (error: unknown) => void;
  #parked: Parked | undefined;
  /** The key being started, and a number that changes whenever what is wanted changes. */
  #starting: string | undefined;
  #generation = 0;
  readonly #pending = new Set<Promise<void>>();
  #closed = false;

  constructor(options: PrestartOptions & { readonly onError: (error: unknown) => void }) {
    this.#idleMs = options.idleMs ?? PRESTART_IDLE_MS;
    this.#onError = options.onError;
  }

  /**
   * The waiting ripgrep for `key`, taken out of the slot: the caller runs or discards it. None if
   * another is kept, it has died, or `cwd` is no longer the directory it was started in.
   */
  async take(key: string, cwd: string): Promise<StartedProcess | undefined> {
    const parked = this.#parked;
    if (parked === undefined || parked.key !== key) return undefined;
    this.#parked = undefined;
    clearTimeout(parked.timer);
    if (
      parked.process.alive &&
      parked.directory !== undefined &&
      (await identity(cwd)) === parked.directory
    ) {
      return parked.process;
    }
    this.#discard(parked.process);
    return undefined;
  }

  /**
   * Keeps a ripgrep from `start` waiting for the next search with `key`, replacing one kept for
   * another key. Called after a search has answered, so the start never competes with it.
   */
  park(key: string, cwd: string, start: () => Promise<StartedProcess>): void {
    if (this.#closed || this.#starting === key) return;
    const current = this.#parked;
    if (current?.key === key && current.process.alive) {
      current.timer.refresh();
      return;
    }
    this.#drop();
    const generation = ++this.#generation;
    this.#starting = key;
    const work = (async () => {
      try {
        const directory = await identity(cwd);
        const process = await start();
        if (this.#closed || generation !== this.#generation) {
          this.#discard(process);
          return;
        }
        process.unref();
        const timer = setTimeout(() => {
          if (this.#parked?.process === process) this.#drop();
        }, this.#idleMs);
        timer.unref();
        this.#parked = { key, directory, process, timer };
      } finally {
        if (generation === this.#generation) this.#starting = undefined;
      }
    })().catch((error: unknown) => {
      if (!this.#closed) this.#onError(error);
    });
    this.#track(work);
  }

  /** Resolves once no ripgrep is being started or ended (a kept one may remain). */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  /** Ends the waiting ripgrep and any being started, and resolves once they have closed. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#generation++;
    this.#drop();
    await this.settled();
  }

  #drop(): void {
    const parked = this.#parked;
    if (parked === undefined) return;
    this.#parked = undefined;
    clearTimeout(parked.timer);
    this.#discard(parked.process);
  }

  #discard(process: StartedProcess): void {
    // Referenced while it closes, so that whoever awaits close() sees it through.
    process.ref();
    this.#track(process.discard().catch((error: unknown) => this.#onError(error)));
  }

  #track(work: Promise<void>): void {
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
  }
}

/** A directory's identity: the same path may name another directory later. */
async function identity(path: string): Promise<string | undefined> {
  try {
    const info = await stat(path, { bigint: true });
    return `${info.dev}:${info.ino}`;
  } catch {
    return undefined;
  }
}
