/**
 * The ripgrep `--json` protocol, read as a stream. Chunks may split anywhere, also inside a
 * multi-byte character: lines are cut on the LF byte and decoded only when complete. A protocol
 * line longer than RG_MAX_PROTOCOL_LINE_BYTES is refused rather than buffered without bound.
 * Every occurrence keeps its exact byte range within the line and the matching UTF-16 columns.
 */
import { EvidentError } from "../core/errors.js";
import { RG_MAX_PROTOCOL_LINE_BYTES } from "../core/limits.js";

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

const MATCH_PREFIX = '{"type":"match"';
const SUMMARY_PREFIX = '{"type":"summary"';

/**
 * Turns protocol lines into matches. Only `match` and `summary` events are decoded; `begin`,
 * `end` and `context` carry nothing the snapshot keeps, and skipping their JSON parse is most
 * of the protocol's cost on broad searches.
 */
export class RgJsonParser {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #summary: RgSummary | undefined;
  readonly #pathMemo: PathMemo = { raw: "", path: "" };

  constructor(
    private readonly onMatch: (match: ParsedMatch) => void,
    private readonly maxLineBytes: number = RG_MAX_PROTOCOL_LINE_BYTES,
  ) {}

  get summary(): RgSummary | undefined {
    return this.#summary;
  }

  /**
   * Decodes every complete line of the chunk as one string (one native decode instead of one
   * per line: most of the protocol's cost on broad searches); the unterminated tail waits, as
   * bytes, for the next chunk.
   */
  push(chunk: Buffer): void {
    const last = chunk.lastIndexOf(0x0a);
    if (last === -1) {
      this.#hold(chunk);
      return;
    }
    const first = chunk.indexOf(0x0a);
    if (this.#pendingBytes + first > this.maxLineBytes)
      throw new ProtocolLineTooLong(this.#pendingBytes + first);
    const text =
      this.#pendingBytes === 0
        ? chunk.toString("utf8", 0, last)
        : Buffer.concat([...this.#pending, chunk.subarray(0, last)]).toString("utf8");
    this.#pending = [];
    this.#pendingBytes = 0;
    let start = 0;
    while (start <= text.length) {
      let end = text.indexOf("\n", start);
      if (end === -1) end = text.length;
      const line = text.slice(start, end);
      // Within one chunk only the first line can be long; check the rest cheaply by length.
      if (line.length * 3 > this.maxLineBytes && Buffer.byteLength(line) > this.maxLineBytes) {
        throw new ProtocolLineTooLong(Buffer.byteLength(line));
      }
      this.#line(line);
      start = end + 1;
    }
    if (last + 1 < chunk.length) this.#hold(chunk.subarray(last + 1));
  }

  end(): void {
    if (this.#pendingBytes === 0) return;
    const line = Buffer.concat(this.#pending).toString("utf8");
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#line(line);
  }

  #hold(bytes: Buffer): void {
    this.#pendingBytes += bytes.length;
    if (this.#pendingBytes > this.maxLineBytes) throw new ProtocolLineTooLong(this.#pendingBytes);
    // Copy: the stream may reuse its chunk buffers.
    this.#pending.push(Buffer.from(bytes));
  }

  #line(line: string): void {
    if (line.startsWith(MATCH_PREFIX)) {
      this.onMatch(fastMatch(line, this.#pathMemo) ?? fullMatch(line));
    } else if (line.startsWith(SUMMARY_PREFIX)) {
      const event = parseJson(line) as {
        data: { stats: { matched_lines: number; matches: number; searches: number } };
      };
      const stats = event.data.stats;
      this.#summary = { matchedLines: stats.matched_lines, matches: stats.matches, searches: stats.searches };
    }
  }
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

/** The last decoded path, by its raw JSON spelling. */
export interface PathMemo {
  raw: string;
  path: string;
}

const FAST_HEAD = '{"type":"match","data":{"path":{"text":';
const FAST_LINES = '},"lines":{"text":';
const FAST_TAIL = '},"line_number":';
const NUMBERS = /},"line_number":(\d+|null),"absolute_offset":(\d+),"submatches":\[/y;
const SUBMATCH_END = /},"start":(\d+),"end":(\d+)}[,\]]/g;

/**
 * The common match event (UTF-8 path and line) without a full JSON parse, which is most of the
 * protocol's cost on broad searches: only the two string literals are parsed, numbers are read
 * by anchored patterns, and the match is built directly (no intermediate event objects). The
 * delimiters used all contain an unescaped quote, so none can occur inside a JSON string.
 * Anything unexpected returns undefined and takes the full parse.
 */
export function fastMatch(line: string, previous?: PathMemo): ParsedMatch | undefined {
  if (!line.startsWith(FAST_HEAD)) return undefined;
  const pathEnd = line.indexOf(FAST_LINES, FAST_HEAD.length);
  if (pathEnd === -1) return undefined;
  const textStart = pathEnd + FAST_LINES.length;
  const textEnd = line.indexOf(FAST_TAIL, textStart);
  if (textEnd === -1) return undefined;
  NUMBERS.lastIndex = textEnd;
  const numbers = NUMBERS.exec(line);
  if (numbers === null || !line.endsWith("]}}")) return undefined;
  const rawPath = line.slice(FAST_HEAD.length, pathEnd);
  let path: unknown;
  let text: unknown;
  try {
    // A file's matches arrive together: reuse its decoded path (one string, not one per line).
    path = previous !== undefined && previous.raw === rawPath ? previous.path : JSON.parse(rawPath);
    text = JSON.parse(line.slice(textStart, textEnd));
  } catch {
    return undefined;
  }
  if (typeof path !== "string" || typeof text !== "string") return undefined;
  if (previous !== undefined) {
    previous.raw = rawPath;
    previous.path = path;
  }
  const ascii = Buffer.byteLength(text, "utf8") === text.length;
  const occurrences: Occurrence[] = [];
  const submatches: Submatch[] = [];
  SUBMATCH_END.lastIndex = NUMBERS.lastIndex;
  for (let m = SUBMATCH_END.exec(line); m !== null; m = SUBMATCH_END.exec(line)) {
    const start = Number(m[1]);
    const end = Number(m[2]);
    if (ascii) occurrences.push({ startByte: start, endByte: end, startColumn: start, endColumn: end });
    else submatches.push({ start, end });
  }
  return {
    path,
    pathLossy: false,
    line: numbers[1] === "null" ? 0 : Number(numbers[1]),
    absoluteOffset: Number(numbers[2]),
    text: stripTerminator(text),
    textLossy: false,
    occurrences: ascii ? occurrences : utf8Columns(text, submatches),
  };
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
    occurrences,
  };
}

function stripTerminator(text: string): string {
  if (text.endsWith("\r\n")) return text.slice(0, -2);
  if (text.endsWith("\n")) return text.slice(0, -1);
  return text;
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
  const targets = [...new Set(submatches.flatMap((s) => [s.start, s.end]))].sort((a, b) => a - b);
  const columns = new Map<number, number>();
  let byte = 0;
  let unit = 0;
  for (const target of targets) {
    while (unit < text.length) {
      const code = text.codePointAt(unit) ?? 0;
      const width = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
      if (byte + width > target) break;
      byte += width;
      unit += code > 0xffff ? 2 : 1;
    }
    columns.set(target, unit);
  }
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
