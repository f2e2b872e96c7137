/**
 * Analysis answers: a frame that states what was asked and every count (derived from the stored
 * items, see store.ts), the coverage facts and what the evidence does not prove, then one page
 * of items in their stable order. A page holds at most ANALYSIS_ITEMS_PER_PAGE items and stays
 * within the 16 KiB response bound; whatever is left has a forward cursor, stated in the text
 * and in the data.
 */

import {
  ANALYSIS_ITEMS_PER_PAGE,
  ANYOF_TERM_LABEL_CHARS,
  DETAIL_PAGE_MAX_BYTES,
  LONG_LINE_CHARS,
  PAGE_FRAME_RESERVE_CHARS,
} from "../../core/limits.js";
import type { Phrasing } from "../../core/phrasing.js";
import { scopeText } from "../render/answer.js";
import type { ContextBudget } from "../render/budget.js";
import { changesData, changesNote } from "../render/changes.js";
import { excerptLine, printablePath } from "../render/detail-page.js";
import { redactText } from "../render/redact.js";
import type { CodeSearchResponse } from "../render/responses.js";
import {
  dominantVendoredFolder,
  type VendoredFolder,
  vendoredData,
  vendoredNote,
} from "../render/vendored.js";
import type { CodeSearchOutput } from "../schema.js";
import type { AnalysisData, AnalysisItem } from "../snapshots/analysis.js";
import { displayPath } from "../snapshots/sequence.js";
import type { SnapshotStore } from "../snapshots/store.js";
import { type AnalysisSummary, summarize } from "./store.js";

type ShownItem = NonNullable<CodeSearchOutput["items"]>[number];

export interface AnalysisPage {
  readonly text: string;
  readonly shown: readonly ShownItem[];
  /** Where the next page starts, or undefined after the last item. */
  readonly nextOffset: number | undefined;
}

/** A term as the text names it: its number and its (possibly clipped) spelling. */
export function termLabel(data: AnalysisData, term: number): string {
  const text = data.terms[term] ?? "";
  const clipped = text.length > ANYOF_TERM_LABEL_CHARS ? `${text.slice(0, ANYOF_TERM_LABEL_CHARS)}…` : text;
  return `#${term + 1} ${JSON.stringify(clipped)}`;
}

