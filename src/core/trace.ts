/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` (and `tracestate`)
 * a caller sends with a request, read strictly, so that a malformed value is ignored rather than
 * passed on. evident records no spans of its own, so it forwards the caller's context unchanged,
 * as the specification allows a pass-through participant to: the vendor's span then hangs under
 * the caller's span, which a tracing backend knows, and not under a span id nobody recorded.
 * Without an incoming context none is started (see docs/DEPLOY.md).
 */

export interface TraceContext {
  /** The value passed on: version 00 with the caller's trace id, parent id and flags. */
  readonly traceparent: string;
  /** Sent on only beside a valid traceparent, as the specification requires. */
  readonly tracestate?: string;
  readonly traceId: string;
  /** The caller's span, the parent of whatever evident's requests start. */
  readonly parentId: string;
}

/** version 00: exactly four fields. A later version may append fields after a dash. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ALL_ZERO = /^0+$/;
/** At most 32 list members of at most 256 characters each, plus separators. */
const TRACESTATE_MAX_CHARS = 512;
/** Printable ASCII: what a header value may carry without surprise to the vendor. */
const TRACESTATE = /^[\x20-\x7e]*$/;

/**
 * The trace context of `traceparent` (and `tracestate`), or undefined when the traceparent is
 * missing or not valid: a wrong length, upper-case hex, version ff, an all-zero trace or parent
 * id, or (for version 00) anything after the flags. A later version's value is read for its four
 * known fields and passed on as version 00, the highest this implementation knows, as the
 * specification asks.
 */
export function traceContext(traceparent: unknown, tracestate?: unknown): TraceContext | undefined {
  if (typeof traceparent !== "string") return undefined;
  const match = TRACEPARENT.exec(traceparent.trim());
  if (match === null) return undefined;
  const [, version, traceId, parentId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string | undefined,
  ];
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (ALL_ZERO.test(traceId) || ALL_ZERO.test(parentId)) return undefined;
  const state = typeof tracestate === "string" ? tracestate.trim() : "";
  const keepState = state !== "" && state.length <= TRACESTATE_MAX_CHARS && TRACESTATE.test(state);
  return {
    traceparent: `00-${traceId}-${parentId}-${flags}`,
    traceId,
    parentId,
    ...(keepState ? { tracestate: state } : {}),
  };
}

/** The headers that carry `trace` on an outgoing request (none without one). */
export function traceHeaders(trace: TraceContext | undefined): Record<string, string> {
  if (trace === undefined) return {};
  return {
    traceparent: trace.traceparent,
    ...(trace.tracestate === undefined ? {} : { tracestate: trace.tracestate }),
  };
}

/** The fields a log line carries for `trace`. */
export function traceFields(trace: TraceContext | undefined): Record<string, string> {
  return trace === undefined ? {} : { traceId: trace.traceId, parentSpanId: trace.parentId };
}
