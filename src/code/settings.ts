/**
 * code_search's operator settings, as config/ resolved them (EVIDENT_CODE_SEARCH_*). Defaults
 * live in limits.ts; a service given none uses them.
 */
import { CODE_SEARCH_DEADLINE_MS, CODE_SEARCH_MAX_PROCESSES } from "../core/limits.js";

export interface CodeSearchSettings {
  /** Overall deadline of one call. */
  readonly deadlineMs: number;
  /** Subprocesses run at once (see core/slots.ts). */
  readonly maxProcesses: number;
}

export const DEFAULT_CODE_SEARCH_SETTINGS: CodeSearchSettings = {
  deadlineMs: CODE_SEARCH_DEADLINE_MS,
  maxProcesses: CODE_SEARCH_MAX_PROCESSES,
};
