/**
 * Reading operator settings from environment variables. A value that is set but unusable is a
 * configuration_error naming the variable, never a silent fallback to the default.
 */
import { EvidentError } from "./errors.js";

export type Env = Readonly<Record<string, string | undefined>>;

/** An integer from `min` to `max`, or `fallback` when the variable is unset or empty. */
export function envInteger(
  env: Env,
  name: string,
  fallback: number,
  { min = 1, max = Number.MAX_SAFE_INTEGER }: { readonly min?: number; readonly max?: number } = {},
): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new EvidentError(
      "configuration_error",
      `${name} must be an integer from ${min} to ${max}, got "${env[name]}".`,
      { details: { key: name } },
    );
  }
  return value;
}
