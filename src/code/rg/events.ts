/**
 * ripgrep's `--json` match events, decoded one line at a time (the stream itself is indexed by
 * `event-index.ts`), and LF-framed line splitting for byte streams. A protocol line longer than
 * RG_MAX_PROTOCOL_LINE_BYTES is refused rather than buffered without bound. Every occurrence
 * keeps its exact byte range within the line and the matching UTF-16 columns.
 */
import { EvidentError } from "../../core/errors.js";
import { RG_MAX_PROTOCOL_LINE_BYTES } from "../../core/limits.js";

export interface Occurrence {
  /** Byte offsets within the line, end exclusive, as ripgrep reports them. */
  readonly startByte: number;
  readonly endByte: number;
  /** UTF-16 code-unit offsets within the line text, 0-based, end exclusive. */
  readonly startColumn: number;
  readonly endColumn: number;
}

export interface ParsedMatch {
  /** The path as ripgrep printed it (relative to its working directory, or absolute). */
  readonly path: string;
  /** The name was not valid UTF-8 and was decoded with replacement characters. */
  readonly pathLossy: boolean;
  /** 1-based line number. */
  readonly line: number;
  /** Byte offset of the line's start in the file. */
  readonly absoluteOffset: number;
  /** The line without its terminator (LF, or CRLF). */
  readonly text: string;
  /** The line was not valid UTF-8; `text` and the columns are a lossy view. */
  readonly textLossy: boolean;
  /** The line's own bytes (terminator removed), kept only when `textLossy`. */
  readonly rawText?: Buffer;
  readonly occurrences: readonly Occurrence[];
}

export interface RgSummary {
  readonly matchedLines: number;
  readonly matches: number;
  readonly searches: number;
}

/** Thrown when a single protocol line exceeds the cap; the search stops and says so. */
export class ProtocolLineTooLong extends Error {
  constructor(readonly bytes: number) {
    super(`ripgrep protocol line exceeded ${RG_MAX_PROTOCOL_LINE_BYTES} bytes`);
    this.name = "ProtocolLineTooLong";
  }
}

/** Splits a byte stream into lines on LF without decoding partial lines. */
export class LineSplitter {
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  constructor(
    private readonly delimiter: number = 0x0a,
    private readonly maxLineBytes: number = RG_MAX_PROTOCOL_LINE_BYTES,
  ) {}

