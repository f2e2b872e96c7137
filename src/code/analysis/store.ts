/**
 * The analysis store's policy: what an analysis result keeps and what it may say about it.
 *
 * An operation hands over its items in their final order; `retain` admits them under the shared
 * snapshot bounds (ANALYSIS_MAX_ITEMS items, ANALYSIS_MAX_BYTES of estimated memory), in order,
 * and stops at the first that does not fit, saying so in the retention coverage. Every count an
 * answer states is then derived from the admitted items by `summarize` (G15): a term whose
 * occurrences were cut reads "at least", never as a total. Storage, caller binding, expiry and
 * eviction are the snapshot store's (snapshots/store.ts), shared with search snapshots.
 */
import { keptCopy } from "../../core/kept.js";
import { ANALYSIS_ITEM_OVERHEAD_BYTES, ANALYSIS_MAX_BYTES, ANALYSIS_MAX_ITEMS } from "../../core/limits.js";
import type { Occurrence } from "../rg/events.js";
import type { AnalysisData, AnalysisItem, CoverageFact } from "../snapshots/analysis.js";

export interface AnalysisBounds {
  readonly maxItems: number;
  readonly maxBytes: number;
}

export const DEFAULT_ANALYSIS_BOUNDS: AnalysisBounds = {
  maxItems: ANALYSIS_MAX_ITEMS,
  maxBytes: ANALYSIS_MAX_BYTES,
};

/**
 * Line texts kept once per (file, line), however many items point at them, each a copy of its
 * own: a line's text is cut from ripgrep's output, which it would otherwise keep whole.
 */
export class TextTable {
  readonly texts: string[] = [];
  readonly #index = new Map<string, Map<number, number>>();

  /** The index of the line's text, adding it the first time. */
  add(path: string, line: number, text: string): number {
    let lines = this.#index.get(path);
    if (lines === undefined) {
      lines = new Map();
      this.#index.set(path, lines);
    }
    let index = lines.get(line);
    if (index === undefined) {
      index = this.texts.length;
      this.texts.push(keptCopy(text));
      lines.set(line, index);
    }
    return index;
  }
}

/** What an item may carry besides its place: its term (anyOf), role (impact), note. */
type ItemExtras = Pick<AnalysisItem, "term" | "role" | "note">;
type ItemRange = Pick<AnalysisItem, "startByte" | "endByte" | "startColumn" | "endColumn">;
const NO_RANGE: ItemRange = { startByte: -1, endByte: -1, startColumn: -1, endColumn: -1 };

/**
 * Every item is built here, one field after another in one order, never by spreading another
 * object: Node 20's V8 gives each object made by a spread plus a field a hidden class of its own,
 * and a kept result of thousands of items then held several times what the store counts.
 */
function itemOf(
  kind: AnalysisItem["kind"],
  path: string,
  line: number,
  range: ItemRange,
  text: number,
  extras: ItemExtras,
): AnalysisItem {
  const { startByte, endByte, startColumn, endColumn } = range;
  // anyOf's thousands of items have their term in the object itself, not in a side array.
  const item: { -readonly [K in keyof AnalysisItem]: AnalysisItem[K] } =
    extras.term === undefined
      ? { kind, path, line, startByte, endByte, startColumn, endColumn, text }
      : { kind, path, line, startByte, endByte, startColumn, endColumn, text, term: extras.term };
  if (extras.role !== undefined) item.role = extras.role;
  if (extras.note !== undefined) item.note = extras.note;
  return item;
}

/** An item naming a whole file (an import, a test candidate): no line, no range. */
export function fileItem(kind: AnalysisItem["kind"], path: string, note: string): AnalysisItem {
  return itemOf(kind, path, 0, NO_RANGE, -1, { note });
}

/**
 * An occurrence on a line: its byte and column range, the line's text in the table, and its
 * term, role or note.
 */
