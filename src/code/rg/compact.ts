/**
 * A kept snapshot's matches in compact records. ripgrep's match event repeats the file's path,
 * the protocol's key names and each submatch's text (a copy of part of the line): most of its
 * bytes on code (bench/hardening/RESULTS.md, eighth pass). A record keeps only what decoding reads: the line
 * number, the offset, each submatch's byte range, and the line's value as ripgrep wrote it; the
 * path is kept once per file run. Reading a record rebuilds the event without the submatch
 * texts (which decoding never reads) and decodes it as ripgrep's own, so a page shows the same
 * match from either form (test/code/rg/compact.test.ts).
 *
 * The records are made from the events' bytes without decoding them: the delimiters looked for
 * all hold an unescaped quote, which no JSON string contains. An event of any other shape makes
 * `compactEvents` return undefined, and the snapshot keeps the events themselves.
 */
import { fastMatch, fullMatch, type ParsedMatch } from "./events.js";

export interface CompactMatchTable {
  readonly kind: "compact";
  readonly length: number;
  /** The records, one after another. */
  readonly bytes: Uint8Array;
  /** Where each record starts, plus the end of the last one (length + 1 entries). */
  readonly offsets: Uint32Array;
  /** Position of the first match of each file run, ascending; `runKeys` names each run's file. */
  readonly runStarts: Uint32Array;
  readonly runKeys: readonly string[];
  /** Each run's path value (`{"text":...}` or `{"bytes":...}`) as ripgrep wrote it. */
  readonly runPaths: readonly string[];
}

/** Where one match event is: its bytes are `chunk[start, end)`. */
export interface EventAt {
  readonly chunk: Uint8Array;
  readonly start: number;
  readonly end: number;
}

const HEAD = Buffer.from('{"type":"match","data":{"path":');
const LINES = Buffer.from(',"lines":');
const LINE_NUMBER = Buffer.from(',"line_number":');
const OFFSET = Buffer.from(',"absolute_offset":');
const SUBMATCHES = Buffer.from(',"submatches":[');
const SUBMATCH_HEAD = Buffer.from('{"match":');
const START = Buffer.from(',"start":');
const END = Buffer.from(',"end":');
const NULL = Buffer.from("null");
const TEXT = Buffer.from('{"text":"');
const BYTES = Buffer.from('{"bytes":"');

/** One event's parts: where its path and line values are, and its numbers. */
interface Parts {
  pathStart: number;
  pathEnd: number;
  linesStart: number;
  linesEnd: number;
  /** 0 for `null`; line numbers start at 1. */
  line: number;
  offset: number;
  /** Submatch starts and ends, in order. */
  readonly ranges: number[];
}

/**
 * The compact form of `count` match events in position order, grouped in the runs `runStarts`
 * and `runKeys` describe, or undefined when an event is not of the expected shape or a run's
 * events do not all name one path.
 */
