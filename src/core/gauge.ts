/**
 * A count of work in progress and a promise for the moment it falls to zero: the HTTP layer's
 * taken concurrency slots, responses being written and open connections, which shutdown and
 * tests wait on without polling.
 */
export class Gauge {
  #value = 0;
  #zeroWaiters: Array<() => void> = [];

  get value(): number {
    return this.#value;
  }

  add(count = 1): void {
    this.#value += count;
  }

  remove(count = 1): void {
    this.#value -= count;
    if (this.#value === 0) for (const wake of this.#zeroWaiters.splice(0)) wake();
  }

  /** Resolves once the count is zero (at once if it is). */
  zero(): Promise<void> {
    return this.#value === 0 ? Promise.resolve() : new Promise((resolve) => this.#zeroWaiters.push(resolve));
  }
}