export function occurrenceItem(
  path: string,
  line: number,
  o: Occurrence,
  text: number,
  extras: ItemExtras = {},
): AnalysisItem {
  return itemOf("occurrence", path, line, o, text, extras);
}

/** An anyOf occurrence: its place, the line's text in the table, and its term's index. */
export function termItem(
  path: string,
  line: number,
  o: Occurrence,
  text: number,
  term: number,
): AnalysisItem {
  const { startByte, endByte, startColumn, endColumn } = o;
  // The fields in itemOf's order, so anyOf's items and a retained copy's share one shape.
  return { kind: "occurrence", path, line, startByte, endByte, startColumn, endColumn, text, term };
}

/** The item at another line, with another text (a retained copy's table, an import's line). */
export function placedItem(item: AnalysisItem, line: number, text: number): AnalysisItem {
  return itemOf(item.kind, item.path, line, item, text, item);
}

/**
 * An operation's result before retention: its items in their final order, `text` indexing
 * `texts`, and the coverage it observed (retention is added by `retain`).
 */
export interface AnalysisDraft extends Omit<AnalysisData, "kind" | "termsComplete" | "bytes"> {
  /** Per term: its occurrences were all found (the scan of its group was not cut short). */
  readonly termsScanned: readonly boolean[];
}

/** Admits the draft's items in order under the bounds, and records what retention cut. */
export function retain(draft: AnalysisDraft, bounds: AnalysisBounds = DEFAULT_ANALYSIS_BOUNDS): AnalysisData {
  const counted = new Uint8Array(draft.texts.length);
  let bytes = 0;
  let kept = 0;
  for (const item of draft.items) {
    let cost = ANALYSIS_ITEM_OVERHEAD_BYTES + 2 * (item.path.length + (item.note?.length ?? 0));
    const textCost =
      item.text >= 0 && counted[item.text] === 0 ? 2 * (draft.texts[item.text]?.length ?? 0) : 0;
    cost += textCost;
    if (kept + 1 > bounds.maxItems || bytes + cost > bounds.maxBytes) break;
    if (textCost > 0) counted[item.text] = 1;
    bytes += cost;
    kept++;
  }
  const cut = kept < draft.items.length;
  let items = draft.items;
  let texts = draft.texts;
  if (cut) {
    // Only the texts admitted items point at are kept.
    const table = new TextTable();
    items = draft.items
      .slice(0, kept)
      .map((item) =>
        item.text < 0
          ? item
          : placedItem(item, item.line, table.add(item.path, item.line, draft.texts[item.text] ?? "")),
      );
    texts = table.texts;
  }
  // A term is complete only when its scan was and retention kept every item of it.
  const firstCutTerm = cut ? (draft.items[kept]?.term ?? -1) : Number.POSITIVE_INFINITY;
  const termsComplete = draft.terms.map(
    (_, t) => (draft.termsScanned[t] ?? false) && (firstCutTerm === -1 ? !cut : t < firstCutTerm),
  );
  const retention: CoverageFact = cut
    ? {
        status: "partial",
        detail: `retention stopped at ${kept} items (bounds: ${bounds.maxItems} items, ${bounds.maxBytes / (1024 * 1024)} MiB)`,
      }
    : { status: "complete" };
  return {
    kind: "analysis",
    operation: draft.operation,
    subject: draft.subject,
    requestedRoot: draft.requestedRoot,
    effectiveRoot: draft.effectiveRoot,
    expanded: draft.expanded,
    rgCwd: draft.rgCwd,
    items,
    texts,
    terms: draft.terms,
    termsComplete,
    coverage: { ...draft.coverage, retention },
    notes: draft.notes,
    changes: draft.changes,
    ...(draft.fileScope === undefined ? {} : { fileScope: draft.fileScope }),
    searchErrors: draft.searchErrors,
    unverifiedFiles: draft.unverifiedFiles,
    bytes,
  };
}

export interface TermSummary {
  readonly term: string;
  readonly occurrences: number;
  readonly files: number;
  readonly complete: boolean;
}

