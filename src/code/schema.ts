/**
 * The code_search input and output schemas: the one public shape every surface validates
 * against. Bounds come from limits.ts; defaults are applied later, in request.ts, so the schema
 * says only what is accepted. This module stays light (zod and limits only) because the tool
 * registry loads it at startup.
 */
import { z } from "zod";
import {
  ANYOF_TERM_MAX_BYTES,
  ANYOF_TERMS_MAX,
  ANYOF_TERMS_MIN,
  CODE_CONTEXT_MAX_LINES,
  CODE_CONTEXT_MIN_LINES,
  CODE_CURSOR_MAX_CHARS,
  CODE_GLOBS_MAX,
  CODE_LIMIT_MAX,
  CODE_LIMIT_MIN,
  CODE_PATH_MAX_CHARS,
  CODE_PATHS_MAX,
  CODE_PATHS_MIN,
  CODE_PATTERN_MAX_CHARS,
  GIT_REVISION_MAX_CHARS,
} from "../core/limits.js";

const glob = z.string().min(1).max(CODE_PATH_MAX_CHARS);
const globs = z.union([glob, z.array(glob).min(1).max(CODE_GLOBS_MAX)]);

export const codeSearchInputSchema = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .max(CODE_PATTERN_MAX_CHARS)
    .optional()
    .describe("What to search for: a Rust-syntax regular expression, or exact text with literal=true."),
  path: z
    .string()
    .min(1)
    .max(CODE_PATH_MAX_CHARS)
    .optional()
    .describe(
      "File or directory to search, relative to the project root or absolute. Default: the project root.",
    ),
  paths: z
    .array(z.string().min(1).max(CODE_PATH_MAX_CHARS))
    .min(CODE_PATHS_MIN)
    .max(CODE_PATHS_MAX)
    .optional()
    .describe("With a cursor only: restrict a detail page to these files of the result."),
  glob: globs
    .optional()
    .describe('Only files matching these globs, e.g. "*.ts" or ["src/**", "!*.test.ts"].'),
  exclude: globs.optional().describe('Skip files or directories matching these globs, e.g. "dist".'),
  literal: z.boolean().optional().describe("Treat pattern as exact text, not a regular expression."),
  ignoreCase: z
    .boolean()
    .optional()
    .describe(
      "true: ignore case; false: exact case. Omitted: smart case (exact only if pattern has capitals).",
    ),
  wholeWord: z.boolean().optional().describe("Match whole words only."),
  hidden: z.boolean().optional().describe("Search hidden files and directories (default true; .git never)."),
  context: z
    .number()
    .int()
    .min(CODE_CONTEXT_MIN_LINES)
    .max(CODE_CONTEXT_MAX_LINES)
    .optional()
    .describe("Lines of current-file context around each shown match (default 0)."),
  limit: z
    .number()
    .int()
    .min(CODE_LIMIT_MIN)
    .max(CODE_LIMIT_MAX)
    .optional()
    .describe("Matches per detail page. Setting it returns matches directly instead of a summary."),
  cursor: z
    .string()
    .min(1)
    .max(CODE_CURSOR_MAX_CHARS)
    .optional()
    .describe("Continue a previous result without searching again."),
  scope: z
    .enum(["strict", "expand"])
    .optional()
    .describe('"expand" (default): if path has no match, search the project root too. "strict": only path.'),
  mode: z
    .enum(["auto", "summary", "matches"])
    .optional()
    .describe(
      '"auto" (default): matches if they fit, else a file summary. "summary": files ranked by count. "matches": a detail page.',
    ),
  redact: z.boolean().optional().describe("Mask credential-like values in the shown text (display only)."),
  anyOf: z
    .array(z.string().min(1).max(ANYOF_TERM_MAX_BYTES))
    .min(ANYOF_TERMS_MIN)
    .max(ANYOF_TERMS_MAX)
    .optional()
    .describe(
      `Instead of pattern: ${ANYOF_TERMS_MIN}-${ANYOF_TERMS_MAX} exact texts found at once, each occurrence attributed to its term.`,
    ),
  changes: z
    .string()
    .min(1)
    .max(GIT_REVISION_MAX_CHARS)
    .optional()
    .describe(
      'Only what Git shows changed: "worktree" (vs HEAD), "staged", "BASE..TARGET" or "BASE...TARGET".',
    ),
  changeScope: z
    .enum(["lines", "files"])
    .optional()
    .describe('With changes: "lines" (default) keeps occurrences on changed lines, "files" whole files.'),
  changeSide: z
    .enum(["new", "old"])
    .optional()
    .describe('With changes: search the "new" (default) or the "old" content.'),
});

