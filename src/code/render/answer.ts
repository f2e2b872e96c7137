/**
 * What every code_search answer says around its page: the header line, the notes that make
 * partial, widened, unverified or budget-shaped evidence explicit, and the structured data
 * shared by all views. Kept apart from the policy so the wording lives in one place.
 */

import {
  MAX_SOURCE_REVISION_FILES,
  PARSE_BYTES_MAX,
  SNAPSHOT_MAX_BYTES,
  SNAPSHOT_MAX_MATCHES,
  SNAPSHOT_MAX_OCCURRENCES,
} from "../../core/limits.js";
import type { Phrasing } from "../../core/phrasing.js";
import { counted } from "../../core/plural.js";
import type { SearchQuery } from "../request.js";
import type { PartialReason } from "../rg/content-search.js";
import type { CodeSearchOutput } from "../schema.js";
import type { SnapshotData, SnapshotFile, StructureSnapshot } from "../snapshots/store.js";
import type { ContextBudget } from "./budget.js";
import { changesData, changesNote } from "./changes.js";
import { type DetailPage, printablePath } from "./detail-page.js";
import { dominantVendoredFolder, type VendoredFolder, vendoredData, vendoredNote } from "./vendored.js";

/** How each retention stop reads in the text. */
const PARTIAL_TEXT: Record<PartialReason, string> = {
  max_matches: `${SNAPSHOT_MAX_MATCHES} retained matching lines`,
  max_occurrences: `${SNAPSHOT_MAX_OCCURRENCES} retained occurrences`,
  max_bytes: `${SNAPSHOT_MAX_BYTES / (1024 * 1024)} MiB of retained text`,
  protocol_line_limit: "a line too long to read",
};

export function fileRow(file: SnapshotFile) {
  return { path: file.path, matches: file.matches, occurrences: file.occurrences };
}

export function rootName(root: string): string {
  return root === "." ? "the project root" : `"${root}"`;
}

/** The roots a result records: the path asked for, the one searched, and whether it widened. */
export interface SearchScope {
  readonly requestedRoot: string;
  readonly effectiveRoot: string;
  readonly expanded: boolean;
}

/**
 * Where a result looked, as its first line says it: a widening is said there, up front, never
 * only in a note an agent may read past.
 */
export function scopeText(scope: SearchScope): string {
  if (!scope.expanded) return `in ${rootName(scope.effectiveRoot)}`;
  return `in ${rootName(scope.effectiveRoot)}, widened from "${scope.requestedRoot}" where nothing matched (same filters; "scope": "strict" keeps to the path)`;
}

/** What was searched, as the text names it: the pattern (or structure pattern) and its options. */
export function describeSearch(snapshot: SnapshotData): string {
  return snapshot.structure === undefined
    ? describeQuery(snapshot.query)
    : `structure ${describeQuery(snapshot.query, true)}`;
}

export function describeQuery(query: SearchQuery, structure = false): string {
  const flags: string[] = [];
  if (!structure) {
    flags.push(query.literal ? "literal" : "regex");
    flags.push(
      query.caseMode === "smart"
        ? "smart case"
        : query.caseMode === "insensitive"
          ? "ignoring case"
          : "exact case",
    );
  }
  if (query.wholeWord) flags.push("whole words");
  if (!query.hidden) flags.push("no hidden files");
  if (query.globs.length > 0) flags.push(`glob ${query.globs.join(" ")}`);
  if (query.excludes.length > 0) flags.push(`excluding ${query.excludes.join(" ")}`);
  return flags.length === 0
    ? JSON.stringify(query.pattern)
    : `${JSON.stringify(query.pattern)} (${flags.join(", ")})`;
}

/** Counted once per snapshot: a broad result has tens of thousands of files to look up. */
const unverifiedCounts = new WeakMap<SnapshotData, number>();

export function unverifiedCount(snapshot: SnapshotData): number {
  let count = unverifiedCounts.get(snapshot);
  if (count === undefined) {
    // Lines read from Git objects are the objects' own bytes: there is no file to verify.
    count =
      snapshot.changes?.source === "objects"
        ? 0
        : snapshot.files.filter((f) => !Object.hasOwn(snapshot.trustedRevisions, f.key)).length;
    unverifiedCounts.set(snapshot, count);
  }
  return count;
}

