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
  INSPECT_SYMBOL_MAX_CHARS,
  INSPECT_TARGETS_MAX,
  INSPECT_TARGETS_MIN,
  PARSE_FILES_MAX,
  PARSE_FILES_MIN,
  SOURCE_CURSOR_MAX_CHARS,
} from "../core/limits.js";

const glob = z.string().min(1).max(CODE_PATH_MAX_CHARS);
/**
 * A list of globs. One glob given as a plain string is still accepted (and read as a list of
 * one) but not advertised: the published schema shows one shape, a list, since some
 * function-calling APIs reject alternatives. The cast keeps both shapes in the SDK's input type.
 */
const globs = z.preprocess(
  (value) => (typeof value === "string" ? [value] : value),
  z.array(glob).min(1).max(CODE_GLOBS_MAX),
) as unknown as z.ZodType<string[], string | string[]>;
const filePath = z.string().min(1).max(CODE_PATH_MAX_CHARS);
const lineNumber = z.number().int().min(1);
const symbolName = z.string().min(1).max(INSPECT_SYMBOL_MAX_CHARS);

/**
 * Property descriptions are short: they travel with every agent turn. What each option does in
 * full, with defaults and limits, is in the guide (`{"guide": true}`, tools/code-search-guide.ts).
 */
export const codeSearchInputSchema = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .max(CODE_PATTERN_MAX_CHARS)
    .optional()
    .describe("Rust regex; exact text with literal."),
  path: z
    .string()
    .min(1)
    .max(CODE_PATH_MAX_CHARS)
    .optional()
    .describe("File or directory; default: the project root."),
  paths: z
    .array(z.string().min(1).max(CODE_PATH_MAX_CHARS))
    .min(CODE_PATHS_MIN)
    .max(CODE_PATHS_MAX)
    .optional()
    .describe("With cursor: only these files of the result."),
  glob: globs.optional().describe('Only matching files, e.g. ["src/**","!*.test.ts"].'),
  exclude: globs.optional().describe('Skip matching files or directories, e.g. ["dist"].'),
  literal: z.boolean().optional(),
  ignoreCase: z.boolean().optional().describe("Omitted: smart case."),
  wholeWord: z.boolean().optional(),
  hidden: z.boolean().optional().describe("Default true; .git never."),
  context: z.number().int().min(CODE_CONTEXT_MIN_LINES).max(CODE_CONTEXT_MAX_LINES).optional(),
  limit: z
    .number()
    .int()
    .min(CODE_LIMIT_MIN)
    .max(CODE_LIMIT_MAX)
    .optional()
    .describe("Matches per page; returns matches, not a summary."),
  cursor: z
    .string()
    .min(1)
    .max(CODE_CURSOR_MAX_CHARS)
    .optional()
    .describe("Continue a result without searching again."),
  scope: z
    .enum(["strict", "expand"])
    .optional()
    .describe("expand (default): no match in path, search the root."),
  mode: z.enum(["auto", "summary", "matches"]).optional(),
  redact: z.boolean().optional().describe("Mask secrets in the shown text."),
  anyOf: z
    .array(z.string().min(1).max(ANYOF_TERM_MAX_BYTES))
    .min(ANYOF_TERMS_MIN)
    .max(ANYOF_TERMS_MAX)
    .optional()
    .describe(`Instead of pattern: ${ANYOF_TERMS_MIN}-${ANYOF_TERMS_MAX} exact texts.`),
  changes: z
    .string()
    .min(1)
    .max(GIT_REVISION_MAX_CHARS)
    .optional()
    .describe("worktree, staged, BASE..TARGET or BASE...TARGET: only what Git changed."),
  changeScope: z.enum(["lines", "files"]).optional(),
  changeSide: z.enum(["new", "old"]).optional(),
  inspect: lineNumber.optional().describe("With cursor: inspect match [n]."),
  matchIndices: z
    .array(lineNumber)
    .min(INSPECT_TARGETS_MIN)
    .max(INSPECT_TARGETS_MAX)
    .optional()
    .describe(`With cursor: up to ${INSPECT_TARGETS_MAX} matches [n].`),
  line: lineNumber.optional().describe("With path: inspect the symbol around this line."),
  symbol: symbolName.optional().describe("With path: inspect this symbol, e.g. Parser.parse."),
  targets: z
    .array(z.strictObject({ path: filePath, line: lineNumber.optional(), symbol: symbolName.optional() }))
    .min(INSPECT_TARGETS_MIN)
    .max(INSPECT_TARGETS_MAX)
    .optional()
    .describe(`Up to ${INSPECT_TARGETS_MAX} {path,line} or {path,symbol}.`),
  sourceCursor: z
    .string()
    .min(1)
    .max(SOURCE_CURSOR_MAX_CHARS)
    .optional()
    .describe("Alone: the rest of an inspection."),
  structure: z
    .string()
    .min(1)
    .max(CODE_PATTERN_MAX_CHARS)
    .optional()
    .describe("Instead of pattern: ast-grep pattern, e.g. console.log($A)."),
  maxParseFiles: z.number().int().min(PARSE_FILES_MIN).max(PARSE_FILES_MAX).optional(),
  impact: z.boolean().optional().describe("With a symbol to inspect: its uses by role, then tests."),
  navigate: z
    .enum(["imports", "tests"])
    .optional()
    .describe("With path: its imports both ways, or its tests."),
  guide: z.boolean().optional().describe("true, alone: the guide to every option."),
});