  /** Calls `onLine` for every line completed by `chunk` (without the delimiter). */
  push(chunk: Buffer, onLine: (line: Buffer) => void): void {
    let start = 0;
    let index = chunk.indexOf(this.delimiter, start);
    while (index !== -1) {
      let line: Buffer;
      if (this.#pendingBytes > 0) {
        this.#pending.push(chunk.subarray(start, index));
        line = Buffer.concat(this.#pending, this.#pendingBytes + index - start);
        this.#pending = [];
        this.#pendingBytes = 0;
      } else {
        line = chunk.subarray(start, index);
      }
      if (line.length > this.maxLineBytes) throw new ProtocolLineTooLong(line.length);
      onLine(line);
      start = index + 1;
      index = chunk.indexOf(this.delimiter, start);
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.#pendingBytes += rest.length;
      if (this.#pendingBytes > this.maxLineBytes) throw new ProtocolLineTooLong(this.#pendingBytes);
      // Copy: the producer may reuse its chunk buffers.
      this.#pending.push(Buffer.from(rest));
    }
  }

  /** The unterminated tail, if any, once the stream has ended. */
  end(onLine: (line: Buffer) => void): void {
    if (this.#pendingBytes === 0) return;
    const line = Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    onLine(line);
  }
}

interface RgData {
  readonly text?: string;
  readonly bytes?: string;
}

interface RgMatchEvent {
  readonly path: RgData;
  readonly lines: RgData;
  readonly line_number: number | null;
  readonly absolute_offset: number;
  readonly submatches: readonly { readonly start: number; readonly end: number }[];
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch (cause) {
    throw new EvidentError("internal_error", "ripgrep produced a protocol line that is not JSON.", { cause });
  }
}

function decode(data: RgData): { text: string; lossy: boolean; raw: Buffer | undefined } {
  if (typeof data.text === "string") return { text: data.text, lossy: false, raw: undefined };
  const raw = Buffer.from(data.bytes ?? "", "base64");
  return { text: raw.toString("utf8"), lossy: true, raw };
}

const FAST_LINES = '},"lines":{"text":';
const FAST_TAIL = '},"line_number":';
const FAST_START = '},"start":';
/*
 * Fixed delimiters are checked with sticky patterns: `test` at a position costs a fraction of
 * `startsWith` with a position, or of a slice and a comparison.
 */
const FAST_HEAD = /\{"type":"match","data":\{"path":\{"text":/y;
const FAST_HEAD_LENGTH = '{"type":"match","data":{"path":{"text":'.length;
const FAST_NUMBERS = /(?:\d+|null),"absolute_offset":\d+,"submatches":\[/y;
const FAST_OFFSET_LENGTH = ',"absolute_offset":'.length;
const FAST_SUBMATCH = /\d+,"end":\d+\}/y;
const FAST_END_LENGTH = ',"end":'.length;
/** Printable ASCII but the quote and the backslash: JSON string content that needs no decoding. */
const PLAIN = /[\x20\x21\x23-\x5b\x5d-\x7e]*/y;
/** What may follow plain content: an escaped LF or CRLF terminator, the closing quote, the numbers. */
const PLAIN_TAIL = /(?:\\r\\n|\\n)?"\},"line_number":(?:\d+|null),"absolute_offset":\d+,"submatches":\[/y;

/** Whether `pattern` (sticky) matches `s` at `at`; its lastIndex is then where it ended. */
function at(pattern: RegExp, s: string, position: number): boolean {
  pattern.lastIndex = position;
  return pattern.test(s);
}

/**
 * The common match event (UTF-8 path and line) without a full JSON parse, which is most of the
 * protocol's cost on broad searches: at most the two string literals are parsed, numbers are
 * read digit by digit, and the match is built directly (no intermediate event objects). The
 * delimiters searched for all contain an unescaped quote, so none can occur inside a JSON
 * string. Anything unexpected returns undefined and takes the full parse.
 */
export function fastMatch(line: string): ParsedMatch | undefined {
  return at(FAST_HEAD, line, 0) ? scanMatch(line, 0, line.length) : undefined;
}

/** Where a match event's parts are in its line, found without decoding them. */
interface EventLayout {
  readonly pathStart: number;
  readonly pathEnd: number;
  readonly textStart: number;
  /** The end of the line text's JSON literal. */
  readonly textEnd: number;
  /** The end of the literal's plain content (printable ASCII, no escapes), or -1. */
  readonly plainEnd: number;
  readonly submatchesStart: number;
  readonly lineNumber: number;
  readonly absoluteOffset: number;
}

/** `fastMatch` of the line `s[st, e)`, read in place, once `FAST_HEAD` has matched at `st`. */
function scanMatch(s: string, st: number, e: number): ParsedMatch | undefined {
  const layout = locate(s, st, e);
  if (layout === undefined) return undefined;
  let path: unknown;
  try {
    path = JSON.parse(s.slice(layout.pathStart, layout.pathEnd));
  } catch {
    return undefined;
  }
  if (typeof path !== "string") return undefined;
  const text = lineText(s, layout);
  if (text === undefined) return undefined;
  const occurrences = readSubmatches(s, layout.submatchesStart, e, text.full);
  if (occurrences === undefined) return undefined;
  return {
    path,
    pathLossy: false,
    line: layout.lineNumber,
    absoluteOffset: layout.absoluteOffset,
    text: text.text,
    textLossy: false,
    occurrences,
  };
}

/**
 * The layout of the match event `s[st, e)`. A plain line text (printable ASCII, then an LF or
 * CRLF terminator or none) is read in one pass that also finds the delimiter after it; any other
 * literal is found by the delimiter that follows it. The numbers' shape is checked at once, then
 * their digits are read where they must be.
 */
function locate(s: string, st: number, e: number): EventLayout | undefined {
  const pathStart = st + FAST_HEAD_LENGTH;
  // No delimiter contains a line feed, so one found before `e` lies wholly within the line.
  const pathEnd = s.indexOf(FAST_LINES, pathStart);
  if (pathEnd === -1 || pathEnd >= e) return undefined;
  const textStart = pathEnd + FAST_LINES.length;
  let plainEnd = -1;
  let textEnd = -1;
  let submatchesStart = -1;
  if (s.charCodeAt(textStart) === 0x22 /* " */) {
    PLAIN.lastIndex = textStart + 1;
    PLAIN.test(s);
    const run = PLAIN.lastIndex;
    if (at(PLAIN_TAIL, s, run)) {
      plainEnd = run;
      // What follows the plain content: a closing quote, or an escaped LF or CRLF before it.
      const close =
        s.charCodeAt(run) === 0x22 ? run : s.charCodeAt(run + 1) === 0x6e /* n */ ? run + 2 : run + 4;
      textEnd = close + 1;
      submatchesStart = PLAIN_TAIL.lastIndex;
    }
  }
  if (plainEnd === -1) {
    textEnd = s.indexOf(FAST_TAIL, textStart);
    if (textEnd === -1 || textEnd >= e || !at(FAST_NUMBERS, s, textEnd + FAST_TAIL.length)) return undefined;
    submatchesStart = FAST_NUMBERS.lastIndex;
  }
  let p = textEnd + FAST_TAIL.length;
  let lineNumber = 0;
  if (s.charCodeAt(p) === 0x6e /* n */) p += 4;
  else {
    lineNumber = readNatural(s, p);
    p = naturalEnd;
  }
  const absoluteOffset = readNatural(s, p + FAST_OFFSET_LENGTH);
  return { pathStart, pathEnd, textStart, textEnd, plainEnd, submatchesStart, lineNumber, absoluteOffset };
}

/**
 * The line's text without its terminator, and (`full`) the text with it when it is not ASCII,
 * whose columns then need counting. Printable ASCII without escapes is the literal's content as
 * it stands, and its columns are byte offsets.
 */
function lineText(s: string, layout: EventLayout): { text: string; full: string | undefined } | undefined {
  if (layout.plainEnd !== -1)
    return { text: s.slice(layout.textStart + 1, layout.plainEnd), full: undefined };
  let parsed: unknown;
  try {
    parsed = JSON.parse(s.slice(layout.textStart, layout.textEnd));
  } catch {
    return undefined;
  }
  if (typeof parsed !== "string") return undefined;
  const full = Buffer.byteLength(parsed, "utf8") !== parsed.length ? parsed : undefined;
  return { text: stripTerminator(parsed), full };
}

/**
 * The submatches from `from`, checked strictly to the end of the line `e`, as occurrences; their
 * columns counted in `full` when the line is not ASCII. ASCII lines map bytes to columns one to
 * one; the first occurrence goes into an array literal (sized for one, the common case).
 */
function readSubmatches(
  s: string,
  from: number,
  e: number,
  full: string | undefined,
): Occurrence[] | undefined {
  let occurrences: Occurrence[] | undefined;
  let submatches: Submatch[] | undefined;
  let firstStart = -1;
  let firstEnd = -1;
  let p = from;
  if (s.charCodeAt(p) !== 0x5d) {
    for (;;) {
      const found = s.indexOf(FAST_START, p);
      if (found === -1 || found >= e || !at(FAST_SUBMATCH, s, found + FAST_START.length)) return undefined;
      const start = readNatural(s, found + FAST_START.length);
      const end = readNatural(s, naturalEnd + FAST_END_LENGTH);
      if (full !== undefined) {
        if (submatches === undefined) submatches = [{ start, end }];
        else submatches.push({ start, end });
      } else if (firstStart < 0) {
        firstStart = start;
        firstEnd = end;
      } else {
        const occurrence = { startByte: start, endByte: end, startColumn: start, endColumn: end };
        if (occurrences === undefined) {
          occurrences = [
            { startByte: firstStart, endByte: firstEnd, startColumn: firstStart, endColumn: firstEnd },
            occurrence,
          ];
        } else occurrences.push(occurrence);
      }
      p = naturalEnd + 1;
      if (s.charCodeAt(p) !== 0x2c) break;
      p++;
    }
  }
  if (
    p + 3 !== e ||
    s.charCodeAt(p) !== 0x5d /* ] */ ||
    s.charCodeAt(p + 1) !== 0x7d /* } */ ||
    s.charCodeAt(p + 2) !== 0x7d /* } */
  ) {
    return undefined;
  }
  if (full !== undefined) return utf8Columns(full, submatches ?? []);
  return (
    occurrences ??
    (firstStart < 0
      ? []
      : [{ startByte: firstStart, endByte: firstEnd, startColumn: firstStart, endColumn: firstEnd }])
  );
}

/** Where the last `readNatural` stopped. */
let naturalEnd = 0;

/**
 * The decimal digits at `at` as a number (what `Number` makes of them), or -1 when there are
 * none; `naturalEnd` is set to the first position after them.
 */
function readNatural(s: string, at: number): number {
  let p = at;
  let value = 0;
  for (let c = s.charCodeAt(p); c >= 0x30 && c <= 0x39; c = s.charCodeAt(++p))
    value = value * 10 + (c - 0x30);
  naturalEnd = p;
  if (p === at) return -1;
  // Beyond 15 digits the running sum may round differently from a decimal conversion.
  return p - at > 15 ? Number(s.slice(at, p)) : value;
}

/** A match event decoded by a full JSON parse: the reference the fast path must agree with. */
export function fullMatch(line: string): ParsedMatch {
  return toMatch((parseJson(line) as { data: RgMatchEvent }).data);
}

function toMatch(data: RgMatchEvent): ParsedMatch {
  if (data === null || typeof data !== "object" || !Array.isArray(data.submatches)) {
    throw new EvidentError("internal_error", "ripgrep produced a match event of an unknown shape.");
  }
  const path = decode(data.path);
  const lines = decode(data.lines);
  const text = stripTerminator(lines.text);
  const occurrences =
    lines.raw === undefined
      ? utf8Columns(lines.text, data.submatches)
      : lossyColumns(lines.raw, data.submatches);
  return {
    path: path.text,
    pathLossy: path.lossy,
    line: data.line_number ?? 0,
    absoluteOffset: data.absolute_offset,
    text,
    textLossy: lines.lossy,
    ...(lines.raw === undefined ? {} : { rawText: stripRawTerminator(lines.raw) }),
    occurrences,
  };
}

function stripTerminator(text: string): string {
  if (text.endsWith("\r\n")) return text.slice(0, -2);
  if (text.endsWith("\n")) return text.slice(0, -1);
  return text;
}

function stripRawTerminator(raw: Buffer): Buffer {
  let end = raw.length;
  if (end > 0 && raw[end - 1] === 0x0a) end--;
  if (end > 0 && raw[end - 1] === 0x0d && end < raw.length) end--;
  return raw.subarray(0, end);
}

type Submatch = { readonly start: number; readonly end: number };

/**
 * Byte offsets to UTF-16 columns for valid UTF-8 text, in one pass over the line. Pure ASCII
 * lines (the common case) map one to one. An offset inside a character (possible with
 * byte-oriented regexes) maps to the start of that character.
 */
export function utf8Columns(text: string, submatches: readonly Submatch[]): Occurrence[] {
  if (Buffer.byteLength(text, "utf8") === text.length) {
    return submatches.map((s) => ({
      startByte: s.start,
      endByte: s.end,
      startColumn: s.start,
      endColumn: s.end,
    }));
  }
  let byte = 0;
  let unit = 0;
  /** Advances to the character containing byte `target` (never backwards) and returns its column. */
  const column = (target: number): number => {
    while (unit < text.length) {
      const code = text.codePointAt(unit) ?? 0;
      const width = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
      if (byte + width > target) break;
      byte += width;
      unit += code > 0xffff ? 2 : 1;
    }
    return unit;
  };
  // ripgrep reports submatches in order and apart: then one walk serves them all, in order.
  let ordered = true;
  for (let i = 0, last = 0; i < submatches.length; i++) {
    const s = submatches[i] as Submatch;
    if (s.start < last || s.end < s.start) {
      ordered = false;
      break;
    }
    last = s.end;
  }
  if (ordered) {
    return submatches.map((s) => ({
      startByte: s.start,
      endByte: s.end,
      startColumn: column(s.start),
      endColumn: column(s.end),
    }));
  }
  const targets = [...new Set(submatches.flatMap((s) => [s.start, s.end]))].sort((a, b) => a - b);
  const columns = new Map<number, number>();
  for (const target of targets) columns.set(target, column(target));
  return submatches.map((s) => ({
    startByte: s.start,
    endByte: s.end,
    startColumn: columns.get(s.start) ?? 0,
    endColumn: columns.get(s.end) ?? 0,
  }));
}

/** Columns in the lossy decoding of a non-UTF-8 line: the decoded length of each byte prefix. */
function lossyColumns(raw: Buffer, submatches: readonly Submatch[]): Occurrence[] {
  const column = (offset: number) => raw.subarray(0, offset).toString("utf8").length;
  return submatches.map((s) => ({
    startByte: s.start,
    endByte: s.end,
    startColumn: column(s.start),
    endColumn: column(s.end),
  }));
}
