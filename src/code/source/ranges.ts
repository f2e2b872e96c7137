/**
 * Line and byte ranges of one document: merging the ranges several targets ask for, so a line of
 * one revision is shown once, and cutting a byte range where a budget ends without splitting a
 * UTF-8 sequence.
 */
import { lineEnd, lineStart, type SourceDocument } from "./document.js";

/** 1-based, inclusive. */
export interface LineRange {
  readonly startLine: number;
  readonly endLine: number;
}

/** End exclusive. */
export interface ByteRange {
  readonly startByte: number;
  readonly endByte: number;
}

/** Sorted, with overlapping or touching ranges joined. */
export function mergeLineRanges(ranges: readonly LineRange[]): LineRange[] {
  const sorted = [...ranges].sort((a, b) => a.startLine - b.startLine || a.endLine - b.endLine);
  const merged: LineRange[] = [];
  for (const range of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && range.startLine <= last.endLine + 1) {
      merged[merged.length - 1] = {
        startLine: last.startLine,
        endLine: Math.max(last.endLine, range.endLine),
      };
    } else merged.push(range);
  }
  return merged;
}

/** Whether `outer` holds every line of `inner`. */
export function containsLines(outer: LineRange, inner: LineRange): boolean {
  return outer.startLine <= inner.startLine && inner.endLine <= outer.endLine;
}

/** The bytes of whole lines, line feeds included. */
export function bytesOfLines(document: SourceDocument, range: LineRange): ByteRange {
  return { startByte: lineStart(document, range.startLine), endByte: lineEnd(document, range.endLine) };
}

/** The largest offset <= `offset` that does not fall inside a UTF-8 sequence of `bytes`. */
export function utf8Boundary(bytes: Uint8Array, offset: number, floor = 0): number {
  let cut = Math.min(offset, bytes.length);
  // A continuation byte (10xxxxxx) is never where a character starts.
  while (cut > floor && cut < bytes.length && ((bytes[cut] as number) & 0xc0) === 0x80) cut--;
  return cut;
}
