/**
 * Changed-line admission. A file's changed lines on the searched side are runs of line numbers,
 * taken from Git's hunks; an occurrence is admitted only when it lies wholly inside a changed
 * run. ripgrep reports every occurrence within one line (searches are never multiline), so that
 * is exactly when its line is a changed line: the line before or after a hunk is not admitted,
 * and nothing needs the file's bytes to tell.
 */
import type { Hunk } from "../git/diff.js";

/** Line runs `[first, end)`, 1-based, ascending and disjoint. */
export type LineRuns = readonly (readonly [number, number])[];

/** The runs of `hunks`' changed lines on one side. */
export function changedLines(hunks: readonly Hunk[], side: "new" | "old"): LineRuns {
  const runs = hunks
    .map((h) => (side === "new" ? [h.newStart, h.newCount] : [h.oldStart, h.oldCount]) as [number, number])
    .filter(([, count]) => count > 0)
    .sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [first, count] of runs) {
    const last = merged[merged.length - 1];
    if (last !== undefined && first <= last[1]) last[1] = Math.max(last[1], first + count);
    else merged.push([first, first + count]);
  }
  return merged;
}

/** Whether `line` (1-based) is inside one of `runs`. */
export function onChangedLine(runs: LineRuns, line: number): boolean {
  let low = 0;
  let high = runs.length - 1;
  // The last run starting at or before `line`.
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if ((runs[mid] as readonly [number, number])[0] <= line) {
      found = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  const run = runs[found];
  return run !== undefined && line < run[1];
}
