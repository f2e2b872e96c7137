/**
 * Request normalization: the only place where code_search defaults are decided. The schema has
 * already checked types and bounds; this module tells the forms apart (FORMS, in order), applies
 * defaults, checks combinations of fields and hands the rest of the code one closed union of
 * requests, each answered by its handler (service.ts). No other module reads raw input.
 */
import { EvidentError } from "../core/errors.js";
import { ANYOF_TERM_MAX_BYTES, CODE_CONTEXT_DEFAULT_LINES, PARSE_FILES_DEFAULT } from "../core/limits.js";
import { type Phrasing, phrasingFor } from "../core/phrasing.js";
import type { CodeSearchInput } from "./schema.js";

/** `smart`: case-sensitive only when the pattern has an uppercase letter (ripgrep's -S). */
export type CaseMode = "smart" | "sensitive" | "insensitive";

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

/**
 * A Git comparison that scopes a search or an anyOf (code/changes/): the working tree or the
 * index against HEAD, or two commits (`mergeBase`: from the merge base of the two, as `A...B`).
 */
export interface ChangeSpec {
  readonly compare: "worktree" | "staged" | "commits";
  readonly base: string | undefined;
  readonly target: string | undefined;
  readonly mergeBase: boolean;
  /** As the caller wrote it. */
  readonly text: string;
  readonly scope: "lines" | "files";
  readonly side: "new" | "old";
}

/** What a form's reading gives when the input is that form. */
type Built<F extends (...args: never[]) => unknown> = Exclude<ReturnType<F>, undefined>;

/** What an inspection points at: a match of a cursor's result, or a place in a file. */
export type InspectTarget =
  | { readonly kind: "match"; readonly index: number }
  | { readonly kind: "line"; readonly path: string; readonly line: number }
  | { readonly kind: "symbol"; readonly path: string; readonly symbol: string };

/*
 * Each form's request is the shape its reading below builds: what a field means is said where
 * it is set.
 */
export type NewSearchRequest = Built<typeof searchForm>;
export type PageRequest = Built<typeof pageForm>;
/** Several literal terms at once; every occurrence is attributed to its term (code/analysis/). */
export type AnyOfRequest = Built<typeof anyOfForm>;
/** A structure search: an ast-grep pattern over the same file scope as a pattern search. */
export type StructureRequest = Built<typeof structureForm>;
export type InspectRequest = Built<typeof inspectionForm>;
/** Impact of one JS/TS/TSX symbol (code/analysis/impact.ts). */
export type ImpactRequest = Built<typeof impactForm>;
/** Import or test navigation from one file (code/analysis/navigation.ts). */
export type NavigateRequest = Built<typeof navigateForm>;
/** The rest of an earlier inspection, exactly as it was sealed. */
export type SourcePageRequest = Built<typeof sourcePageForm>;

export type CodeSearchRequest =
  | NewSearchRequest
  | StructureRequest
  | AnyOfRequest
  | PageRequest
  | InspectRequest
  | ImpactRequest
  | NavigateRequest
  | SourcePageRequest;

/**
 * The fields of a new search, in the order refusals name them, with the other forms that refuse
 * them: a cursor's page (`page`, which reports them as `cursor_option_conflict`), an inspection
 * (`inspect`), or both.
 */
const SEARCH_FIELDS = {
  pattern: "both",
  structure: "both",
  path: "page",
  paths: "inspect",
  glob: "both",
  exclude: "both",
  literal: "both",
  ignoreCase: "both",
  wholeWord: "both",
  hidden: "both",
  context: "inspect",
  limit: "inspect",
  scope: "both",
  mode: "inspect",
  maxParseFiles: "inspect",
  anyOf: "both",
  changes: "both",
  changeScope: "both",
  changeSide: "both",
  impact: "both",
  navigate: "both",
} as const satisfies Partial<Record<keyof CodeSearchInput, "page" | "inspect" | "both">>;

function searchFieldsRefusedBy(form: "page" | "inspect"): readonly (keyof typeof SEARCH_FIELDS)[] {
  return (Object.keys(SEARCH_FIELDS) as (keyof typeof SEARCH_FIELDS)[]).filter(
    (field) => SEARCH_FIELDS[field] === "both" || SEARCH_FIELDS[field] === form,
  );
}

