/**
 * The one list of stable error codes, and the typed error every layer throws.
 *
 * Codes are part of the public contract (MCP results, CLI payloads, SDK rejections): add to the
 * list, never rename. Boundaries map codes to transport meaning (exit status, HTTP status) in
 * one place each, exhaustively, by switching over `ErrorCode`.
 */

export const ERROR_CODES = [
  "invalid_arguments",
  "configuration_error",
  "all_providers_failed",
  "provider_failed",
  "focus_unsupported",
  "url_not_allowed",
  "host_unresolved",
  "unsupported_content",
  "deadline_exceeded",
  "cancelled",
  "path_not_allowed",
  "source_changed",
  "source_too_large",
  "syntax_unavailable",
  "cursor_malformed",
  "cursor_not_found",
  "cursor_expired",
  "cursor_wrong_kind",
  "cursor_option_conflict",
  "cursor_offset_invalid",
  "unauthorized",
  "forbidden",
  "payload_too_large",
  "overloaded",
  "store_unavailable",
  "internal_error",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Extra, JSON-safe facts attached to an error payload. Keys are snake_case on the wire so that
 * every surface (MCP text, CLI stderr, SDK) shows the same document.
 */
export type ErrorDetails = Readonly<Record<string, unknown>>;

export interface ErrorPayload {
  readonly error: { readonly code: ErrorCode; readonly message: string } & ErrorDetails;
}

/**
 * A failure with a stable code. `message` is written for the agent: it says what went wrong and,
 * where possible, how to fix it. It must never contain secrets or raw provider bodies; the
 * `cause` chain is for logs (and is itself never serialized to the agent).
 */
export class EvidentError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; details?: ErrorDetails } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "EvidentError";
    this.code = code;
    this.details = options.details ?? {};
  }

  toPayload(): ErrorPayload {
    return { error: { ...this.details, code: this.code, message: this.message } };
  }
}

export function isEvidentError(value: unknown): value is EvidentError {
  return value instanceof EvidentError;
}

/**
 * Turns anything thrown into an EvidentError. Unknown failures become `internal_error` with a
 * fixed message (closed by `internalAdvice`, the surface's word on where the cause is logged):
 * their text may hold paths, stack fragments or secrets, so it stays in `cause`. An abort reason
 * that is already an EvidentError (a deadline, a cancellation) keeps its code.
 */
export function toEvidentError(thrown: unknown, internalAdvice = "see the server log"): EvidentError {
  if (thrown instanceof EvidentError) return thrown;
  if (thrown instanceof Error && thrown.name === "AbortError") {
    const reason = (thrown as { cause?: unknown }).cause;
    if (reason instanceof EvidentError) return reason;
    return new EvidentError("cancelled", "The operation was cancelled.", { cause: thrown });
  }
  return new EvidentError("internal_error", `An internal error occurred; ${internalAdvice}.`, {
    cause: thrown,
  });
}
