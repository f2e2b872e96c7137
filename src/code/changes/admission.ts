/**
 * Changed-line admission. A file's changed lines on the searched side become byte ranges of
 * that side's content (each from the start of a changed run of lines to the end of its last
 * line, terminator included), and an occurrence is admitted only when its whole byte range lies
 * inside one of them. An occurrence that starts or ends outside every changed range (one that
 * straddles a range's edge) is not admitted: it is not wholly part of the change.
 */
import type { Hunk } from "../git/diff.js";

/** Byte ranges `[start, end)`, ascending and disjoint. */
export type ByteRanges = readonly (readonly [number, number])[];

/** The byte ranges of `hunks`' lines on one side of `content`. */
export function changedByteRanges(content: Buffer, hunks: readonly Hunk[], side: "new" | "old"): ByteRanges {
  const runs = hunks
    .map((h) => (side === "new" ? [h.newStart, h.newCount] : [h.oldStart, h.oldCount]) as [number, number])
    .filter(([, count]) => count > 0)
    .sort((a, b) => a[0] - b[0]);
  if (runs.length === 0) return [];
  const starts = lineStarts(content, Math.max(...runs.map(([start, count]) => start + count)));
  const ranges: [number, number][] = [];
  for (const [first, count] of runs) {
    const start = starts[first - 1];
    if (start === undefined) continue;
    const end = starts[first - 1 + count] ?? content.length;
    const last = ranges[ranges.length - 1];
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else ranges.push([start, end]);
  }
  return ranges;
}

/** Byte offsets where lines 1..upTo start (index i holds line i + 1's start). */
function lineStarts(content: Buffer, upTo: number): number[] {
  const starts = [0];
  for (
    let at = content.indexOf(0x0a);
    at !== -1 && starts.length < upTo;
    at = content.indexOf(0x0a, at + 1)
  ) {
    if (at + 1 < content.length) starts.push(at + 1);
    else break;
  }
  return starts;
}

/** Whether `[start, end)` lies wholly inside one of `ranges`. */
export function admitted(ranges: ByteRanges, start: number, end: number): boolean {
  let low = 0;
  let high = ranges.length - 1;
  // The last range starting at or before `start`.
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if ((ranges[mid] as readonly [number, number])[0] <= start) {
      found = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  const range = ranges[found];
  return range !== undefined && end <= range[1];
}