/** Found once per snapshot, like the unverified count: every page of it says the same. */
const vendoredFolders = new WeakMap<SnapshotData, VendoredFolder | null>();

/** The folder of installed or generated code that holds most matching lines, if one does. */
export function vendoredFolder(snapshot: SnapshotData): VendoredFolder | undefined {
  let found = vendoredFolders.get(snapshot);
  if (found === undefined) {
    found =
      dominantVendoredFolder(
        snapshot.files.map((file) => ({ path: file.path, count: file.matches })),
        snapshot.matches.length,
        {
          effectiveRoot: snapshot.effectiveRoot,
          globs: snapshot.query.globs,
          excludes: snapshot.query.excludes,
        },
      ) ?? null;
    vendoredFolders.set(snapshot, found);
  }
  return found ?? undefined;
}

export function notesText(snapshot: SnapshotData, budget: ContextBudget, phrasing: Phrasing): string {
  const notes: string[] = [];
  const vendored = vendoredFolder(snapshot);
  if (vendored !== undefined) {
    notes.push(
      vendoredNote(vendored, snapshot.structure === undefined ? "matching lines" : "matches", phrasing),
    );
  }
  if (snapshot.partialReason !== undefined) {
    notes.push(
      `PARTIAL: retention stopped at ${PARTIAL_TEXT[snapshot.partialReason]}${snapshot.longLineFile === undefined ? "" : ` (in ${printablePath(snapshot.longLineFile)})`}; more matches exist than are counted here. ` +
        "Narrow the pattern, path or glob for complete evidence.",
    );
  }
  if (snapshot.changes !== undefined) notes.push(changesNote(snapshot.changes));
  if (snapshot.searchErrors > 0) {
    notes.push(`ripgrep could not read ${snapshot.searchErrors} file(s); their contents are not covered.`);
  }
  const unverified = unverifiedCount(snapshot);
  if (unverified > 0) {
    notes.push(
      `${unverified} file(s) could not be verified as unchanged during the search (edited meanwhile, new since ` +
        `the last file listing, unreadable, or beyond the ${MAX_SOURCE_REVISION_FILES} files whose revisions are ` +
        "recorded). Their lines are what ripgrep read and still count, but no current-file context is shown for them.",
    );
  }
  if (snapshot.structure !== undefined) notes.push(structureCoverageText(snapshot.structure, phrasing));
  if (budget.adjusted) {
    notes.push(`Context is ${budget.tier}: this answer was sized for about ${budget.targetTokens} tokens.`);
  }
  return notes.length === 0 ? "" : `\n${notes.join("\n")}`;
}

/** Retention stopped early, a change scope left changed files out, or a structure search did not parse every candidate. */
export function isPartial(snapshot: SnapshotData): boolean {
  return (
    snapshot.partialReason !== undefined ||
    (snapshot.changes?.notCovered.length ?? 0) > 0 ||
    (snapshot.structure?.coverage.syntax?.status ?? "complete") !== "complete"
  );
}

/**
 * A structure search's three coverages, each on its own (G05): the candidate listing (exact
 * occurrences of the prefilter word), what was parsed, and what was retained.
 */
export function structureCoverageText(structure: StructureSnapshot, phrasing: Phrasing): string {
  const { retention } = structure.coverage;
  const occurrences = structure.coverage.occurrences ?? { status: "complete", counts: {} };
  const syntax = structure.coverage.syntax ?? { status: "complete", counts: {} };
  const listed =
    structure.prefilter === undefined
      ? `${occurrences.counts.candidateFiles} files in scope (the pattern has no literal word to prefilter with)`
      : `${occurrences.counts.candidateFiles} files in scope contain "${structure.prefilter}"`;
  const notParsed = Object.entries(syntax.counts)
    .filter(([key]) => key !== "parsed" && key !== "parsed_with_syntax_errors")
    .map(([key, n]) => `${n} ${skipText(key, phrasing)}`);
  const withErrors = syntax.counts.parsed_with_syntax_errors;
  const parsed =
    `${syntax.counts.parsed ?? 0} parsed` +
    (withErrors === undefined ? "" : ` (${withErrors} with syntax errors, where matches may be missed)`) +
    (notParsed.length === 0 ? "" : `; not searched: ${notParsed.join(", ")}`);
  return (
    `Coverage: occurrences ${occurrences.status}: ${listed}; syntax ${syntax.status}: ${parsed}; ` +
    `retention ${retention.status}: ${retention.counts.matches} matches kept.`
  );
}

