/**
 * How every `evident` command answers a failure: the shared error payload
 * (`{"error":{"code":...,"message":...}}`) on stderr, exit 2 for bad arguments and 1 otherwise,
 * so a script reads the same shape and codes from tool, server and operator commands alike.
 */
import { type ErrorPayload, EvidentError } from "../../core/errors.js";

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** A bad flag, command or argument: `field` names it. */
export function usageError(message: string, field: string): EvidentError {
  return new EvidentError("invalid_arguments", message, { details: { field } });
}

/** Writes the error payload to stderr and returns the exit status its code calls for. */
export function fail(io: { readonly stderr: { write(chunk: string): boolean } }, thrown: unknown): number {
  const error =
    thrown instanceof EvidentError
      ? thrown
      : new EvidentError("internal_error", "An internal error occurred.", { cause: thrown });
  const payload: ErrorPayload = error.toPayload();
  io.stderr.write(`${JSON.stringify(payload)}\n`);
  return error.code === "invalid_arguments" ? EXIT_USAGE : EXIT_FAILED;
}
