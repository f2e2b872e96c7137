/**
 * Request normalization: the only place where code_search defaults are decided. The schema has
 * already checked types and bounds; this module applies defaults, checks combinations of fields
 * and hands the rest of the code a closed, explicit request. No other module reads raw input.
 */
import { EvidentError } from "../core/errors.js";
import { CODE_CONTEXT_DEFAULT_LINES } from "../core/limits.js";
import type { CodeSearchInput } from "./schema.js";

/** `smart`: case-sensitive only when the pattern has an uppercase letter (ripgrep's -S). */
export type CaseMode = "smart" | "sensitive" | "insensitive";
export type SearchMode = "auto" | "summary" | "matches";

/** What decides the match set. Two searches with equal queries and roots match the same lines. */
export interface SearchQuery {
  readonly pattern: string;
  readonly literal: boolean;
  readonly caseMode: CaseMode;
  readonly wholeWord: boolean;
  readonly hidden: boolean;
  readonly globs: readonly string[];
  readonly excludes: readonly string[];
}

export interface NewSearchRequest {
  readonly kind: "search";
  readonly query: SearchQuery;
  /** The path as the caller wrote it; undefined means the project root. */
  readonly path: string | undefined;
  readonly scope: "strict" | "expand";
  readonly mode: SearchMode;
  /** `auto` was chosen by default, not asked for: only then may the context budget adapt. */
  readonly modeImplicit: boolean;
  /** Undefined when the caller did not set one; pages then use the default page size. */
  readonly limit: number | undefined;
  readonly context: number;
  readonly redact: boolean;
}

export interface PageRequest {
  readonly kind: "page";
  readonly cursor: string;
  readonly paths: readonly string[] | undefined;
  /** Only `summary` and `matches` mean something with a cursor; `auto` reads as omitted. */
  readonly mode: "summary" | "matches" | undefined;
  readonly limit: number | undefined;
  readonly context: number;
  readonly redact: boolean;
  /**
   * Fields that cannot go with a cursor. They are reported as `cursor_option_conflict` only after
   * the cursor itself has been validated, so a bad cursor is always named first.
   */
  readonly conflicts: readonly string[];
}

export type CodeSearchRequest = NewSearchRequest | PageRequest;

const SEARCH_ONLY_FIELDS = [
  "pattern",
  "path",
  "glob",
  "exclude",
  "literal",
  "ignoreCase",
  "wholeWord",
  "hidden",
  "scope",
] as const satisfies readonly (keyof CodeSearchInput)[];

export function normalizeRequest(input: CodeSearchInput): CodeSearchRequest {
  rejectNul(input);
  const context = input.context ?? CODE_CONTEXT_DEFAULT_LINES;
  const redact = input.redact ?? false;
  if (input.cursor !== undefined) {
    return {
      kind: "page",
      cursor: input.cursor,
      paths: input.paths,
      mode: input.mode === "auto" ? undefined : input.mode,
      limit: input.limit,
      context,
      redact,
      conflicts: SEARCH_ONLY_FIELDS.filter((field) => input[field] !== undefined),
    };
  }
  if (input.paths !== undefined) {
    throw invalid(
      "paths",
      "paths selects files of an earlier result and needs a cursor; use path to search.",
    );
  }
  if (input.pattern === undefined) {
    throw invalid("pattern", "pattern is required (or pass a cursor to continue an earlier result).");
  }
  if (/[\r\n]/.test(input.pattern)) {
    throw invalid(
      "pattern",
      "matches are found within single lines, so a pattern cannot contain a line break.",
    );
  }
  return {
    kind: "search",
    query: {
      pattern: input.pattern,
      literal: input.literal ?? false,
      caseMode: input.ignoreCase === undefined ? "smart" : input.ignoreCase ? "insensitive" : "sensitive",
      wholeWord: input.wholeWord ?? false,
      hidden: input.hidden ?? true,
      globs: asList(input.glob),
      excludes: asList(input.exclude),
    },
    path: input.path,
    scope: input.scope ?? "expand",
    mode: input.mode ?? "auto",
    modeImplicit: input.mode === undefined,
    limit: input.limit,
    context,
    redact,
  };
}

function asList(value: string | readonly string[] | undefined): readonly string[] {
  if (value === undefined) return [];
  return typeof value === "string" ? [value] : value;
}

/** A NUL cannot travel in a process argument; say so here instead of failing at spawn. */
function rejectNul(input: CodeSearchInput): void {
  for (const [field, value] of Object.entries(input)) {
    const strings = typeof value === "string" ? [value] : Array.isArray(value) ? value : [];
    if (strings.some((s) => typeof s === "string" && s.includes("\0"))) {
      throw invalid(field, "must not contain a NUL character");
    }
  }
}

export function invalid(field: string, message: string): EvidentError {
  return new EvidentError("invalid_arguments", `Invalid arguments: ${field}: ${message}`, {
    details: { field, issues: [{ field, message }] },
  });
}
