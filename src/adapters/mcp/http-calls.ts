/**
 * The tool calls a stateless HTTP server is running, so that what reaches no server instance can
 * still reach them: a 2025-era client's `notifications/cancelled`, which arrives in a POST of its
 * own at a fresh instance that never saw the call, and the end of the shutdown grace period.
 *
 * A call's own HTTP request going away (the client disconnected, or a 2026-era client closed the
 * stream, which is its way to cancel) needs no table: that request's signal ends its exchange,
 * and only its. A cancel notice names a caller and a JSON-RPC id, which two clients sharing a
 * token may both use: it cancels a call only when exactly one running call matches, and is
 * ignored otherwise. Operators who want every client's notices honoured give each client its
 * own token (EVIDENT_AUTH_TOKENS). The table is per process: a notice sent to another replica
 * cannot reach the call.
 */
import { cancelledError } from "../../core/abort.js";
import type { EvidentError } from "../../core/errors.js";

/** One HTTP request served by the SDK, with the JSON-RPC requests its body carries. */
export class Exchange {
  readonly caller: string;
  /** JSON-RPC requests in the body (more than one only in a 2025-03-26 batch). */
  readonly requests: number;
  /** The HTTP request's own signal: it aborts when the client goes away. */
  readonly request: AbortSignal;
  readonly #abandon = new AbortController();

  constructor(caller: string, requests: number, request: AbortSignal) {
    this.caller = caller;
    this.requests = requests;
    this.request = request;
  }

  /** Aborts when the exchange is abandoned: it then ends without an answer. */
  get abandoned(): AbortSignal {
    return this.#abandon.signal;
  }

  abandon(): void {
    this.#abandon.abort(cancelledError());
  }
}

export interface TrackedCall {
  /**
   * Aborts when the call is cancelled by a notice or by shutdown, or when its client has gone:
   * already aborted for a call whose client went away before the call began (the SDK only
   * hears of a request's abort that comes after it has started serving it).
   */
  readonly signal: AbortSignal;
  release(): void;
}

interface RunningCall {
  readonly exchange: Exchange;
  readonly requestId: string | number;
  readonly controller: AbortController;
}

export type NoticeOutcome = "cancelled" | "unknown" | "ambiguous";

export class HttpCalls {
  readonly #running = new Set<RunningCall>();

  begin(exchange: Exchange, requestId: string | number): TrackedCall {
    const call: RunningCall = { exchange, requestId, controller: new AbortController() };
    const gone = () => call.controller.abort(cancelledError());
    if (exchange.request.aborted) gone();
    else exchange.request.addEventListener("abort", gone, { once: true });
    this.#running.add(call);
    return {
      signal: call.controller.signal,
      release: () => {
        exchange.request.removeEventListener("abort", gone);
        this.#running.delete(call);
      },
    };
  }

  /**
   * A cancel notice from `caller` for `requestId`. The one matching call is aborted and, when it
   * is its request's only call, its exchange is abandoned so that no answer is sent (a batch's
   * other calls still answer, so there the call answers `cancelled`).
   */
  cancelNotice(caller: string, requestId: string | number): NoticeOutcome {
    const matches = [...this.#running].filter(
      (call) => call.exchange.caller === caller && call.requestId === requestId,
    );
    if (matches.length === 0) return "unknown";
    if (matches.length > 1) return "ambiguous";
    const [call] = matches as [RunningCall];
    call.controller.abort(cancelledError());
    if (call.exchange.requests === 1) call.exchange.abandon();
    return "cancelled";
  }

  /** Aborts every running call with `reason` (they answer with it); returns how many. */
  cancelAll(reason: EvidentError): number {
    for (const call of this.#running) call.controller.abort(reason);
    return this.#running.size;
  }

  get size(): number {
    return this.#running.size;
  }
}
