/**
 * Concurrency that never leaves work behind. `allEnded`: several pieces of work at once,
 * their results in order; a failure is thrown only once every piece has ended.
 *
 * Bounded concurrency: `work` over `inputs` with at most `limit` running at once, results in
 * input order. The first failure stops the rest (their signal aborts, and no new one starts) and
 * is thrown once every started one has ended, so no work outlives the call that asked for it.
 */
import { anySignal } from "./abort.js";

export async function mapBounded<T, R>(
  inputs: readonly T[],
  limit: number,
  work: (input: T, signal: AbortSignal) => Promise<R>,
  parent?: AbortSignal,
): Promise<R[]> {
  const results: R[] = new Array(inputs.length);
  const controller = new AbortController();
  const linked = anySignal(parent === undefined ? [controller.signal] : [parent, controller.signal]);
  let failure: { readonly error: unknown } | undefined;
  let next = 0;
  const worker = async () => {
    while (next < inputs.length && failure === undefined) {
      const i = next++;
      try {
        results[i] = await work(inputs[i] as T, linked.signal);
      } catch (error) {
        failure ??= { error };
        controller.abort(error);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(limit, inputs.length) }, worker));
  } finally {
    linked.dispose();
  }
  if (failure !== undefined) throw failure.error;
  return results;
}

/**
 * `Promise.all`, except that a failure is thrown once every promise has settled: the others
 * (sharing the failed one's signal, they usually end at once) never outlive the call.
 */
export async function allEnded<T extends readonly unknown[]>(
  promises: readonly [...{ [K in keyof T]: Promise<T[K]> }],
): Promise<T> {
  const settled = await Promise.allSettled(promises);
  for (const outcome of settled) if (outcome.status === "rejected") throw outcome.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
