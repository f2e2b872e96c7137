/**
 * Cancellation and deadlines as AbortSignals whose reasons are EvidentErrors, so that whoever
 * observes an abort can report `cancelled` or `deadline_exceeded` without guessing.
 */
import { EvidentError } from "./errors.js";

export function cancelledError(): EvidentError {
  return new EvidentError("cancelled", "The operation was cancelled by the caller.");
}

export function deadlineError(what: string, ms: number): EvidentError {
  return new EvidentError("deadline_exceeded", `${what} did not finish within ${ms} ms.`, {
    details: { deadline_ms: ms },
  });
}

/** The reason of an aborted signal as an EvidentError (`cancelled` when the reason is foreign). */
export function abortReason(signal: AbortSignal): EvidentError {
  const reason: unknown = signal.reason;
  if (reason instanceof EvidentError) return reason;
  return new EvidentError("cancelled", "The operation was cancelled by the caller.", { cause: reason });
}

/** Throws the signal's reason (as an EvidentError) when it has been aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}

export interface Deadline {
  readonly signal: AbortSignal;
  /** Releases the timer; call it when the guarded work ends, whichever way. */
  dispose(): void;
}

/**
 * A signal that aborts when `parent` aborts (keeping the parent's reason) or after `ms`
 * (with a `deadline_exceeded` reason naming `what`). Timers are unref'd so that a pending
 * deadline never keeps a process alive, unless `keepAlive`: a call's overall deadline keeps the
 * process alive until the call ends (a CLI run must not exit silently with a pending call).
 */
export function withDeadline(
  parent: AbortSignal | undefined,
  ms: number,
  what: string,
  { keepAlive = false }: { readonly keepAlive?: boolean } = {},
): Deadline {
  const controller = new AbortController();
  const onParentAbort = () => controller.abort(parent?.reason ?? cancelledError());
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener("abort", onParentAbort, { once: true });
  const timer = setTimeout(() => controller.abort(deadlineError(what, ms)), ms);
  if (!keepAlive) timer.unref?.();
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      parent?.removeEventListener("abort", onParentAbort);
    },
  };
}

/**
 * A signal that aborts when any of `signals` does, keeping the first reason. Unlike
 * `AbortSignal.any`, the links are plain listeners that `dispose` removes when the work ends,
 * so a long-lived parent signal does not keep collecting links from finished calls.
 */
export function anySignal(signals: readonly AbortSignal[]): Deadline {
  const controller = new AbortController();
  const links: Array<[AbortSignal, () => void]> = [];
  for (const signal of signals) {
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    links.push([signal, onAbort]);
  }
  return {
    signal: controller.signal,
    dispose() {
      for (const [signal, onAbort] of links) signal.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * `work`, or the signal's reason as soon as it aborts: an adapter that ignores its signal cannot
 * hold its caller past a deadline. The work's own later failure is then ignored.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {});
      reject(abortReason(signal));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
