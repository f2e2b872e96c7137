/**
 * File summary pages: every retained file, ranked by match count (then path), 30 per page, so
 * walking summary pages covers each file exactly once. The first files of a page get previews of
 * real retained matching lines (at most 5 files, 2 windows per file, 7 lines per window), added
 * only while they fit the budget. Previews are samples in file order, not a relevance ranking.
 */
import {
  SUMMARY_FILES_PER_PAGE,
  SUMMARY_PREVIEW_FILES,
  SUMMARY_PREVIEW_LINE_CHARS,
  SUMMARY_PREVIEW_LINES_PER_WINDOW,
  SUMMARY_PREVIEW_WINDOWS_PER_FILE,
} from "../../core/limits.js";
import { fileRange, loadMatches, matchAt } from "../rg/match-table.js";
import { displayPath } from "../snapshots/sequence.js";
import type { SnapshotData, SnapshotFile } from "../snapshots/store.js";
import { printablePath, renderMatch } from "./detail-page.js";

export interface SummaryOptions {
  readonly snapshot: SnapshotData;
  /** 0-based offset into the ranked file list. */
  readonly fileOffset: number;
  readonly maxChars: number;
  readonly redact: boolean;
}

export interface SummaryPage {
  readonly text: string;
  readonly rows: readonly SnapshotFile[];
  readonly nextFileOffset: number | undefined;
  readonly previewsShown: number;
  readonly previewsOmitted: number;
}

export async function renderSummaryPage(options: SummaryOptions): Promise<SummaryPage> {
  const { snapshot, fileOffset } = options;
  const rows = snapshot.files.slice(fileOffset, fileOffset + SUMMARY_FILES_PER_PAGE);
  const end = fileOffset + rows.length;
  const width = String(rows[0]?.matches ?? 0).length;
  const lines = [
    // A structure match is a node: a line can hold several, so its count is not of lines.
    `Files ${fileOffset + 1}-${end} of ${snapshot.files.length}, ranked by ${snapshot.structure === undefined ? "matching lines" : "matches"}:`,
    ...rows.map((row) => {
      const extra = row.occurrences !== row.matches ? ` (${row.occurrences} occurrences)` : "";
      return `  ${String(row.matches).padStart(width)}  ${printablePath(displayPath(row.key))}${extra}`;
    }),
  ];
  let text = `${lines.join("\n")}\n`;
  const candidates = rows.slice(0, SUMMARY_PREVIEW_FILES);
  await loadMatches(snapshot.matches, previewPositions(snapshot, candidates));
  let previewsShown = 0;
  const previews: string[] = [];
  for (const row of candidates) {
    const preview = renderPreview(snapshot, row, options.redact);
    const heading =
      previews.length === 0 ? "Samples (retained matching lines in file order, not ranked):\n" : "";
    const next = text.length + heading.length + preview.length;
    if (next > options.maxChars) break;
    previews.push(heading + preview);
    text += heading + preview;
    previewsShown++;
  }
  return {
    text,
    rows,
    nextFileOffset: end < snapshot.files.length ? end : undefined,
    previewsShown,
    previewsOmitted: candidates.length - previewsShown,
  };
}

/** The positions previews may show: the first lines of each previewed file, as many as its windows hold. */
function* previewPositions(snapshot: SnapshotData, rows: readonly SnapshotFile[]): Generator<number> {
  for (const row of rows) {
    const [from, to] = fileRange(snapshot.matches, row.key);
    const last = Math.min(to, from + SUMMARY_PREVIEW_WINDOWS_PER_FILE * SUMMARY_PREVIEW_LINES_PER_WINDOW);
    for (let i = from; i < last; i++) yield i;
  }
}

function renderPreview(snapshot: SnapshotData, row: SnapshotFile, redact: boolean): string {
  const out = [printablePath(displayPath(row.key))];
  let [position, end] = fileRange(snapshot.matches, row.key);
  for (let window = 0; window < SUMMARY_PREVIEW_WINDOWS_PER_FILE; window++) {
    if (position >= end) break;
    const first = matchAt(snapshot.matches, position);
    if (window > 0) out.push("  …");
    const lastLine = first.line + SUMMARY_PREVIEW_LINES_PER_WINDOW - 1;
    let shown = 0;
    while (shown < SUMMARY_PREVIEW_LINES_PER_WINDOW) {
      if (position >= end) break;
      const match = matchAt(snapshot.matches, position);
      if (match.line > lastLine) break;
      const line = renderMatch(match, position + 1, redact).line;
      out.push(
        `  ${line.length > SUMMARY_PREVIEW_LINE_CHARS ? `${line.slice(0, SUMMARY_PREVIEW_LINE_CHARS)}…` : line}`,
      );
      position++;
      shown++;
    }
  }
  return `${out.join("\n")}\n`;
}
