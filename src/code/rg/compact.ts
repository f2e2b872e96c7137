/**
 * A kept snapshot's matches in compact records. ripgrep's match event repeats the file's path,
 * the protocol's key names and each submatch's text (a copy of part of the line): most of its
 * bytes on code (bench/hardening/RESULTS.md, eighth pass). A record keeps only what decoding reads: the line
 * number, the offset, each submatch's byte range, and the line's value as ripgrep wrote it; the
 * path is kept once per file run. Reading a record rebuilds the event without the submatch
 * texts (which decoding never reads) and decodes it as ripgrep's own, so a page shows the same
 * match from either form (test/code/rg/compact.test.ts).
 *
 * The records are made from the events' bytes as they arrive (`CompactRecorder`), without
 * decoding them: the delimiters looked for all hold an unescaped quote, which no JSON string
 * contains. An event of any other shape ends the records, and the snapshot keeps the events
 * themselves.
 */
import { RG_RECORDS_INITIAL_BYTES, RG_RECORDS_RESERVATION_MAX_BYTES } from "../../core/limits.js";
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

/** A run of one file's records: stream positions `[first, first + count)`. */
export interface RecordRun {
  readonly key: string;
  readonly first: number;
  readonly count: number;
}

/**
 * Compact records made as ripgrep's match events arrive, in stream order, one pass over each
 * event's bytes; `inOrder` then copies them, run by run, into one buffer of exactly their size
 * in the order a snapshot keeps. A record is never longer than its event (the event also holds
 * the path, the key names and each submatch's text), so the event's length bounds the room a
 * record needs. An event of another shape, or a run whose events name two paths, ends the
 * records: `inOrder` then says undefined and the snapshot keeps the events themselves.
 *
 * The records grow in place, in a resizable buffer reserved up to `maxBytes` (what the retention
 * bound lets them reach): growing never copies what was cut, and never holds two copies at once.
 * Records that would pass the reservation end, as an event of another shape does.
 */
