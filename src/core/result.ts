/**
 * What every tool returns, whatever surface carries it: a short text written for the model,
 * the structured data behind it, and whether it is an error. Adapters translate this shape;
 * they never rebuild it.
 */
import { type ErrorPayload, type EvidentError, toEvidentError } from "./errors.js";

export interface ToolSuccess<T> {
  readonly isError: false;
  /** Model-facing text: what was found, what was cut and how to continue. */
  readonly text: string;
  /** Structured data, valid against the tool's output schema. */
  readonly data: T;
}

export interface ToolFailure {
  readonly isError: true;
  readonly text: string;
  readonly data: ErrorPayload;
  readonly error: EvidentError;
}

export type ToolResult<T> = ToolSuccess<T> | ToolFailure;

export function success<T>(text: string, data: T): ToolSuccess<T> {
  return { isError: false, text, data };
}

/**
 * The failure result of anything thrown; its text is the same JSON payload every surface shows.
 * `internalAdvice` closes an internal error's message (where its cause is logged).
 */
export function failure(thrown: unknown, internalAdvice?: string): ToolFailure {
  const error = toEvidentError(thrown, internalAdvice);
  const data = error.toPayload();
  return { isError: true, text: JSON.stringify(data), data, error };
}
