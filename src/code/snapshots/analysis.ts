/**
 * Analysis snapshots: the retained result of an analysis operation (anyOf, impact, navigation),
 * as plain data kept by the same stores as search snapshots, under the same caller binding, time
 * to live and bounds. An analysis is a list of items in their one stable order; what a page
 * shows, and every count an answer states, is derived from these items (code/analysis/).
 */

export type AnalysisOperation = "anyOf" | "impact" | "imports" | "tests";

/**
 * What an item is: an exact occurrence (anyOf, impact), a related test file (impact, tests), a
 * file a file imports or is imported by, or an import specifier that names no file of the tree.
 */
export type AnalysisItemKind = "occurrence" | "test" | "imports" | "imported-by" | "unresolved";

export interface AnalysisItem {
  readonly kind: AnalysisItemKind;
  /** The file, as ripgrep printed it (relative to the analysis's `rgCwd`, or absolute). */
  readonly path: string;
  /** 1-based line; 0 for an item that names a whole file. */
  readonly line: number;
  /** Byte range within the line, end exclusive; -1 when the item has none. */
  readonly startByte: number;
  readonly endByte: number;
  /** UTF-16 columns within the line text, 0-based, end exclusive; -1 when the item has none. */
  readonly startColumn: number;
  readonly endColumn: number;
  /** Index into `AnalysisData.texts` of the line's text, or -1. */
  readonly text: number;
  /** anyOf: index of the input term this occurrence belongs to. */
  readonly term?: number;
  /** impact: the syntax role of the occurrence, or why it has none ("unclassified"). */
  readonly role?: string;
  /** A short fact about the item (an import specifier, why a file is a test candidate). */
  readonly note?: string;
}

/** A coverage dimension: complete, partial (with why), or not evaluated at all. */
export interface CoverageFact {
  /** `none`: nothing of this dimension was covered (no file could be classified, say). */
  readonly status: "complete" | "partial" | "none" | "not-evaluated" | "not-run";
  readonly detail?: string;
}

export interface AnalysisData {
  readonly kind: "analysis";
  readonly operation: AnalysisOperation;
  /** What was asked, as one line of the answer's header. */
  readonly subject: string;
  readonly requestedRoot: string;
  readonly effectiveRoot: string;
  readonly expanded: boolean;
  readonly rgCwd: string;
  /** Stable order: the order of 1-based item indices. */
  readonly items: readonly AnalysisItem[];
  /** Line texts, each kept once however many items point at it. */
  readonly texts: readonly string[];
  /** anyOf: the input terms, in input order. */
  readonly terms: readonly string[];
  /**
   * Independently observable coverage (G05): exact occurrences, retention, syntax
   * classification, related tests or navigation links. A dimension an operation does not have
   * is absent.
   */
  readonly coverage: Readonly<Record<string, CoverageFact>>;
  /** Per-term completeness (anyOf): a term whose scan or retention stopped early is partial. */
  readonly termsComplete: readonly boolean[];
  /** Statements every page repeats (what the evidence does not prove). */
  readonly notes: readonly string[];
  /** The Git comparison the analysis was scoped to, if any (see code/changes/). */
  readonly changes?: ChangesSummary | undefined;
  /** The file filters its scans used (anyOf, impact), as the request gave them. */
  readonly fileScope?: FileScope | undefined;
  readonly searchErrors: number;
  /** Files of the items whose revision was not observed unchanged around the scan. */
  readonly unverifiedFiles: number;
  readonly bytes: number;
}

export interface FileScope {
  readonly globs: readonly string[];
  readonly excludes: readonly string[];
}

/** A change scope as an answer states it. */
export interface ChangesSummary {
  /** e.g. "working tree vs HEAD (1a2b3c4)". */
  readonly comparison: string;
  readonly side: "new" | "old";
  readonly scope: "lines" | "files";
  /** Changed files on the searched side within the file scope. */
  readonly filesChanged: number;
  /** Changed files whose content could not be covered, and why. */
  readonly notCovered: readonly { readonly path: string; readonly reason: string }[];
  /** Where the searched content came from: the working tree or Git objects. */
  readonly source: "worktree" | "objects";
}

/** A light shape check for analysis data read back from storage (the payload is authenticated). */
export function isAnalysisData(value: unknown): value is AnalysisData {
  if (typeof value !== "object" || value === null) return false;
  const data = value as Partial<Record<keyof AnalysisData, unknown>>;
  return (
    data.kind === "analysis" &&
    typeof data.operation === "string" &&
    Array.isArray(data.items) &&
    Array.isArray(data.texts) &&
    Array.isArray(data.terms) &&
    Array.isArray(data.termsComplete) &&
    Array.isArray(data.notes) &&
    typeof data.coverage === "object" &&
    data.coverage !== null &&
    typeof data.rgCwd === "string" &&
    typeof data.unverifiedFiles === "number" &&
    typeof data.bytes === "number"
  );
}
