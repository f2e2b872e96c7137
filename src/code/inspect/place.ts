/**
 * Placing source into one byte budget. Spans (byte ranges of verified documents, in the order
 * they are owed) are shown as whole lines, each prefixed with its original line number and a tab,
 * until the budget ends; a span whose first line alone does not fit is cut inside that line, on a
 * UTF-8 boundary, so every answer makes progress. What is left of UTF-8 documents is returned as
 * exact byte ranges for a continuation; a document that is not valid UTF-8 is shown as a lossy
 * preview and what does not fit is only reported, since its bytes cannot be shown as they are.
 */

import { INSPECT_MIN_CUT_BYTES } from "../../core/limits.js";
import { printablePath } from "../render/detail-page.js";
import { redactText } from "../render/redact.js";
import { lineAt, lineEnd, lineStart, type SourceDocument } from "../source/document.js";
import { type ByteRange, utf8Boundary } from "../source/ranges.js";

export interface SourceSpan {
  readonly document: SourceDocument;
  /** The path as the agent sees it. */
  readonly display: string;
  readonly range: ByteRange;
}

export interface PlacedFragment {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly startByte: number;
  readonly endByte: number;
  /** The source shown, as it is in the file (lossy for non-UTF-8 documents). */
  readonly text: string;
  readonly lossy: boolean;
}

export interface Placement {
  readonly text: string;
  /** One per span that showed anything, in span order; `spanFragment[i]` finds span i's. */
  readonly fragments: readonly PlacedFragment[];
  readonly spanFragment: readonly (number | undefined)[];
  /** Where each span's shown bytes end (its start when nothing of it was shown). */
  readonly shownEnd: readonly number[];
  /** What is owed of UTF-8 documents: the continuation's ranges. */
  readonly remaining: readonly SourceSpan[];
  /** What was not shown of non-UTF-8 documents (no continuation exists for it). */
  readonly lossyOmitted: readonly SourceSpan[];
}

export function placeSpans(spans: readonly SourceSpan[], budget: number, redact: boolean): Placement {
  const parts: string[] = [];
  const fragments: PlacedFragment[] = [];
  const spanFragment: (number | undefined)[] = [];
  const shownEnd: number[] = [];
  const remaining: SourceSpan[] = [];
  const lossyOmitted: SourceSpan[] = [];
  let used = 0;
  let full = false;
  for (const span of spans) {
    const { document, range } = span;
    let position = range.startByte;
    const lines: string[] = [];
    const raw: string[] = [];
    // Sized for the whole span; it names the lines actually shown (never more digits).
    const headerBytes = Buffer.byteLength(fragmentHeader(span, range.endByte));
    let spanBytes = headerBytes;
    while (!full && position < range.endByte) {
      const line = lineAt(document, position);
      const end = Math.min(lineEnd(document, line), range.endByte);
      const piece = document.bytes.subarray(position, end);
      const content = show(piece, redact, raw[raw.length - 1] ?? lineBefore(document, line));
      const rendered = `${line}\t${content}\n`;
      const size = Buffer.byteLength(rendered);
      if (used + spanBytes + size <= budget) {
        lines.push(rendered);
        raw.push(piece.toString("utf8"));
        spanBytes += size;
        position = end;
        continue;
      }
      const room = budget - used - spanBytes - Buffer.byteLength(`${line}\t\n`);
      if (lines.length === 0 && room >= Math.min(INSPECT_MIN_CUT_BYTES, piece.length) && room > 0) {
        // Not even the first line fits: show its beginning, cut on a character boundary.
        const cut = document.utf8 ? utf8Boundary(document.bytes, position + room, position) : position + room;
        if (cut > position) {
          const partial = document.bytes.subarray(position, cut);
          lines.push(`${line}\t${show(partial, redact, lineBefore(document, line))}\n`);
          raw.push(partial.toString("utf8"));
          spanBytes += Buffer.byteLength(lines[lines.length - 1] as string);
          position = cut;
        }
      }
      full = true;
    }
    shownEnd.push(position);
    if (lines.length > 0) {
      spanFragment.push(fragments.length);
      parts.push(fragmentHeader(span, position), ...lines);
      used += spanBytes;
      fragments.push({
        path: span.display,
        startLine: lineAt(document, range.startByte),
        endLine: lineAt(document, position - 1),
        startByte: range.startByte,
        endByte: position,
        text: raw.join(""),
        lossy: !document.utf8,
      });
    } else spanFragment.push(undefined);
    if (position < range.endByte) {
      const rest: SourceSpan = { ...span, range: { startByte: position, endByte: range.endByte } };
      (document.utf8 ? remaining : lossyOmitted).push(rest);
    }
  }
  return { text: parts.join(""), fragments, spanFragment, shownEnd, remaining, lossyOmitted };
}

function fragmentHeader(span: SourceSpan, shownEnd: number): string {
  const shown: SourceSpan = { ...span, range: { startByte: span.range.startByte, endByte: shownEnd } };
  return `${printablePath(span.display)} ${spanLines(shown)}${span.document.utf8 ? "" : " (not valid UTF-8: a lossy preview)"}:\n`;
}

/** The document's line before `line` ("" before the first): redaction reads it (redact.ts). */
function lineBefore(document: SourceDocument, line: number): string {
  if (line <= 1) return "";
  return document.bytes.subarray(lineStart(document, line - 1), lineEnd(document, line - 1)).toString("utf8");
}

/** A piece of a line as shown: its line feed dropped (the renderer ends every line). */
function show(piece: Buffer, redact: boolean, previous?: string): string {
  const end = piece.length > 0 && piece[piece.length - 1] === 0x0a ? piece.length - 1 : piece.length;
  const text = piece.subarray(0, end).toString("utf8");
  return redact ? redactText(text, previous).text : text;
}

/** `lines a-b` of a span, for notes. */
export function spanLines(span: SourceSpan): string {
  const first = lineAt(span.document, span.range.startByte);
  const last = lineAt(span.document, Math.max(span.range.startByte, span.range.endByte - 1));
  return first === last ? `line ${first}` : `lines ${first}-${last}`;
}