const SEARCH_ONLY_FIELDS = searchFieldsRefusedBy("page");
const NOT_FOR_INSPECTION = searchFieldsRefusedBy("inspect");

/** The inspection forms; a request uses at most one. */
const INSPECTION_FORMS = ["inspect", "matchIndices", "line", "targets"] as const;

/** A field as the surface's caller writes it (`maxParseFiles`, `--max-parse-files`). */
type Arg = (name: string, value?: unknown) => string;

/**
 * One form's reading of the input: its request, undefined when the input is not that form, or
 * its refusal. A guard (a rule for every form after it) returns undefined or refuses.
 */
type Form = (input: CodeSearchInput, a: Arg) => CodeSearchRequest | undefined;

/**
 * The forms in the order they are told apart, which is also the order their refusals are
 * checked in: a request that breaks two rules hears about the first. A new form is one entry.
 */
const FORMS: readonly Form[] = [
  sourcePageForm,
  impactForm,
  navigateForm,
  inspectionForm,
  parseBoundNeedsStructure,
  pageForm,
  pathsNeedCursor,
  structureForm,
  anyOfForm,
  searchForm,
];

/** `phrasing` words the refusals for the surface; the rules are the same everywhere. */
export function normalizeRequest(
  input: CodeSearchInput,
  phrasing: Phrasing = phrasingFor("mcp"),
): CodeSearchRequest {
  const a: Arg = (name, value) => phrasing.arg("code_search", name, value);
  rejectNul(input);
  for (const form of FORMS) {
    const request = form(input, a);
    if (request !== undefined) return request;
  }
  throw new EvidentError("internal_error", "code_search: no request form took the input");
}

function sourcePageForm(input: CodeSearchInput, a: Arg) {
  if (input.sourceCursor === undefined) return undefined;
  const others = (Object.keys(input) as (keyof CodeSearchInput)[]).filter(
    (field) => field !== "sourceCursor" && field !== "redact" && input[field] !== undefined,
  );
  if (others.length > 0) {
    throw invalid(
      others[0] as string,
      `a ${a("sourceCursor")} continues an inspection exactly as it was; pass it alone (${a("redact")} may be repeated).`,
    );
  }
  return { kind: "source-page" as const, sourceCursor: input.sourceCursor, redact: input.redact ?? false };
}

function parseBoundNeedsStructure(input: CodeSearchInput, a: Arg): undefined {
  if (input.maxParseFiles !== undefined && input.structure === undefined) {
    throw invalid(
      "maxParseFiles",
      `${a("maxParseFiles")} bounds a structure search; it needs ${a("structure")}.`,
    );
  }
}

function pageForm(input: CodeSearchInput) {
  if (input.cursor === undefined) return undefined;
  return {
    kind: "page" as const,
    cursor: input.cursor,
    paths: input.paths,
    // Only `summary` and `matches` mean something with a cursor; `auto` reads as omitted.
    mode: input.mode === "auto" ? undefined : input.mode,
    // Undefined when the caller did not set one; pages then use the default page size.
    limit: input.limit,
    context: input.context ?? CODE_CONTEXT_DEFAULT_LINES,
    redact: input.redact ?? false,
    // Fields that cannot go with a cursor. They are reported as `cursor_option_conflict` only
    // after the cursor itself has been validated, so a bad cursor is always named first.
    conflicts: SEARCH_ONLY_FIELDS.filter((field) => input[field] !== undefined),
  };
}

/** Match numbers given without the result they number. */
function numbersWithoutCursor(field: string, a: Arg): EvidentError {
  return invalid(field, `match numbers [n] belong to a result: pass its ${a("cursor")} too.`);
}

function pathsNeedCursor(input: CodeSearchInput, a: Arg): undefined {
  if (input.paths !== undefined) {
    throw invalid(
      "paths",
      `${a("paths")} selects files of an earlier result and needs a ${a("cursor")}; use ${a("path")} to search.`,
    );
  }
}

function searchForm(input: CodeSearchInput, a: Arg) {
  const changes = changeSpec(input, a);
  if (input.pattern === undefined) {
    throw invalid(
      "pattern",
      `${a("pattern")} is required (or ${a("anyOf")} for several exact texts, ${a("structure")} for a code pattern, ${a("cursor")} to continue an earlier result, or ${a("path")} with ${a("line")} or ${a("symbol")} to inspect).`,
    );
  }
  if (/[\r\n]/.test(input.pattern)) {
    throw invalid(
      "pattern",
      "matches are found within single lines, so a pattern cannot contain a line break.",
    );
  }
  return { kind: "search" as const, query: queryOf(input, input.pattern), changes, ...answerOptions(input) };
}