export function compactEvents(
  count: number,
  eventAt: (position: number) => EventAt,
  runStarts: Uint32Array,
  runKeys: readonly string[],
): CompactMatchTable | undefined {
  // First pass: every event's parts and its record's size; second: the records, in one buffer
  // of exactly their size. The working arrays are plain arrays, in V8's heap: typed arrays would
  // be short-lived C allocations, which leave glibc's heap holding freed memory among the kept
  // records.
  const lines: number[] = [];
  const offsets: number[] = [];
  const linesStart: number[] = [];
  const linesEnd: number[] = [];
  const rangeStart: number[] = [];
  const ranges: number[] = [];
  const recordStarts = new Uint32Array(count + 1);
  const runPaths: string[] = [];
  const parts: Parts = { pathStart: 0, pathEnd: 0, linesStart: 0, linesEnd: 0, line: 0, offset: 0, ranges };
  let size = 0;
  let run = -1;
  let runPath: Uint8Array | undefined;
  for (let position = 0; position < count; position++) {
    const event = eventAt(position);
    const bytes = event.chunk;
    rangeStart[position] = ranges.length;
    if (!split(bytes, event.start, event.end, parts)) return undefined;
    const pathLength = parts.pathEnd - parts.pathStart;
    if (run + 1 < runStarts.length && position === runStarts[run + 1]) {
      run++;
      runPath = bytes.subarray(parts.pathStart, parts.pathEnd);
      runPaths.push(Buffer.from(runPath.buffer, runPath.byteOffset, runPath.length).toString("utf8"));
    } else if (
      runPath === undefined ||
      runPath.length !== pathLength ||
      !same(bytes, parts.pathStart, runPath, 0, pathLength)
    ) {
      return undefined;
    }
    lines[position] = parts.line;
    offsets[position] = parts.offset;
    linesStart[position] = parts.linesStart;
    linesEnd[position] = parts.linesEnd;
    const subs = (ranges.length - (rangeStart[position] as number)) / 2;
    let record = varintSize(parts.line) + varintSize(parts.offset) + varintSize(subs);
    for (let i = rangeStart[position] as number; i < ranges.length; i += 2) {
      record +=
        varintSize(ranges[i] as number) + varintSize((ranges[i + 1] as number) - (ranges[i] as number));
    }
    recordStarts[position] = size;
    size += record + (parts.linesEnd - parts.linesStart);
  }
  if (runPaths.length !== runKeys.length) return undefined;
  rangeStart[count] = ranges.length;
  recordStarts[count] = size;
  const out = Buffer.allocUnsafeSlow(size);
  let at = 0;
  for (let position = 0; position < count; position++) {
    const event = eventAt(position);
    const from = rangeStart[position] as number;
    const to = rangeStart[position + 1] as number;
    at = writeVarint(out, at, lines[position] as number);
    at = writeVarint(out, at, offsets[position] as number);
    at = writeVarint(out, at, (to - from) / 2);
    for (let i = from; i < to; i += 2) {
      at = writeVarint(out, at, ranges[i] as number);
      at = writeVarint(out, at, (ranges[i + 1] as number) - (ranges[i] as number));
    }
    // A loop: a subarray per record is an object for the collector, and a Buffer's is slow to make.
    const chunk = event.chunk;
    for (let i = linesStart[position] as number, to = linesEnd[position] as number; i < to; i++)
      out[at++] = chunk[i] as number;
  }
  return { kind: "compact", length: count, bytes: out, offsets: recordStarts, runStarts, runKeys, runPaths };
}

/** The match event a record stands for, as ripgrep would print it but for the submatch texts. */
export function eventOf(table: CompactMatchTable, position: number, run: number): string {
  const bytes = table.bytes;
  let at = table.offsets[position] as number;
  const end = table.offsets[position + 1] as number;
  const line = readVarint(bytes, at);
  at = varintEnd;
  const offset = readVarint(bytes, at);
  at = varintEnd;
  const subs = readVarint(bytes, at);
  at = varintEnd;
  let submatches = "";
  for (let i = 0; i < subs; i++) {
    const start = readVarint(bytes, at);
    const length = readVarint(bytes, varintEnd);
    at = varintEnd;
    submatches += `${i === 0 ? "" : ","}{"match":{"text":""},"start":${start},"end":${start + length}}`;
  }
  const value = Buffer.from(bytes.buffer, bytes.byteOffset + at, end - at).toString("utf8");
  return `{"type":"match","data":{"path":${table.runPaths[run]},"lines":${value},"line_number":${
    line === 0 ? "null" : line
  },"absolute_offset":${offset},"submatches":[${submatches}]}}`;
}

/** The record at `position` of run `run`, decoded. */
export function compactMatchAt(table: CompactMatchTable, position: number, run: number): ParsedMatch {
  const event = eventOf(table, position, run);
  return fastMatch(event) ?? fullMatch(event);
}

/** A light shape check for a table read back from storage. */
export function isCompactTable(value: Partial<Record<keyof CompactMatchTable, unknown>>): boolean {
  return (
    value.kind === "compact" &&
    value.bytes instanceof Uint8Array &&
    value.offsets instanceof Uint32Array &&
    value.runStarts instanceof Uint32Array &&
    Array.isArray(value.runKeys) &&
    Array.isArray(value.runPaths) &&
    value.runKeys.length === value.runStarts.length &&
    value.runPaths.length === value.runKeys.length &&
    typeof value.length === "number" &&
    value.offsets.length === value.length + 1 &&
    value.offsets.every(
      (o, i, all) => o <= (value.bytes as Uint8Array).length && (i === 0 || (all[i - 1] as number) <= o),
    )
  );
}

/**
 * Splits the event `bytes[start, end)` into `parts`, appending its submatch ranges; false if it
 * is not a match event of the expected shape. One pass, skipping string literals by their
 * escapes: native searches cost more, per call, than these few hundred bytes do.
 */
