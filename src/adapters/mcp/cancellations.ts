/**
 * Cancellation for stateless HTTP. Each request is served by a fresh server instance, so a
 * client's `notifications/cancelled` arrives at an instance that never saw the call, and some
 * clients keep the call's own HTTP request open after cancelling. This table lets the HTTP
 * layer reach the running call anyway: calls register under (caller, JSON-RPC id), and a
 * cancel notice from the same caller, or the call's HTTP request going away, aborts them.
 * It is per process: a cancel sent to another replica cannot reach the call.
 */

export interface TrackedCall {
  readonly signal: AbortSignal;
  release(): void;
}

export class CallCancellations {
  readonly #calls = new Map<string, Set<AbortController>>();

  static key(caller: string, requestId: string | number): string {
    return `${caller}\u0000${typeof requestId}:${String(requestId)}`;
  }

  track(key: string): TrackedCall {
    const controller = new AbortController();
    let set = this.#calls.get(key);
    if (set === undefined) {
      set = new Set();
      this.#calls.set(key, set);
    }
    set.add(controller);
    return {
      signal: controller.signal,
      release: () => {
        const current = this.#calls.get(key);
        current?.delete(controller);
        if (current?.size === 0) this.#calls.delete(key);
      },
    };
  }

  /** Aborts every call registered under `key`; returns how many were aborted. */
  cancel(key: string): number {
    const set = this.#calls.get(key);
    if (set === undefined) return 0;
    for (const controller of set) controller.abort();
    return set.size;
  }

  get size(): number {
    return this.#calls.size;
  }
}