function countWord(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The header line: what was asked, where, and the counts of what was kept. */
function headline(data: AnalysisData, summary: AnalysisSummary): string {
  const atLeast = summary.countsComplete ? "" : "at least ";
  const where = scopeText(data);
  let counts: string;
  if (data.operation === "anyOf" || data.operation === "impact") {
    counts =
      `${atLeast}${countWord(summary.occurrences, "occurrence")} on ${countWord(summary.lines, "line")} ` +
      `in ${countWord(summary.occurrenceFiles, "file")}`;
    const tests = summary.byKind.test ?? 0;
    if (data.operation === "impact") counts += `, then ${countWord(tests, "related test file")}`;
  } else {
    counts = `${atLeast}${countWord(summary.items, "file")}`;
  }
  return `code_search ${data.subject} ${where}: ${counts}.`;
}

/** What every page of this analysis says before its items. */
export function analysisFrame(data: AnalysisData, budget: ContextBudget, phrasing: Phrasing): string {
  const summary = summarize(data);
  const lines = [headline(data, summary)];
  if (data.operation === "anyOf") {
    const parts = summary.terms.map((t, i) => {
      const count = t.complete ? `${t.occurrences}` : `at least ${t.occurrences} (partial)`;
      return `${termLabel(data, i)} ${count}${t.occurrences > 0 ? ` in ${countWord(t.files, "file")}` : ""}`;
    });
    lines.push(`Per term: ${parts.join("; ")}.`);
  }
  for (const [dimension, fact] of Object.entries(data.coverage)) {
    if (fact.status === "partial") lines.push(`PARTIAL ${dimension}: ${fact.detail ?? "incomplete"}.`);
    if (fact.status === "none") lines.push(`NOT COVERED ${dimension}: ${fact.detail ?? "nothing"}.`);
  }
  if (data.changes !== undefined) lines.push(changesNote(data.changes));
  if (data.searchErrors > 0) {
    lines.push(`ripgrep could not read ${data.searchErrors} file(s); their contents are not covered.`);
  }
  const vendored = analysisVendored(data);
  if (vendored !== undefined) lines.push(vendoredNote(vendored, "occurrences", phrasing));
  lines.push(...data.notes);
  if (budget.adjusted) {
    lines.push(`Context is ${budget.tier}: this answer was sized for about ${budget.targetTokens} tokens.`);
  }
  return `${lines.join("\n")}\n`;
}

export interface PageOptions {
  readonly offset: number;
  readonly limit: number | undefined;
  readonly redact: boolean;
  readonly frameText: string;
  readonly budget: ContextBudget;
}

export function renderAnalysisPage(data: AnalysisData, options: PageOptions): AnalysisPage {
  const maxItems = Math.min(options.limit ?? ANALYSIS_ITEMS_PER_PAGE, ANALYSIS_ITEMS_PER_PAGE);
  const maxChars = Math.max(
    0,
    options.budget.targetChars - options.frameText.length - PAGE_FRAME_RESERVE_CHARS,
  );
  const maxBytes = DETAIL_PAGE_MAX_BYTES - Buffer.byteLength(options.frameText) - PAGE_FRAME_RESERVE_CHARS;
  const parts: string[] = [];
  const shown: ShownItem[] = [];
  let chars = 0;
  let bytes = 0;
  let group: string | undefined;
  let path: string | undefined;
  let lastLine: string | undefined;
  let position = options.offset;
  for (; position < data.items.length && shown.length < maxItems; position++) {
    const item = data.items[position] as AnalysisItem;
    const block: string[] = [];
    const itemGroup = groupOf(data, item);
    let nextPath = path;
    let nextLastLine = lastLine;
    if (itemGroup !== group) {
      block.push(itemGroup);
      nextPath = undefined;
    }
    const display = printablePath(displayPath(item.path));
    const text = item.text >= 0 ? (data.texts[item.text] ?? "") : undefined;
    const shownText = text === undefined ? undefined : lineText(text, item, options.redact);
    if (item.line > 0) {
      if (display !== nextPath) block.push(`  ${display}`);
      nextPath = display;
      const lineKey = `${item.path}\0${item.line}`;
      const position1 = item.startColumn >= 0 ? `${item.line}:${item.startColumn + 1}` : `${item.line}`;
      const role = item.role === undefined ? "" : ` ${item.role}`;
      const body = lineKey === nextLastLine ? "(same line)" : (shownText ?? "");
      const note = item.note === undefined ? "" : `  (${item.note})`;
      block.push(`    [${position + 1}] ${position1}${role}  ${body}${note}`);
      nextLastLine = lineKey;
    } else {
      const note = item.note === undefined ? "" : `  (${item.note})`;
      block.push(`  [${position + 1}] ${display}${note}`);
      nextPath = undefined;
      nextLastLine = undefined;
    }
    const piece = `${block.join("\n")}\n`;
    const pieceBytes = Buffer.byteLength(piece);
    if (shown.length > 0 && (chars + piece.length > maxChars || bytes + pieceBytes > maxBytes)) break;
    parts.push(piece);
    chars += piece.length;
    bytes += pieceBytes;
    group = itemGroup;
    path = nextPath;
    lastLine = nextLastLine;
    shown.push(shownItem(data, item, position + 1, shownText));
  }
  return {
    text: parts.join(""),
    shown,
    nextOffset: position < data.items.length ? position : undefined,
  };
}

/** The heading items are grouped under: an anyOf term, or the kind of item. */
function groupOf(data: AnalysisData, item: AnalysisItem): string {
  if (item.term !== undefined) return `${termLabel(data, item.term)}:`;
  switch (item.kind) {
    case "occurrence":
      return "Exact same-spelling occurrences:";
    case "test":
      return "Related test files (candidates; not run):";
    case "imports":
      return "Files it imports:";
    case "imported-by":
      return "Files that import it:";
    case "unresolved":
      return "Imports not resolved to a file of the tree:";
  }
}

function lineText(text: string, item: AnalysisItem, redact: boolean): string {
  const body =
    text.length > LONG_LINE_CHARS && item.startColumn >= 0
      ? excerptLine(text, [
          {
            startByte: item.startByte,
            endByte: item.endByte,
            startColumn: item.startColumn,
            endColumn: item.endColumn,
          },
        ])
      : text;
  return redact ? redactText(body).text : body;
}

function shownItem(
  data: AnalysisData,
  item: AnalysisItem,
  index: number,
  text: string | undefined,
): ShownItem {
  return {
    index,
    kind: item.kind,
    path: displayPath(item.path),
    ...(item.line > 0 ? { line: item.line } : {}),
    ...(item.startByte >= 0 ? { startByte: item.startByte, endByte: item.endByte } : {}),
    ...(item.startColumn >= 0 ? { startColumn: item.startColumn + 1, endColumn: item.endColumn + 1 } : {}),
    ...(text === undefined ? {} : { text }),
    ...(item.term === undefined ? {} : { term: data.terms[item.term] ?? "" }),
    ...(item.role === undefined ? {} : { role: item.role }),
    ...(item.note === undefined ? {} : { note: item.note }),
  };
}

/**
 * One page of an analysis as an answer. `id` is the stored result's id when a cursor may follow
 * (undefined for a result that fits one page and was never stored).
 */
export function analysisResponse(
  store: SnapshotStore,
  data: AnalysisData,
  id: string | undefined,
  page: AnalysisPage,
  offset: number,
  redact: boolean,
  frameText: string,
  budget: ContextBudget,
  phrasing: Phrasing,
): CodeSearchResponse {
  const summary = summarize(data);
  const cursor =
    id === undefined || page.nextOffset === undefined
      ? undefined
      : store.encodeCursor({ snapshotId: id, offset: page.nextOffset, kind: "analysis" });
  const from = offset + 1;
  const to = offset + page.shown.length;
  const lines: string[] = [];
  if (data.items.length > 0) {
    lines.push(`Items ${from}-${to} of ${data.items.length}${orderNote(data)}:`, page.text.trimEnd());
  }
  if (cursor !== undefined) {
    const arg = (name: string) => phrasing.arg("code_search", name);
    lines.push(
      `Next page: ${phrasing.call("code_search", { cursor })} (items ${to + 1}-${data.items.length}; repeat ${arg("limit")} or ${arg("redact")} to keep them).`,
    );
  }
  return {
    text: `${frameText}${lines.join("\n")}${lines.length > 0 ? "\n" : ""}`,
    data: analysisData(data, summary, budget, redact, {
      ...(cursor === undefined ? {} : { cursor, cursorKind: "analysis" as const }),
      ...(page.shown.length === 0 ? {} : { itemsFrom: from, itemsTo: to }),
      items: [...page.shown],
    }),
  };
}

/** Found once per result: every page of it says the same. */
const vendoredFolders = new WeakMap<AnalysisData, VendoredFolder | null>();

/** The folder of installed or generated code holding most of the occurrences, if one does. */
function analysisVendored(data: AnalysisData): VendoredFolder | undefined {
  if (data.fileScope === undefined) return undefined;
  let found = vendoredFolders.get(data);
  if (found === undefined) {
    const byPath = new Map<string, number>();
    let total = 0;
    for (const item of data.items) {
      if (item.kind !== "occurrence") continue;
      const path = displayPath(item.path);
      byPath.set(path, (byPath.get(path) ?? 0) + 1);
      total++;
    }
    found =
      dominantVendoredFolder(
        [...byPath].map(([path, count]) => ({ path, count })),
        total,
        { effectiveRoot: data.effectiveRoot, ...data.fileScope },
      ) ?? null;
    vendoredFolders.set(data, found);
  }
  return found ?? undefined;
}

function orderNote(data: AnalysisData): string {
  if (data.operation === "anyOf") return " (by term in input order, then path, then position)";
  if (data.operation === "impact") return " (occurrences by path and position, then related tests)";
  return "";
}

function analysisData(
  data: AnalysisData,
  summary: AnalysisSummary,
  budget: ContextBudget,
  redact: boolean,
  extra: Partial<CodeSearchOutput>,
): CodeSearchOutput {
  return {
    status: summary.complete ? "complete" : "partial",
    view: data.items.length === 0 ? "empty" : "analysis",
    operation: data.operation,
    pattern: data.subject,
    requestedRoot: data.requestedRoot,
    effectiveRoot: data.effectiveRoot,
    expanded: data.expanded,
    // Counts of what was kept, never of what a cut scan might have seen (G05, G15).
    totalItems: summary.items,
    totalMatches: summary.lines,
    totalOccurrences: summary.occurrences,
    totalFiles: summary.files,
    ...(data.operation === "anyOf" ? { terms: [...summary.terms] } : {}),
    coverage: { ...data.coverage },
    ...(data.changes === undefined ? {} : { changes: changesData(data.changes) }),
    ...vendoredData(analysisVendored(data)),
    searchErrors: data.searchErrors,
    sourceUnverifiedFileCount: data.unverifiedFiles,
    occurrenceRangesOmitted: 0,
    occurrenceMatchesTruncated: 0,
    budget: { tier: budget.tier, targetTokens: budget.targetTokens, adjusted: budget.adjusted },
    redacted: redact,
    ...extra,
  };
}