export type CodeSearchInput = z.output<typeof codeSearchInputSchema>;

const range = z.object({
  startByte: z.number(),
  endByte: z.number(),
  startColumn: z.number(),
  endColumn: z.number(),
});

const shownMatch = z.object({
  index: z.number(),
  path: z.string(),
  line: z.number(),
  text: z.string(),
  ranges: z.array(range),
  rangesOmitted: z.number(),
  excerpt: z.boolean(),
});

const fileRow = z.object({ path: z.string(), matches: z.number(), occurrences: z.number() });

const analysisItem = z.object({
  index: z.number(),
  kind: z.enum(["occurrence", "test", "imports", "imported-by", "unresolved"]),
  path: z.string(),
  line: z.number().optional(),
  startByte: z.number().optional(),
  endByte: z.number().optional(),
  /** 1-based UTF-16 columns, end exclusive. */
  startColumn: z.number().optional(),
  endColumn: z.number().optional(),
  text: z.string().optional(),
  term: z.string().optional(),
  role: z.string().optional(),
  note: z.string().optional(),
});

const coverageFact = z.object({
  status: z.enum(["complete", "partial", "not-evaluated", "not-run"]),
  detail: z.string().optional(),
});

const changesData = z.object({
  comparison: z.string(),
  side: z.enum(["new", "old"]),
  scope: z.enum(["lines", "files"]),
  source: z.enum(["worktree", "objects"]),
  filesChanged: z.number(),
  notCovered: z.array(z.object({ path: z.string(), reason: z.string() })),
});

export const codeSearchOutputSchema = z.object({
  status: z.enum(["complete", "partial"]),
  view: z.enum(["empty", "details", "summary", "analysis"]),
  pattern: z.string(),
  /** Absolute path of the project root searched (added by the tool, which resolves it). */
  projectRoot: z.string().optional(),
  requestedRoot: z.string(),
  effectiveRoot: z.string(),
  expanded: z.boolean(),
  totalMatches: z.number(),
  totalOccurrences: z.number(),
  totalFiles: z.number(),
  partialReason: z.string().optional(),
  searchErrors: z.number(),
  sourceUnverifiedFileCount: z.number(),
  cursor: z.string().optional(),
  cursorKind: z.enum(["summary", "matches", "analysis"]).optional(),
  shownFrom: z.number().optional(),
  shownTo: z.number().optional(),
  selection: z.array(z.string()).optional(),
  matches: z.array(shownMatch).optional(),
  files: z.array(fileRow).optional(),
  filesFrom: z.number().optional(),
  filesTo: z.number().optional(),
  summaryPreviewsShown: z.number().optional(),
  summaryPreviewsOmitted: z.number().optional(),
  occurrenceRangesOmitted: z.number(),
  occurrenceMatchesTruncated: z.number(),
  contextUnavailableFiles: z.array(z.string()).optional(),
  changedFiles: z.array(z.string()).optional(),
  changes: changesData.optional(),
  operation: z.enum(["anyOf", "impact", "imports", "tests"]).optional(),
  totalItems: z.number().optional(),
  itemsFrom: z.number().optional(),
  itemsTo: z.number().optional(),
  items: z.array(analysisItem).optional(),
  terms: z
    .array(z.object({ term: z.string(), occurrences: z.number(), files: z.number(), complete: z.boolean() }))
    .optional(),
  coverage: z.record(z.string(), coverageFact).optional(),
  budget: z.object({
    tier: z.enum(["default", "full", "tight", "critical"]),
    targetTokens: z.number(),
    adjusted: z.boolean(),
  }),
  redacted: z.boolean(),
});

export type CodeSearchOutput = z.output<typeof codeSearchOutputSchema>;