export interface AnalysisSummary {
  readonly items: number;
  readonly occurrences: number;
  /** Distinct (file, line) pairs among occurrence items. */
  readonly lines: number;
  readonly files: number;
  /** Distinct files among occurrence items. */
  readonly occurrenceFiles: number;
  readonly byKind: Readonly<Partial<Record<AnalysisItem["kind"], number>>>;
  readonly byRole: Readonly<Record<string, number>>;
  readonly terms: readonly TermSummary[];
  /** Every coverage dimension is complete (or an operation's fixed "not evaluated" facts). */
  readonly complete: boolean;
  /** The items are every one there was: nothing cut the scan or retention (counts are totals). */
  readonly countsComplete: boolean;
}

const summaries = new WeakMap<AnalysisData, AnalysisSummary>();

/** Every count of an analysis answer, derived from its stored items only (G15). */
export function summarize(data: AnalysisData): AnalysisSummary {
  const cached = summaries.get(data);
  if (cached !== undefined) return cached;
  const counts = countItems(data.items, data.terms.length);
  const summary: AnalysisSummary = {
    items: data.items.length,
    occurrences: counts.occurrences,
    lines: counts.lineCount,
    files: counts.files.size,
    occurrenceFiles: counts.lines.size,
    byKind: counts.byKind,
    byRole: counts.byRole,
    terms: data.terms.map((term, t) => ({
      term,
      occurrences: counts.termOccurrences[t] ?? 0,
      files: counts.termFiles[t] ?? 0,
      complete: data.termsComplete[t] ?? false,
    })),
    complete: Object.values(data.coverage).every(
      (fact) => fact.status !== "partial" && fact.status !== "none",
    ),
    countsComplete: ["occurrences", "retention"].every(
      (dimension) => data.coverage[dimension]?.status !== "partial",
    ),
  };
  summaries.set(data, summary);
  return summary;
}

/** What `summarize` counts in its one pass over the items. */
class ItemCounts {
  // Paths are shared strings and lines small numbers: per-file sets, no composite keys.
  readonly files = new Set<string>();
  readonly lines = new Map<string, Set<number>>();
  readonly byKind: Partial<Record<AnalysisItem["kind"], number>> = {};
  readonly byRole: Record<string, number> = {};
  readonly termOccurrences: number[];
  readonly termFiles: number[];
  occurrences = 0;
  lineCount = 0;
  #lastTerm = -1;
  #lastPath: string | undefined;

  constructor(terms: number) {
    this.termOccurrences = Array.from({ length: terms }, () => 0);
    this.termFiles = Array.from({ length: terms }, () => 0);
  }

  add(item: AnalysisItem): void {
    this.files.add(item.path);
    this.byKind[item.kind] = (this.byKind[item.kind] ?? 0) + 1;
    if (item.role !== undefined) this.byRole[item.role] = (this.byRole[item.role] ?? 0) + 1;
    if (item.kind !== "occurrence") return;
    this.occurrences++;
    let fileLines = this.lines.get(item.path);
    if (fileLines === undefined) {
      fileLines = new Set();
      this.lines.set(item.path, fileLines);
    }
    if (!fileLines.has(item.line)) {
      fileLines.add(item.line);
      this.lineCount++;
    }
    if (item.term !== undefined) this.#addTerm(item.term, item.path);
  }

  /** Items of one term are consecutive and ordered by path: a term's files are its path changes. */
  #addTerm(term: number, path: string): void {
    this.termOccurrences[term] = (this.termOccurrences[term] ?? 0) + 1;
    if (term !== this.#lastTerm || path !== this.#lastPath) {
      this.termFiles[term] = (this.termFiles[term] ?? 0) + 1;
    }
    this.#lastTerm = term;
    this.#lastPath = path;
  }
}

function countItems(items: readonly AnalysisItem[], terms: number): ItemCounts {
  const counts = new ItemCounts(terms);
  for (const item of items) counts.add(item);
  return counts;
}
