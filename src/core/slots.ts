/**
 * A bound on work running at once, with a queue in arrival order: code_search's subprocesses
 * (a ripgrep already uses every core, so several at once only slow each other and the server:
 * starting a child blocks Node's event loop, and a loop late to read a cancel notice is late to
 * stop the call it names) and web_read's extraction threads. A caller cancelled while it waits
 * leaves the queue and starts nothing.
 */
import { abortReason } from "./abort.js";

/** Gives the slot back; calling it again does nothing. */
export type ReleaseSlot = () => void;

interface Waiter {
  readonly grant: (release: ReleaseSlot) => void;
}

export class Slots {
  readonly #limit: number;
  #running = 0;
  readonly #queue: Waiter[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`slot limit ${limit}`);
    this.#limit = limit;
  }

  /** Slots taken now. */
  get running(): number {
    return this.#running;
  }

  /** Whether `acquire` would wait now: every slot taken, or callers already queued. */
  get full(): boolean {
    return this.#running >= this.#limit || this.#queue.length > 0;
  }

  /** Starts waiting for a slot. */
  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * Resolves with a slot once one is free; rejects with the signal's reason if it aborts first
   * (before or while waiting), leaving no trace in the queue.
   */
  acquire(signal?: AbortSignal): Promise<ReleaseSlot> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.#running < this.#limit && this.#queue.length === 0) {
      this.#running++;
      return Promise.resolve(this.#release());
    }
    return new Promise<ReleaseSlot>((resolve, reject) => {
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(release);
        },
      };
      const onAbort = () => {
        const at = this.#queue.indexOf(waiter);
        if (at >= 0) this.#queue.splice(at, 1);
        reject(abortReason(signal as AbortSignal));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  #release(): ReleaseSlot {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      // The slot passes straight to the next waiter, so a new arrival cannot take it first.
      if (next !== undefined) next.grant(this.#release());
      else this.#running--;
    };
  }
}
