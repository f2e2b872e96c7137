/**
 * The kept-data stores' bound (core/kept.ts), read from the environment where a store is built:
 * EVIDENT_KEPT_MAX_BYTES, the bytes one store holds (KEPT_MAX_BYTES by default), every backend.
 */
import { type Env, envInteger } from "../core/env.js";
import { KEPT_MAX_BYTES, KEPT_MIN_BYTES } from "../core/limits.js";

export const KEPT_MAX_BYTES_VARIABLE = "EVIDENT_KEPT_MAX_BYTES";

export function keptMaxBytes(env: Env): number {
  return envInteger(env, KEPT_MAX_BYTES_VARIABLE, KEPT_MAX_BYTES, { min: KEPT_MIN_BYTES });
}
