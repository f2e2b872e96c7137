/**
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
