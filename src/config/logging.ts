/**
 * The logger's settings from the environment: its level and the secrets it scrubs. Adapters
 * read them here before anything else, so a bad level is said before any work starts.
 */
import { EvidentError } from "../core/errors.js";
import { LOG_LEVELS, type LogLevel } from "../core/logger.js";
import { type Env, envValue } from "./env.js";

/**
 * EVIDENT_LOG_LEVEL, or `fallback` when it is unset or empty. Any other value is a
 * configuration_error naming the variable: a mistyped `debug` would otherwise log at `warn`
 * while the operator waits for debug lines.
 */
export function logLevelFromEnv(env: Env, fallback: LogLevel): LogLevel {
  const raw = envValue(env, "EVIDENT_LOG_LEVEL");
  if (raw === undefined) return fallback;
  if ((LOG_LEVELS as readonly string[]).includes(raw)) return raw as LogLevel;
  throw new EvidentError(
    "configuration_error",
    `EVIDENT_LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${env.EVIDENT_LOG_LEVEL}".`,
    { details: { key: "EVIDENT_LOG_LEVEL" } },
  );
}

/**
 * Values of secret-bearing variables (names ending in TOKEN, KEY, SECRET or PASSWORD), so a
 * logger can scrub them from every line whatever a library puts in an error message. A list
 * variable (TOKENS, KEYS: comma-separated) contributes each of its entries too.
 */
export function secretsFromEnv(env: Env): string[] {
  const secrets: string[] = [];
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (/(TOKEN|KEY|SECRET|PASSWORD)$/i.test(key)) secrets.push(value);
    else if (/(TOKENS|KEYS)$/i.test(key)) secrets.push(value, ...value.split(","));
  }
  return secrets;
}