export type CodeSearchInput = z.output<typeof codeSearchInputSchema>;

const structureNode = z.object({
  startLine: z.number(),
  startColumn: z.number(),
  endLine: z.number(),
  endColumn: z.number(),
  /** The smallest symbol enclosing the node, if a symbol does. */
  symbol: z.string().optional(),
});

const lineSpan = z.object({
  startLine: z.number(),
  endLine: z.number(),
  startByte: z.number(),
  endByte: z.number(),
});

const inspection = z.object({
  /** 1-based position of the target in the request. */
  input: z.number(),
  target: z.object({
    match: z.number().optional(),
    path: z.string().optional(),
    line: z.number().optional(),
    symbol: z.string().optional(),
  }),
  status: z.enum(["complete", "partial", "error"]),
  path: z.string().optional(),
  range: lineSpan.optional(),
  symbol: z.object({ name: z.string(), qualifiedName: z.string(), kind: z.string() }).optional(),
  /** How the range was found: `symbol` (by provider), else why not (the range is then an excerpt). */
  syntax: z
    .object({
      status: z.enum(["symbol", "no_symbol", "no_provider", "parse_error", "changed"]),
      provider: z.enum(["ast-grep", "ctags"]).optional(),
      reason: z.string().optional(),
    })
    .optional(),
  /** Position (0-based) in `fragments` of the fragment holding this range. */
  fragment: z.number().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

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
  /** Structure search: the whole matched node, and the symbol it sits in. */
  node: structureNode.optional(),
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

/**
 * One fact of coverage (occurrences, syntax, retention, tests...), each observable on its own
 * (G05), with counts by outcome where there are some (files parsed or skipped by reason, bytes).
 */
const coverageFact = z.object({
  status: z.enum(["complete", "partial", "none", "not-evaluated", "not-run"]),
  detail: z.string().optional(),
  counts: z.record(z.string(), z.number()).optional(),
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
  view: z.enum(["empty", "details", "summary", "analysis", "inspection", "guide"]),
  /** Guide view: the guide's text (also the answer's text). */
  guide: z.string().optional(),
  /** Search views (pattern or structure search, and their cursor pages). */
  pattern: z.string().optional(),
  structure: z.string().optional(),
  /** Absolute path of the project root searched (added by the tool, which resolves it). */
  projectRoot: z.string().optional(),
  requestedRoot: z.string().optional(),
  effectiveRoot: z.string().optional(),
  expanded: z.boolean().optional(),
  totalMatches: z.number().optional(),
  totalOccurrences: z.number().optional(),
  totalFiles: z.number().optional(),
  partialReason: z.string().optional(),
  searchErrors: z.number().optional(),
  sourceUnverifiedFileCount: z.number().optional(),
  cursor: z.string().optional(),
  cursorKind: z.enum(["summary", "matches", "analysis"]).optional(),
  /** The cursor the shown match numbers [n] belong to, for inspect and matchIndices. */
  inspectCursor: z.string().optional(),
  /**
   * A folder of installed or generated code (node_modules, vendor, dist...) holding most of the
   * result: its name, its path when it is one directory, its matching lines (occurrences for
   * anyOf and impact), and the whole `exclude` list that would leave it out.
   */
  vendoredFolder: z
    .object({
      folder: z.string(),
      path: z.string().optional(),
      matches: z.number(),
      exclude: z.array(z.string()),
    })
    .optional(),
  shownFrom: z.number().optional(),
  shownTo: z.number().optional(),
  selection: z.array(z.string()).optional(),
  matches: z.array(shownMatch).optional(),
  files: z.array(fileRow).optional(),
  filesFrom: z.number().optional(),
  filesTo: z.number().optional(),
  summaryPreviewsShown: z.number().optional(),
  summaryPreviewsOmitted: z.number().optional(),
  occurrenceRangesOmitted: z.number().optional(),
  occurrenceMatchesTruncated: z.number().optional(),
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
  budget: z
    .object({
      tier: z.enum(["default", "full", "tight", "critical"]),
      targetTokens: z.number(),
      adjusted: z.boolean(),
    })
    .optional(),
  redacted: z.boolean(),
  /** Inspection view. */
  inspections: z.array(inspection).optional(),
  fragments: z.array(lineSpan.extend({ path: z.string(), text: z.string(), lossy: z.boolean() })).optional(),
  sourceCursor: z.string().optional(),
  /** Exactly the bytes `sourceCursor` continues with. */
  remaining: z.array(z.object({ path: z.string(), startByte: z.number(), endByte: z.number() })).optional(),
});

export type CoverageFact = z.output<typeof coverageFact>;
/** A coverage fact with its counts. */
export type CountedFact = CoverageFact & { readonly counts: Record<string, number> };
/**
 * The coverage facts of a structure search or an inspection (entries of the `coverage` record;
 * one that does not apply is left out).
 */
export type CodeSearchCoverage = {
  readonly occurrences?: CountedFact;
  readonly syntax?: CountedFact;
  readonly retention: CountedFact;
};
export type InspectionOutcome = z.output<typeof inspection>;
export type StructureNode = z.output<typeof structureNode>;

export type CodeSearchOutput = z.output<typeof codeSearchOutputSchema>;
