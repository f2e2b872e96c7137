/**
 * code_search's operator settings, read once from the environment when the service starts.
 * Defaults live in limits.ts; a set but unusable value is a configuration_error that every call
 * reports, naming the variable.
 */
import { type Env, envInteger } from "../core/env.js";
import { CODE_SEARCH_DEADLINE_MS, CODE_SEARCH_MAX_PROCESSES } from "../core/limits.js";

export interface CodeSearchSettings {
  /** Overall deadline of one call. */
  readonly deadlineMs: number;
  /** Subprocesses run at once (see core/slots.ts). */
  readonly maxProcesses: number;
}

export function codeSearchSettings(env: Env): CodeSearchSettings {
  return {
    deadlineMs: envInteger(env, "EVIDENT_CODE_SEARCH_DEADLINE_MS", CODE_SEARCH_DEADLINE_MS),
    maxProcesses: envInteger(env, "EVIDENT_CODE_SEARCH_MAX_PROCESSES", CODE_SEARCH_MAX_PROCESSES),
  };
}