/** What a search and a structure search share: where they look and how they answer. */
function answerOptions(input: CodeSearchInput) {
  return {
    // The path as the caller wrote it; undefined means the project root.
    path: input.path,
    scope: input.scope ?? ("expand" as const),
    mode: input.mode ?? ("auto" as const),
    // `auto` was chosen by default, not asked for: only then may the context budget adapt.
    modeImplicit: input.mode === undefined,
    limit: input.limit,
    context: input.context ?? CODE_CONTEXT_DEFAULT_LINES,
    redact: input.redact ?? false,
  };
}

function queryOf(input: CodeSearchInput, pattern: string): SearchQuery {
  return {
    pattern,
    literal: input.literal ?? false,
    caseMode: input.ignoreCase === undefined ? "smart" : input.ignoreCase ? "insensitive" : "sensitive",
    wholeWord: input.wholeWord ?? false,
    hidden: input.hidden ?? true,
    globs: asList(input.glob),
    excludes: asList(input.exclude),
  };
}

function anyOfForm(input: CodeSearchInput, a: Arg) {
  const terms = input.anyOf;
  if (terms === undefined) return undefined;
  const changes = changeSpec(input, a);
  const conflicts: [keyof CodeSearchInput, string][] = [
    ["pattern", `${a("anyOf")} replaces ${a("pattern")}; give the pattern as one of its terms`],
    ["literal", "its terms are always exact text"],
    ["mode", `its answers are pages of occurrences; continue them with the ${a("cursor")}`],
    ["context", "it shows each occurrence's own line; search a term alone for context lines"],
  ];
  for (const [field, why] of conflicts) {
    if (input[field] !== undefined) throw invalid(field, `${a(field)} cannot go with ${a("anyOf")}: ${why}.`);
  }
  const seen = new Set<string>();
  for (const [i, term] of terms.entries()) {
    if (/[\r\n]/.test(term)) {
      throw invalid(
        `anyOf[${i}]`,
        "a term is matched within single lines, so it cannot contain a line break.",
      );
    }
    if (Buffer.byteLength(term, "utf8") > ANYOF_TERM_MAX_BYTES) {
      throw invalid(`anyOf[${i}]`, `a term is at most ${ANYOF_TERM_MAX_BYTES} bytes in UTF-8.`);
    }
    if (seen.has(term)) throw invalid(`anyOf[${i}]`, `the term ${JSON.stringify(term)} is given twice.`);
    seen.add(term);
  }
  return {
    kind: "anyOf" as const,
    terms,
    // The file scope and matching options shared by every term (`pattern` and `literal` unused).
    query: queryOf(input, ""),
    changes,
    path: input.path,
    scope: input.scope ?? ("expand" as const),
    limit: input.limit,
    redact: input.redact ?? false,
  };
}

function structureForm(input: CodeSearchInput, a: Arg) {
  const structure = input.structure;
  if (structure === undefined) return undefined;
  for (const field of ["pattern", "literal", "ignoreCase", "wholeWord"] as const) {
    if (input[field] !== undefined) {
      throw invalid(
        field,
        `${a(field)} belongs to a text pattern; a structure pattern matches code as ast-grep parses it.`,
      );
    }
  }
  // Taken and dropped, these would answer over the whole tree as if they had applied.
  if (input.anyOf !== undefined) {
    throw invalid(
      "anyOf",
      `${a("anyOf")} cannot go with ${a("structure")}: they are two kinds of search; give one.`,
    );
  }
  for (const field of ["changes", "changeScope", "changeSide"] as const) {
    if (input[field] !== undefined) {
      throw invalid(
        field,
        `${a(field)} does not apply to a structure search, which is not scoped to Git changes; search changed lines with ${a("pattern")} or ${a("anyOf")}, or omit it.`,
      );
    }
  }
  return {
    kind: "structure" as const,
    structure,
    maxParseFiles: input.maxParseFiles ?? PARSE_FILES_DEFAULT,
    // The text-matching options were refused above; the query keeps the file scope.
    query: { ...queryOf(input, structure), caseMode: "sensitive" as const },
    changes: undefined,
    ...answerOptions(input),
  };
}

