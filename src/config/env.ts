/**
 * Reading operator settings from environment variables. A value that is set but unusable is a
 * configuration_error naming the variable, never a silent fallback to the default.
 */
import { EvidentError } from "../core/errors.js";

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * A setting's value, trimmed; undefined when the variable is unset or empty (`NAME= cmd` unsets it,
 * as shells mean it). Only whitespace is a mistake (a stray quote, a blank secret file), refused
 * naming the variable rather than read as unset, which would quietly change what evident does.
 */
export function envValue(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const value = raw.trim();
  if (value === "") {
    throw new EvidentError(
      "configuration_error",
      `${name} holds only whitespace; set a value, or leave it empty to use the default.`,
      { details: { key: name } },
    );
  }
  return value;
}

/** A comma-separated variable as `commaList` reads it; undefined when unset or empty. */
export function envList(env: Env, name: string): string[] | undefined {
  const value = envValue(env, name);
  return value === undefined ? undefined : commaList(value);
}

/** A comma-separated list (a variable, a flag's value): each item trimmed, empty ones dropped. */
export function commaList(text: string): string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/** An integer from `min` to `max`, or `fallback` when the variable is unset or empty. */
export function envInteger(
  env: Env,
  name: string,
  fallback: number,
  { min = 1, max = Number.MAX_SAFE_INTEGER }: { readonly min?: number; readonly max?: number } = {},
): number {
  const raw = envValue(env, name);
  if (raw === undefined) return fallback;
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