function split(bytes: Uint8Array, start: number, end: number, parts: Parts): boolean {
  if (!at(bytes, start, HEAD)) return false;
  parts.pathStart = start + HEAD.length;
  let p = dataValue(bytes, parts.pathStart, end);
  if (p < 0 || !at(bytes, p, LINES)) return false;
  parts.pathEnd = p;
  parts.linesStart = p + LINES.length;
  p = dataValue(bytes, parts.linesStart, end);
  if (p < 0 || !at(bytes, p, LINE_NUMBER)) return false;
  parts.linesEnd = p;
  p += LINE_NUMBER.length;
  if (at(bytes, p, NULL)) {
    parts.line = 0;
    p += NULL.length;
  } else {
    parts.line = readDigits(bytes, p, end);
    if (parts.line <= 0) return false;
    p = digitsEnd;
  }
  if (!at(bytes, p, OFFSET)) return false;
  parts.offset = readDigits(bytes, p + OFFSET.length, end);
  if (parts.offset < 0) return false;
  p = digitsEnd;
  if (!at(bytes, p, SUBMATCHES)) return false;
  p += SUBMATCHES.length;
  if (bytes[p] !== 0x5d /* ] */) {
    for (;;) {
      if (!at(bytes, p, SUBMATCH_HEAD)) return false;
      p = dataValue(bytes, p + SUBMATCH_HEAD.length, end);
      if (p < 0 || !at(bytes, p, START)) return false;
      const from = readDigits(bytes, p + START.length, end);
      if (from < 0 || !at(bytes, digitsEnd, END)) return false;
      const to = readDigits(bytes, digitsEnd + END.length, end);
      if (to < from || bytes[digitsEnd] !== 0x7d /* } */) return false;
      parts.ranges.push(from, to);
      p = digitsEnd + 1;
      if (bytes[p] !== 0x2c /* , */) break;
      p++;
    }
  }
  return p + 3 === end && bytes[p] === 0x5d && bytes[p + 1] === 0x7d && bytes[p + 2] === 0x7d;
}

/**
 * The end of ripgrep's data value at `from`, `{"text":"..."}` or `{"bytes":"..."}`, or -1. Its
 * string is skipped to its closing quote, over escaped characters.
 */
function dataValue(bytes: Uint8Array, from: number, end: number): number {
  let p = at(bytes, from, TEXT) ? from + TEXT.length : at(bytes, from, BYTES) ? from + BYTES.length : -1;
  if (p < 0) return -1;
  // The closing quote is the first one after an even number of backslashes.
  for (;;) {
    p = bytes.indexOf(0x22 /* " */, p);
    if (p < 0 || p >= end) return -1;
    let slashes = 0;
    while (bytes[p - 1 - slashes] === 0x5c /* \ */) slashes++;
    if (slashes % 2 === 0) break;
    p++;
  }
  return p + 1 < end && bytes[p + 1] === 0x7d /* } */ ? p + 2 : -1;
}

/** Whether `expected` is at `position` (a loop: a Buffer method call costs more for so few bytes). */
function at(bytes: Uint8Array, position: number, expected: Uint8Array): boolean {
  if (position + expected.length > bytes.length) return false;
  for (let i = 0; i < expected.length; i++) if (bytes[position + i] !== expected[i]) return false;
  return true;
}

/** Whether `bytes[a, a + length)` and `bytes[b, b + length)` hold the same bytes. */
function same(bytes: Uint8Array, a: number, other: Uint8Array, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (bytes[a + i] !== other[b + i]) return false;
  return true;
}

/** Where the last `readDigits` stopped. */
let digitsEnd = 0;

/** The decimal number at `from` (at most 15 digits, so exact), or -1 when there is none. */
function readDigits(bytes: Uint8Array, from: number, end: number): number {
  let p = from;
  let value = 0;
  for (let c = bytes[p] as number; p < end && c >= 0x30 && c <= 0x39; c = bytes[++p] as number)
    value = value * 10 + (c - 0x30);
  digitsEnd = p;
  return p === from || p - from > 15 ? -1 : value;
}

/** Bytes of `value` (a safe non-negative integer) as a little-endian base-128 varint. */
function varintSize(value: number): number {
  let size = 1;
  for (let v = value; v >= 0x80; v = Math.floor(v / 0x80)) size++;
  return size;
}

function writeVarint(out: Uint8Array, position: number, value: number): number {
  let p = position;
  let v = value;
  while (v >= 0x80) {
    out[p++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  out[p++] = v;
  return p;
}

/** Where the last `readVarint` stopped. */
let varintEnd = 0;

function readVarint(bytes: Uint8Array, position: number): number {
  let p = position;
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = bytes[p++] as number;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) break;
    scale *= 0x80;
  }
  varintEnd = p;
  return value;
}