/**
 * The inspection forms, checked before anything is read: one match index or 1-5 of them with a
 * cursor; path with line or symbol; or 1-5 `targets`. Undefined when the request is not one.
 */
function inspectionForm(
  input: CodeSearchInput,
  a: Arg,
):
  | {
      readonly kind: "inspect";
      /** Set for match targets: the result whose matches they name. */
      readonly cursor: string | undefined;
      /** 1 to INSPECT_TARGETS_MAX, all of one form. */
      readonly targets: readonly InspectTarget[];
      readonly redact: boolean;
    }
  | undefined {
  const forms = INSPECTION_FORMS.filter((form) => input[form] !== undefined);
  if (input.symbol !== undefined && !forms.includes("line")) forms.push("line");
  if (forms.length === 0) return undefined;
  if (forms.length > 1) {
    const named = [...new Set(forms.map((f) => (f === "line" ? `${a("line")}/${a("symbol")}` : a(f))))];
    throw invalid(
      forms[1] as string,
      `${named.join(" and ")} are different ways to inspect; use one per call.`,
    );
  }
  const form = forms[0] as (typeof INSPECTION_FORMS)[number];
  const redact = input.redact ?? false;
  const stray = NOT_FOR_INSPECTION.find((field) => input[field] !== undefined);
  if (stray !== undefined) {
    throw invalid(stray, `${a(stray)} does not apply to an inspection, which shows whole symbols; omit it.`);
  }
  if (form === "inspect" || form === "matchIndices") {
    if (input.cursor === undefined) {
      throw numbersWithoutCursor(form, a);
    }
    if (input.path !== undefined) throw invalid("path", `a match already names its file; omit ${a("path")}.`);
    const indices = form === "inspect" ? [input.inspect as number] : (input.matchIndices as number[]);
    return {
      kind: "inspect",
      cursor: input.cursor,
      targets: indices.map((index) => ({ kind: "match", index })),
      redact,
    };
  }
  if (input.cursor !== undefined) {
    throw invalid(
      "cursor",
      `a ${a("cursor")} goes with ${a("inspect")} or ${a("matchIndices")} (match numbers); ${a("path")} targets need none.`,
    );
  }
  if (form === "targets") {
    if (input.path !== undefined) throw invalid("path", `each target names its own path; omit ${a("path")}.`);
    const targets = (input.targets ?? []).map((t, i) =>
      directTarget(t.path, t.line, t.symbol, `targets[${i}]`, a),
    );
    return { kind: "inspect", cursor: undefined, targets, redact };
  }
  if (input.path === undefined)
    throw invalid(input.line !== undefined ? "line" : "symbol", `name the file with ${a("path")}.`);
  return {
    kind: "inspect",
    cursor: undefined,
    targets: [directTarget(input.path, input.line, input.symbol, "line", a)],
    redact,
  };
}

/** Fields an impact or navigation request may carry besides its own. */
const ANALYSIS_SCOPE_FIELDS = ["glob", "exclude", "hidden", "maxParseFiles", "limit", "redact"] as const;

function refuseOthers(
  input: CodeSearchInput,
  own: readonly (keyof CodeSearchInput)[],
  what: string,
  a: Arg,
): void {
  const allowed = new Set<string>([...own, ...ANALYSIS_SCOPE_FIELDS]);
  const stray = (Object.keys(input) as (keyof CodeSearchInput)[]).find(
    (field) => input[field] !== undefined && !allowed.has(field),
  );
  if (stray !== undefined) throw invalid(stray, `${a(stray)} does not apply to ${what}; omit it.`);
}

/** What an impact or navigation request takes besides its own fields (ANALYSIS_SCOPE_FIELDS). */
function analysisScope(input: CodeSearchInput) {
  const query: SearchQuery = {
    pattern: "",
    literal: true,
    caseMode: "sensitive",
    wholeWord: true,
    hidden: input.hidden ?? true,
    globs: asList(input.glob),
    excludes: asList(input.exclude),
  };
  return {
    query,
    maxParseFiles: input.maxParseFiles ?? PARSE_FILES_DEFAULT,
    limit: input.limit,
    redact: input.redact ?? false,
  };
}