export class CompactRecorder {
  readonly #room: ArrayBuffer;
  readonly #out: Uint8Array;
  #used = 0;
  /** Where each position's record starts. */
  #starts = new Uint32Array(1024);
  #count = 0;
  /** The path value of the run beginning at each position, as ripgrep wrote it. */
  readonly #runPaths = new Map<number, string>();
  #runPath: Uint8Array = new Uint8Array(0);
  #failed = false;
  readonly #parts: Parts = {
    pathStart: 0,
    pathEnd: 0,
    linesStart: 0,
    linesEnd: 0,
    line: 0,
    offset: 0,
    ranges: [],
  };

  /** `maxBytes`: the most the records may take (the retention bound, plus one event). */
  constructor(maxBytes: number) {
    const reserved = Math.min(maxBytes, RG_RECORDS_RESERVATION_MAX_BYTES);
    this.#room = new ArrayBuffer(Math.min(RG_RECORDS_INITIAL_BYTES, reserved), { maxByteLength: reserved });
    this.#out = new Uint8Array(this.#room);
  }

  /**
   * Records the event `bytes[start, end)` at the next position; `first` for a run's first.
   * Returns the record's length in bytes, or -1 once the records have ended.
   */
  add(bytes: Uint8Array, start: number, end: number, first: boolean): number {
    if (this.#failed) return -1;
    const parts = this.#parts;
    parts.ranges.length = 0;
    // A run's later events must name the path its first one did: compared, not scanned again.
    if (!split(bytes, start, end, parts, first ? undefined : this.#runPath)) {
      this.#failed = true;
      return -1;
    }
    if (first) this.#notePath(bytes, parts);
    if (!this.#grow(this.#used + end - start)) {
      this.#failed = true;
      return -1;
    }
    if (this.#count === this.#starts.length) {
      const larger = new Uint32Array(this.#starts.length * 2);
      larger.set(this.#starts);
      this.#starts = larger;
    }
    this.#starts[this.#count++] = this.#used;
    const out = this.#out;
    let at = writeVarint(out, this.#used, parts.line);
    at = writeVarint(out, at, parts.offset);
    const ranges = parts.ranges;
    at = writeVarint(out, at, ranges.length / 2);
    for (let i = 0; i < ranges.length; i += 2) {
      at = writeVarint(out, at, ranges[i] as number);
      at = writeVarint(out, at, (ranges[i + 1] as number) - (ranges[i] as number));
    }
    // A native copy through a plain view: a byte loop runs interpreted in a process that makes
    // one search (the CLI), and a Buffer's subarray is slow to make.
    const length = parts.linesEnd - parts.linesStart;
    out.set(new Uint8Array(bytes.buffer, bytes.byteOffset + parts.linesStart, length), at);
    const recordStart = this.#used;
    this.#used = at + length;
    return this.#used - recordStart;
  }

  /** Drops the records from `count` on (a bound fell inside the last run); returns their bytes. */
  truncate(count: number): number {
    if (count >= this.#count) return 0;
    const dropped = this.#used - (this.#starts[count] as number);
    this.#used = this.#starts[count] as number;
    this.#count = count;
    for (const first of this.#runPaths.keys()) if (first >= count) this.#runPaths.delete(first);
    return dropped;
  }

  /**
   * The records of `runs`, in that order, as a snapshot keeps them, or undefined when the
   * records ended early (see above) or a run is not one the records began.
   */
  inOrder(runs: readonly RecordRun[]): CompactMatchTable | undefined {
    if (this.#failed) return undefined;
    let size = 0;
    let length = 0;
    for (const run of runs) {
      if (!this.#runPaths.has(run.first) || run.first + run.count > this.#count) return undefined;
      size += this.#end(run.first + run.count - 1) - (this.#starts[run.first] as number);
      length += run.count;
    }
    const bytes = Buffer.allocUnsafeSlow(size);
    const offsets = new Uint32Array(length + 1);
    const runStarts = new Uint32Array(runs.length);
    const runKeys: string[] = [];
    const runPaths: string[] = [];
    let at = 0;
    let position = 0;
    for (let r = 0; r < runs.length; r++) {
      const run = runs[r] as RecordRun;
      const from = this.#starts[run.first] as number;
      const to = this.#end(run.first + run.count - 1);
      bytes.set(this.#out.subarray(from, to), at);
      runStarts[r] = position;
      runKeys.push(run.key);
      runPaths.push(this.#runPaths.get(run.first) as string);
      for (let i = run.first; i < run.first + run.count; i++)
        offsets[position++] = (this.#starts[i] as number) - from + at;
      at += to - from;
    }
    offsets[length] = size;
    return { kind: "compact", length, bytes, offsets, runStarts, runKeys, runPaths };
  }

  /**
   * The records of `runs` (stream order, covering every position from 0) as a table over the
   * records as made, not copied: what a search's caller reads before a snapshot keeps its own
   * copy (also the records made before they ended). Undefined when a run is not one they began.
   */
  streamTable(runs: readonly RecordRun[]): CompactMatchTable | undefined {
    let position = 0;
    for (const run of runs) {
      if (run.first !== position || !this.#runPaths.has(run.first)) return undefined;
      position += run.count;
    }
    if (position > this.#count) return undefined;
    const offsets = new Uint32Array(position + 1);
    offsets.set(this.#starts.subarray(0, position));
    offsets[position] = position === 0 ? 0 : this.#end(position - 1);
    return {
      kind: "compact",
      length: position,
      bytes: this.#out.subarray(0, offsets[position]),
      offsets,
      runStarts: Uint32Array.from(runs, (run) => run.first),
      runKeys: runs.map((run) => run.key),
      runPaths: runs.map((run) => this.#runPaths.get(run.first) as string),
    };
  }

  /** The match event the record at `position` stands for; `first`: its run's first position. */
  eventAt(position: number, first: number): string {
    const path = this.#runPaths.get(first);
    if (path === undefined || position >= this.#count) throw new Error("no such record");
    return recordEvent(this.#out, this.#starts[position] as number, this.#end(position), path);
  }

  /** Where the record at `position` ends. */
  #end(position: number): number {
    return position + 1 < this.#count ? (this.#starts[position + 1] as number) : this.#used;
  }

  /** Makes the room at least `needed` bytes, doubling it in place; false past the reservation. */
  #grow(needed: number): boolean {
    const room = this.#room;
    if (needed <= room.byteLength) return true;
    if (needed > room.maxByteLength) return false;
    let size = room.byteLength * 2;
    while (size < needed) size *= 2;
    room.resize(Math.min(size, room.maxByteLength));
    return true;
  }

  /** Notes the path of the run that begins at the next position. */
  #notePath(bytes: Uint8Array, parts: Parts): void {
    this.#runPath = bytes.slice(parts.pathStart, parts.pathEnd);
    this.#runPaths.set(this.#count, Buffer.from(this.#runPath).toString("utf8"));
  }
}

/** The match event a record stands for, as ripgrep would print it but for the submatch texts. */
export function eventOf(table: CompactMatchTable, position: number, run: number): string {
  const start = table.offsets[position] as number;
  return recordEvent(
    table.bytes,
    start,
    table.offsets[position + 1] as number,
    table.runPaths[run] as string,
  );
}

/**
 * Every record of `table` as its match event, one after another in one buffer (no line feeds):
 * for a reader of ripgrep's events where the records cannot serve (snapshots/build.ts, and an
 * index whose records ended: event-index.ts).
 */
export function eventsOf(table: CompactMatchTable): {
  bytes: Buffer;
  starts: Uint32Array;
  ends: Uint32Array;
} {
  const events: string[] = [];
  for (let run = 0; run < table.runStarts.length; run++) {
    const end = run + 1 < table.runStarts.length ? (table.runStarts[run + 1] as number) : table.length;
    for (let position = table.runStarts[run] as number; position < end; position++)
      events.push(eventOf(table, position, run));
  }
  const starts = new Uint32Array(events.length);
  const ends = new Uint32Array(events.length);
  let at = 0;
  events.forEach((event, i) => {
    starts[i] = at;
    at += Buffer.byteLength(event);
    ends[i] = at;
  });
  const bytes = Buffer.allocUnsafeSlow(at);
  events.forEach((event, i) => {
    bytes.write(event, starts[i] as number);
  });
  return { bytes, starts, ends };
}

/** The record `bytes[start, end)` as the match event it stands for, in the file `path`. */
function recordEvent(bytes: Uint8Array, start: number, end: number, path: string): string {
  let at = start;
  const line = readVarint(bytes, at);
  at = varintEnd;
  const offset = readVarint(bytes, at);
  at = varintEnd;
  const subs = readVarint(bytes, at);
  at = varintEnd;
  let submatches = "";
  for (let i = 0; i < subs; i++) {
    const from = readVarint(bytes, at);
    const length = readVarint(bytes, varintEnd);
    at = varintEnd;
    submatches += `${i === 0 ? "" : ","}{"match":{"text":""},"start":${from},"end":${from + length}}`;
  }
  const value = Buffer.from(bytes.buffer, bytes.byteOffset + at, end - at).toString("utf8");
  return `{"type":"match","data":{"path":${path},"lines":${value},"line_number":${
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
 * is not a match event of the expected shape, or its path is not `path` (when given). One pass,
 * skipping string literals by their escapes: native searches cost more, per call, than these
 * few hundred bytes do.
 */
function split(
  bytes: Uint8Array,
  start: number,
  end: number,
  parts: Parts,
  path: Uint8Array | undefined,
): boolean {
  if (!at(bytes, start, HEAD)) return false;
  parts.pathStart = start + HEAD.length;
  let p: number;
  if (path === undefined) p = dataValue(bytes, parts.pathStart, end);
  else p = at(bytes, parts.pathStart, path) ? parts.pathStart + path.length : -1;
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
  // The closing quote is the first one after an even number of backslashes. Looked for in a
  // loop: a Buffer's indexOf is a native call whose cost, paid per string, exceeds the scan.
  for (;;) {
    while (p < end && bytes[p] !== 0x22 /* " */) p++;
    if (p >= end) return -1;
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
