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
import { ANALYSIS_ITEM_OVERHEAD_BYTES, ANALYSIS_MAX_BYTES, ANALYSIS_MAX_ITEMS } from "../../core/limits.js";
import type {
  AnalysisData,
  AnalysisItem,
  AnalysisOperation,
  ChangesSummary,
  CoverageFact,
} from "../snapshots/analysis.js";

export interface AnalysisBounds {
  readonly maxItems: number;
  readonly maxBytes: number;
}

export const DEFAULT_ANALYSIS_BOUNDS: AnalysisBounds = {
  maxItems: ANALYSIS_MAX_ITEMS,
  maxBytes: ANALYSIS_MAX_BYTES,
};

/** An item before admission: its line text inline. */
export type DraftItem = Omit<AnalysisItem, "text"> & { readonly lineText?: string | undefined };

export interface AnalysisDraft {
  readonly operation: AnalysisOperation;
  readonly subject: string;
  readonly requestedRoot: string;
  readonly effectiveRoot: string;
  readonly expanded: boolean;
  readonly rgCwd: string;
  readonly terms: readonly string[];
  /** Per term: its occurrences were all found (the scan of its group was not cut short). */
  readonly termsScanned: readonly boolean[];
  /** Items in their final order. */
  readonly items: readonly DraftItem[];
  /** Coverage the operation observed; retention is added by `retain`. */
  readonly coverage: Readonly<Record<string, CoverageFact>>;
  readonly notes: readonly string[];
  readonly changes?: ChangesSummary | undefined;
  readonly searchErrors: number;
  readonly unverifiedFiles: number;
}

/** Admits the draft's items in order under the bounds, and records what retention cut. */
export function retain(draft: AnalysisDraft, bounds: AnalysisBounds = DEFAULT_ANALYSIS_BOUNDS): AnalysisData {
  const items: AnalysisItem[] = [];
  const texts: string[] = [];
  const textIndex = new Map<string, number>();
  let bytes = 0;
  let cut = false;
  for (const draftItem of draft.items) {
    const { lineText, ...rest } = draftItem;
    const key = `${rest.path}\0${rest.line}`;
    let text = -1;
    let cost = ANALYSIS_ITEM_OVERHEAD_BYTES + 2 * (rest.path.length + (rest.note?.length ?? 0));
    if (lineText !== undefined) {
      const known = textIndex.get(key);
      if (known === undefined) cost += 2 * lineText.length;
      text = known ?? texts.length;
    }
    if (items.length + 1 > bounds.maxItems || bytes + cost > bounds.maxBytes) {
      cut = true;
      break;
    }
    if (lineText !== undefined && text === texts.length) {
      textIndex.set(key, text);
      texts.push(lineText);
    }
    bytes += cost;
    items.push({ ...rest, text });
  }
  // A term is complete only when its scan was and retention kept every item of it.
  const firstCutTerm = cut ? (draft.items[items.length]?.term ?? -1) : Number.POSITIVE_INFINITY;
  const termsComplete = draft.terms.map(
    (_, t) => (draft.termsScanned[t] ?? false) && (firstCutTerm === -1 ? !cut : t < firstCutTerm),
  );
  const retention: CoverageFact = cut
    ? {
        status: "partial",
        detail: `retention stopped at ${items.length} items (bounds: ${bounds.maxItems} items, ${bounds.maxBytes / (1024 * 1024)} MiB)`,
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
}

const summaries = new WeakMap<AnalysisData, AnalysisSummary>();

/** Every count of an analysis answer, derived from its stored items only (G15). */
export function summarize(data: AnalysisData): AnalysisSummary {
  const cached = summaries.get(data);
  if (cached !== undefined) return cached;
  const files = new Set<string>();
  const lines = new Set<string>();
  const occurrenceFiles = new Set<string>();
  const byKind: Partial<Record<AnalysisItem["kind"], number>> = {};
  const byRole: Record<string, number> = {};
  const termOccurrences = data.terms.map(() => 0);
  const termFiles = data.terms.map(() => new Set<string>());
  let occurrences = 0;
  for (const item of data.items) {
    files.add(item.path);
    byKind[item.kind] = (byKind[item.kind] ?? 0) + 1;
    if (item.role !== undefined) byRole[item.role] = (byRole[item.role] ?? 0) + 1;
    if (item.kind !== "occurrence") continue;
    occurrences++;
    occurrenceFiles.add(item.path);
    lines.add(`${item.path}\0${item.line}`);
    if (item.term !== undefined) {
      termOccurrences[item.term] = (termOccurrences[item.term] ?? 0) + 1;
      termFiles[item.term]?.add(item.path);
    }
  }
  const summary: AnalysisSummary = {
    items: data.items.length,
    occurrences,
    lines: lines.size,
    files: files.size,
    occurrenceFiles: occurrenceFiles.size,
    byKind,
    byRole,
    terms: data.terms.map((term, t) => ({
      term,
      occurrences: termOccurrences[t] ?? 0,
      files: termFiles[t]?.size ?? 0,
      complete: data.termsComplete[t] ?? false,
    })),
    complete: Object.values(data.coverage).every((fact) => fact.status !== "partial"),
  };
  summaries.set(data, summary);
  return summary;
}