/** Why a structure candidate was not searched, as the text says it. */
function skipText(reason: string, phrasing: Phrasing): string {
  const arg = (name: string) => phrasing.arg("code_search", name);
  const text: Record<string, string> = {
    no_provider: "with no parser here",
    parse_error: "that failed to parse",
    oversized: "over the 5 MiB document bound",
    unreadable: "unreadable",
    changed: "changed while read",
    over_budget: `over the parse budget (${arg("maxParseFiles")} files and ${PARSE_BYTES_MAX / (1024 * 1024)} MiB of source a call; raise ${arg("maxParseFiles")}, or narrow ${arg("path")} or ${arg("glob")})`,
    pattern_not_valid_here: "in a language the pattern is not valid code in",
    not_searched_retention: "left after the retention bound was reached",
  };
  return text[reason] ?? reason;
}

export function frameText(snapshot: SnapshotData, budget: ContextBudget, phrasing: Phrasing): string {
  const count = isPartial(snapshot) ? "at least " : "";
  const unit = snapshot.structure === undefined ? ["matching line", "matching lines"] : ["match", "matches"];
  const head =
    `code_search ${describeSearch(snapshot)} ${scopeText(snapshot)}: ` +
    `${count}${counted(snapshot.matches.length, unit[0] as string, unit[1])} (${counted(snapshot.totalOccurrences, "occurrence")}) in ${counted(snapshot.files.length, "file")}.`;
  return `${head}${notesText(snapshot, budget, phrasing)}\n`;
}

export function pageNotes(page: DetailPage): string {
  const notes: string[] = [];
  if (page.changedFiles.length > 0) {
    notes.push(
      `Changed since the search: ${page.changedFiles.map(printablePath).join(", ")}. The lines shown are as searched; the files now differ.`,
    );
  }
  const unavailable = page.contextUnavailableFiles.filter((f) => !page.changedFiles.includes(f));
  if (unavailable.length > 0) {
    notes.push(
      `No context for ${unavailable.map(printablePath).join(", ")}: the revision is unverified, too large, or unreadable.`,
    );
  }
  return notes.length === 0 ? "" : `${notes.join("\n")}\n`;
}

export function shownData(page: DetailPage): NonNullable<CodeSearchOutput["matches"]> {
  return page.shown.map((m) => ({ ...m, ranges: [...m.ranges] }));
}

export function pageData(page: DetailPage) {
  return {
    occurrenceRangesOmitted: page.rangesOmitted,
    occurrenceMatchesTruncated: page.matchesTruncated,
    ...(page.contextUnavailableFiles.length === 0
      ? {}
      : { contextUnavailableFiles: [...page.contextUnavailableFiles] }),
    ...(page.changedFiles.length === 0 ? {} : { changedFiles: [...page.changedFiles] }),
  };
}

export function baseData(
  snapshot: SnapshotData,
  view: CodeSearchOutput["view"],
  budget: ContextBudget,
  redact: boolean,
  extra: Partial<CodeSearchOutput>,
): CodeSearchOutput {
  return {
    status: isPartial(snapshot) ? "partial" : "complete",
    view,
    ...(snapshot.structure === undefined
      ? { pattern: snapshot.query.pattern }
      : { structure: snapshot.structure.pattern, coverage: snapshot.structure.coverage }),
    requestedRoot: snapshot.requestedRoot,
    effectiveRoot: snapshot.effectiveRoot,
    expanded: snapshot.expanded,
    totalMatches: snapshot.matches.length,
    totalOccurrences: snapshot.totalOccurrences,
    totalFiles: snapshot.files.length,
    ...(snapshot.partialReason === undefined ? {} : { partialReason: snapshot.partialReason }),
    ...(snapshot.changes === undefined ? {} : { changes: changesData(snapshot.changes) }),
    ...vendoredData(vendoredFolder(snapshot)),
    searchErrors: snapshot.searchErrors,
    sourceUnverifiedFileCount: unverifiedCount(snapshot),
    occurrenceRangesOmitted: 0,
    occurrenceMatchesTruncated: 0,
    budget: { tier: budget.tier, targetTokens: budget.targetTokens, adjusted: budget.adjusted },
    redacted: redact,
    ...extra,
  };
}