/** impact=true with one target: path with line or symbol, or a cursor with inspect=[n]. */
function impactForm(input: CodeSearchInput, a: Arg) {
  if (input.impact === undefined) return undefined;
  if (input.impact !== true) throw invalid("impact", `set ${a("impact", true)}, or omit it.`);
  refuseOthers(
    input,
    ["impact", "path", "line", "symbol", "cursor", "inspect"],
    `${a("impact")}, which takes one symbol`,
    a,
  );
  let target: InspectTarget;
  if (input.inspect !== undefined) {
    if (input.cursor === undefined) throw numbersWithoutCursor("inspect", a);
    if (input.path !== undefined || input.line !== undefined || input.symbol !== undefined) {
      throw invalid(
        "path",
        `a match already names its file and line; omit ${a("path")}, ${a("line")} and ${a("symbol")}.`,
      );
    }
    target = { kind: "match", index: input.inspect };
  } else {
    if (input.cursor !== undefined)
      throw invalid(
        "cursor",
        `a ${a("cursor")} goes with ${a("inspect")}; a ${a("path")} target needs none.`,
      );
    if (input.path === undefined) {
      throw invalid(
        "path",
        `${a("impact")} needs its symbol: ${a("path")} with ${a("line")} or ${a("symbol")}, or a ${a("cursor")} with ${a("inspect")}.`,
      );
    }
    target = directTarget(
      input.path,
      input.line,
      input.symbol,
      input.line !== undefined ? "line" : "symbol",
      a,
    );
  }
  return {
    kind: "impact" as const,
    target,
    // Set for a match target: the result whose match it names.
    cursor: input.cursor,
    ...analysisScope(input),
  };
}

function navigateForm(input: CodeSearchInput, a: Arg) {
  const direction = input.navigate;
  if (direction === undefined) return undefined;
  const navigate = a("navigate", direction);
  refuseOthers(input, ["navigate", "path"], `${navigate}, which starts from one file`, a);
  if (input.path === undefined)
    throw invalid("path", `${navigate} starts from a file: give its ${a("path")}.`);
  return {
    kind: "navigate" as const,
    direction,
    path: input.path,
    ...analysisScope(input),
  };
}

function directTarget(
  path: string,
  line: number | undefined,
  symbol: string | undefined,
  field: string,
  a: Arg,
): InspectTarget {
  if ((line === undefined) === (symbol === undefined)) {
    throw invalid(field, `give a ${a("line")} or a ${a("symbol")} (one of them) to inspect in the file.`);
  }
  return line !== undefined
    ? { kind: "line", path, line }
    : { kind: "symbol", path, symbol: symbol as string };
}

/** A Git revision as the caller may name it: no option, no whitespace or control characters. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
const REVISION = /^[^-\s\0-\x1f\x7f][^\s\0-\x1f\x7f]*$/;

function changeSpec(input: CodeSearchInput, a: Arg): ChangeSpec | undefined {
  const text = input.changes;
  if (text === undefined) {
    for (const field of ["changeScope", "changeSide"] as const) {
      if (input[field] !== undefined)
        throw invalid(field, `${a(field)} needs ${a("changes")} (e.g. "worktree").`);
    }
    return undefined;
  }
  const common = { text, scope: input.changeScope ?? "lines", side: input.changeSide ?? "new" } as const;
  if (text === "worktree" || text === "staged") {
    return { compare: text, base: undefined, target: undefined, mergeBase: false, ...common };
  }
  const range = /^(.*?)(\.\.\.?)(.*)$/s.exec(text);
  const base = range?.[1] ?? "";
  const target = range?.[3] === "" ? "HEAD" : (range?.[3] ?? "");
  if (range === null || !REVISION.test(base) || !REVISION.test(target) || target.includes("..")) {
    throw invalid(
      "changes",
      'use "worktree" (working tree vs HEAD), "staged" (index vs HEAD), "BASE..TARGET" (two commits) ' +
        'or "BASE...TARGET" (TARGET against its merge base with BASE); a revision cannot start with "-" or hold spaces.',
    );
  }
  return { compare: "commits", base, target, mergeBase: range[2] === "...", ...common };
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

/** A match found in content read from Git objects (an old side, the index, commits). */
export function historicalMatch(described: string, historical: string): EvidentError {
  return invalid(
    "inspect",
    `${described} was found in content read from Git objects (${historical}), not in the working tree, so it is not tied to any file's current lines and a new search would not change that; inspect the current file by path and line instead.`,
  );
}
