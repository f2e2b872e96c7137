/**
 * ripgrep's `--json` stream, indexed rather than decoded. Each protocol line is found by its line
 * feed and told apart by its fixed type prefix; a match event is only recorded (its byte range),
 * a file's `begin` names the run and its `end` closes it with ripgrep's own counts. Decoding a
 * match is left to whoever shows it (`match-table.ts`), which on a broad search is a few dozen of
 * tens of thousands of lines.
 *
 * The counts are checked, not assumed: the match events of a run must number what `end` reports
 * as matched lines, and where the occurrence count is needed inside a run (a bound reached in
 * the middle of a file) the events are decoded and counted one by one. Retention bounds apply in
 * stream order, exactly where they would if every event were decoded as it arrived.
 *
 * The byte bound counts what a snapshot keeps: the compact records (rg/compact.ts) while they are
 * made, else the events themselves. Should the records end (an event of another shape), the
 * snapshot keeps the events, so the bound counts their bytes from then on, and what was kept past
 * it is dropped there.
 *
 * While records are made, ripgrep's read chunks are let go of as soon as their lines are indexed
 * (all but the one an unfinished line began in): the records hold what is retained, and a
 * retained event is rebuilt from its record when it is needed again. Held for the whole search,
 * the chunks (several times the records' bytes) were freed only by the collection after it, and
 * the C allocator kept its heap at that peak. Without records (analyses' scans) the table
 * refers to the chunks themselves.
 */
import { EvidentError } from "../../core/errors.js";
import {
  RG_MAX_PROTOCOL_LINE_BYTES,
  SNAPSHOT_FILE_OVERHEAD_BYTES,
  SNAPSHOT_MATCH_OVERHEAD_BYTES,
} from "../../core/limits.js";
import { type CompactMatchTable, CompactRecorder, eventsOf } from "./compact.js";
import { fastMatch, fullMatch, type RgSummary } from "./events.js";
import { decodeEvent, type RawMatchTable } from "./match-table.js";

export type PartialReason = "max_matches" | "max_occurrences" | "max_bytes" | "protocol_line_limit";

export interface RetentionBounds {
  readonly maxMatches: number;
  readonly maxOccurrences: number;
  readonly maxBytes: number;
}

/** One file's retained matches: positions `[first, first + count)` of the stream-order table. */
export interface IndexedRun {
  readonly key: string;
  readonly first: number;
  readonly count: number;
  readonly occurrences: number;
}

export interface IndexedOutput {
  /**
   * The retained matches in the order ripgrep printed them (`runStarts`/`runKeys` follow
   * `runs`): their records while records are made, else their events.
   */
  readonly table: RawMatchTable | CompactMatchTable;
  readonly runs: readonly IndexedRun[];
  readonly occurrences: number;
  /** Estimated retained memory: the compact records (else the protocol bytes) kept, and their offsets. */
  readonly bytes: number;
  readonly partialReason: PartialReason | undefined;
  /** The file whose line was over the protocol cap (`protocol_line_limit`), when one was open. */
  readonly longLineKey: string | undefined;
  /** The retained events as compact records, made as they arrived (snapshots keep these). */
  readonly records: CompactRecorder | undefined;
}

const prefix = (s: string) => Uint8Array.from(Buffer.from(s, "latin1"));
const MATCH = prefix('{"type":"match",');
const BEGIN = prefix('{"type":"begin",');
const END = prefix('{"type":"end",');
const SUMMARY = prefix('{"type":"summary",');
const MATCHED_LINES = Buffer.from('"matched_lines":', "latin1");
const MATCHES = Buffer.from(',"matches":', "latin1");

/** Where a let-go chunk was: the table no longer refers to it. */
const RELEASED = new Uint8Array(0);

function startsWith(bytes: Uint8Array, at: number, end: number, head: Uint8Array): boolean {
  if (end - at < head.length) return false;
  for (let i = 0; i < head.length; i++) if (bytes[at + i] !== head[i]) return false;
  return true;
}

interface OpenRun {
  readonly key: string;
  readonly first: number;
  count: number;
  /** A file the caller's filter drops: its events are counted (to check them), never kept. */
  readonly excluded: boolean;
}

export class RgOutputIndexer {
  readonly #bounds: RetentionBounds;
  readonly #maxLineBytes: number;
  /** The stream's chunks, and the global offset of each one's first byte. */
  readonly #stream: Buffer[] = [];
  readonly #bases: number[] = [];
  /** What the table refers to: the stream's chunks, and copies of events that straddled two. */
  readonly #tableChunks: Uint8Array[] = [];
  /** The first table chunk not let go of yet (records being made). */
  #heldFrom = 0;
  /** Where the records ended: the events of positions before `until`, rebuilt into chunk `chunk`. */
  #rebuilt: { until: number; chunk: number; starts: Uint32Array; ends: Uint32Array } | undefined;
  #received = 0;
  /** Global offset where an unterminated line began, or -1. */
  #pendingStart = -1;
  #chunkOf = new Uint32Array(1024);
  #starts = new Uint32Array(1024);
  #ends = new Uint32Array(1024);
  #count = 0;
  readonly #runs: IndexedRun[] = [];
  #open: OpenRun | undefined;
  #occurrences = 0;
  /** The retained matches' cost counted in their events' bytes, and in their records' bytes. */
  #eventBytes = 0;
  #recordBytes = 0;
  /** The snapshot will keep records: the bound counts their bytes. */
  #recordsKept: boolean;
  #partial: PartialReason | undefined;
  #longLineKey: string | undefined;
  #summary: RgSummary | undefined;
  readonly #exclude: ((key: string) => boolean) | undefined;
  readonly #records: CompactRecorder | undefined;

  readonly #onRun: ((key: string) => void) | undefined;

  /**
   * `exclude`: files whose matches are dropped as if ripgrep had not searched them. `onRun`:
   * told each file whose matches were retained, once ripgrep has reported it done (or the
   * search stopped in it). `records`: false when no snapshot will keep the matches (analyses'
   * scans), so no compact records are cut.
   */
  constructor(
    bounds: RetentionBounds,
    options: {
      maxLineBytes?: number;
      exclude?: (key: string) => boolean;
      onRun?: (key: string) => void;
      records?: boolean;
    } = {},
  ) {
    this.#bounds = bounds;
    this.#maxLineBytes = options.maxLineBytes ?? RG_MAX_PROTOCOL_LINE_BYTES;
    this.#exclude = options.exclude;
    this.#onRun = options.onRun;
    // Kept records stay within the byte bound, but for the one event that passes it.
    this.#records =
      options.records === false ? undefined : new CompactRecorder(bounds.maxBytes + this.#maxLineBytes);
    this.#recordsKept = this.#records !== undefined;
  }

  /** What the byte bound counts: the bytes of the form the snapshot will keep. */
  get #bytes(): number {
    return this.#recordsKept ? this.#recordBytes : this.#eventBytes;
  }

  /** Matches retained so far. */
  get count(): number {
    return this.#count;
  }

  get partialReason(): PartialReason | undefined {
    return this.#partial;
  }

  get summary(): RgSummary | undefined {
    return this.#summary;
  }

  /**
   * Indexes the lines `chunk` completes. Returns true once a bound is reached, a protocol line
   * over the cap included: ripgrep should be stopped, and nothing after that point is retained.
   */
  push(chunk: Buffer): boolean {
    if (this.#partial !== undefined) return true;
    const stop = this.#index(chunk);
    this.#letGo();
    return stop;
  }

  /** Lets go of the chunks nothing needs any more: all but an unfinished line's, with records. */
  #letGo(): void {
    if (this.#recordsKept) {
      for (let i = this.#heldFrom; i < this.#tableChunks.length; i++) this.#tableChunks[i] = RELEASED;
      this.#heldFrom = this.#tableChunks.length;
    }
    // The stream's chunks are kept from the one an unfinished line began in (`#slice`).
    let drop = this.#stream.length;
    if (this.#pendingStart >= 0 && this.#partial === undefined)
      while (drop > 0 && (this.#bases[drop] ?? Number.POSITIVE_INFINITY) > this.#pendingStart) drop--;
    if (drop > 0) {
      this.#stream.splice(0, drop);
      this.#bases.splice(0, drop);
    }
  }

  #index(chunk: Buffer): boolean {
    const base = this.#received;
    this.#stream.push(chunk);
    this.#bases.push(base);
    this.#received += chunk.length;
    let from = 0;
    let lf = chunk.indexOf(0x0a);
    if (this.#pendingStart >= 0) {
      if (lf === -1) {
        if (this.#received - this.#pendingStart > this.#maxLineBytes)
          return this.#stop("protocol_line_limit");
        return false;
      }
      const start = this.#pendingStart;
      this.#pendingStart = -1;
      if (base + lf - start > this.#maxLineBytes) return this.#stop("protocol_line_limit");
      if (this.#straddling(this.#slice(start, base + lf))) return true;
      from = lf + 1;
      lf = chunk.indexOf(0x0a, from);
    }
    this.#tableChunks.push(chunk);
    const index = this.#tableChunks.length - 1;
    while (lf !== -1) {
      if (lf - from > this.#maxLineBytes) return this.#stop("protocol_line_limit");
      if (this.#line(chunk, from, lf, index)) return true;
      from = lf + 1;
      lf = chunk.indexOf(0x0a, from);
    }
    if (from < chunk.length) {
      this.#pendingStart = base + from;
      if (chunk.length - from > this.#maxLineBytes) return this.#stop("protocol_line_limit");
    }
    return false;
  }

  /** A line that began in an earlier chunk: the table refers to its own copy. */
  #straddling(line: Buffer): boolean {
    this.#tableChunks.push(line);
    return this.#line(line, 0, line.length, this.#tableChunks.length - 1);
  }

  /** The stream ended: an unterminated last line still counts, an open run is closed. */
  end(): void {
    if (this.#partial === undefined && this.#pendingStart >= 0) {
      const start = this.#pendingStart;
      this.#pendingStart = -1;
      this.#straddling(this.#slice(start, this.#received));
    }
    this.#closeCounted();
  }

  /** What was retained, as a table in stream order. Call once, after `end` or a stop. */
  finish(): IndexedOutput {
    this.#closeCounted();
    const runStarts = new Uint32Array(this.#runs.length);
    const runKeys: string[] = [];
    this.#runs.forEach((run, i) => {
      runStarts[i] = run.first;
      runKeys.push(run.key);
    });
    const table = this.#recordsKept
      ? this.#records?.streamTable(this.#runs)
      : this.#eventTable(runStarts, runKeys);
    if (table === undefined) throw protocolError("the retained matches' records are incomplete");
    this.#stream.length = 0;
    this.#tableChunks.length = 0;
    return {
      table,
      runs: this.#runs,
      occurrences: this.#occurrences,
      bytes: this.#bytes,
      partialReason: this.#partial,
      longLineKey: this.#longLineKey,
      records: this.#records,
    };
  }

  /** The retained events as a table: the chunks they are in, those rebuilt from records first. */
  #eventTable(runStarts: Uint32Array, runKeys: string[]): RawMatchTable {
    const count = this.#count;
    const chunkOf = this.#chunkOf.slice(0, count);
    const starts = this.#starts.slice(0, count);
    const ends = this.#ends.slice(0, count);
    // Chunks after the last retained event hold nothing the table needs.
    let used = count === 0 ? 0 : (chunkOf[count - 1] as number) + 1;
    const rebuilt = this.#rebuilt;
    const until = Math.min(rebuilt?.until ?? 0, count);
    if (rebuilt !== undefined && until > 0) {
      chunkOf.fill(rebuilt.chunk, 0, until);
      starts.set(rebuilt.starts.subarray(0, until));
      ends.set(rebuilt.ends.subarray(0, until));
      used = Math.max(used, rebuilt.chunk + 1);
    }
    const chunks = this.#tableChunks.slice(0, used);
    return { kind: "raw", length: count, chunks, chunkOf, starts, ends, runStarts, runKeys };
  }

  /** One protocol line `bytes[at, end)`, `bytes` being table chunk `chunk`. True = stop. */
  #line(bytes: Uint8Array, at: number, end: number, chunk: number): boolean {
    if (startsWith(bytes, at, end, MATCH)) return this.#match(bytes, at, end, chunk);
    if (startsWith(bytes, at, end, BEGIN)) this.#begin(bytes, at, end);
    else if (startsWith(bytes, at, end, END)) return this.#end(bytes, at, end);
    else if (startsWith(bytes, at, end, SUMMARY)) {
      const event = parseJson(bytes, at, end) as {
        data: { stats: { matched_lines: number; matches: number; searches: number } };
      };
      const stats = event.data.stats;
      this.#summary = { matchedLines: stats.matched_lines, matches: stats.matches, searches: stats.searches };
    }
    // `context` events are not requested; anything else carries nothing a snapshot keeps.
    return false;
  }

  #begin(bytes: Uint8Array, at: number, end: number): void {
    if (this.#open !== undefined) throw protocolError("a file began before the previous one ended");
    const event = parseJson(bytes, at, end) as { data?: { path?: { text?: unknown; bytes?: unknown } } };
    const path = event.data?.path;
    let key: string;
    if (typeof path?.text === "string") key = path.text;
    else if (typeof path?.bytes === "string") key = Buffer.from(path.bytes, "base64").toString("utf8");
    else throw protocolError("a begin event without a path");
    this.#open = { key, first: this.#count, count: 0, excluded: this.#exclude?.(key) === true };
  }

  #match(bytes: Uint8Array, at: number, end: number, chunk: number): boolean {
    const open = this.#open;
    if (open === undefined) throw protocolError("a match event outside a file");
    if (open.excluded) {
      open.count++;
      return false;
    }
    const overhead =
      SNAPSHOT_MATCH_OVERHEAD_BYTES +
      (open.count === 0 ? SNAPSHOT_FILE_OVERHEAD_BYTES + 2 * open.key.length : 0);
    const eventCost = end - at + overhead;
    if (this.#count + 1 > this.#bounds.maxMatches) return this.#stop("max_matches");
    // The record is cut first: its length is what the bound counts while records are kept.
    const record = this.#records?.add(bytes, at, end, open.count === 0) ?? -1;
    if (record < 0 && this.#recordsKept && this.#recordsEnded()) return true;
    const recordCost = record + overhead;
    if (this.#bytes + (this.#recordsKept ? recordCost : eventCost) > this.#bounds.maxBytes) {
      this.#records?.truncate(this.#count);
      this.#stop("max_bytes");
      // Occurrences are checked before bytes: if this event would also pass the occurrence
      // bound, that is the reason a decode-as-you-go reader would give.
      if (
        this.#partial === "max_bytes" &&
        this.#occurrences + decodeEvent(bytes, at, end).occurrences.length > this.#bounds.maxOccurrences
      ) {
        this.#partial = "max_occurrences";
      }
      return true;
    }
    if (this.#count === this.#starts.length) {
      this.#chunkOf = grown(this.#chunkOf);
      this.#starts = grown(this.#starts);
      this.#ends = grown(this.#ends);
    }
    this.#chunkOf[this.#count] = chunk;
    this.#starts[this.#count] = at;
    this.#ends[this.#count] = end;
    this.#count++;
    open.count++;
    this.#eventBytes += eventCost;
    this.#recordBytes += recordCost;
    return false;
  }

  #end(bytes: Uint8Array, at: number, end: number): boolean {
    const open = this.#open;
    if (open === undefined) throw protocolError("a file ended that had not begun");
    this.#open = undefined;
    const stats = endStats(bytes, at, end);
    if (stats.matchedLines !== open.count) {
      throw protocolError(
        `a file reported ${stats.matchedLines} matching lines but printed ${open.count} match events`,
      );
    }
    if (open.count === 0 || open.excluded) return false;
    if (this.#occurrences + stats.matches <= this.#bounds.maxOccurrences) {
      this.#occurrences += stats.matches;
      this.#runs.push({ key: open.key, first: open.first, count: open.count, occurrences: stats.matches });
      this.#onRun?.(open.key);
      return false;
    }
    // The occurrence bound falls inside this file: count its events to find where.
    this.#closeRun(open);
    if (this.#partial === undefined)
      throw protocolError("a file's occurrence count disagrees with its match events");
    return true;
  }

  #stop(reason: PartialReason): boolean {
    this.#partial = reason;
    // Named so the caller can narrow; a file the filter drops is never named.
    if (reason === "protocol_line_limit" && this.#open?.excluded === false)
      this.#longLineKey = this.#open.key;
    this.#closeCounted();
    return true;
  }

  /** Closes a run cut short (no `end` event to count it), counting its occurrences itself. */
  #closeCounted(): void {
    const open = this.#open;
    if (open === undefined) return;
    this.#open = undefined;
    if (open.count > 0 && !open.excluded) this.#closeRun(open);
  }

  /**
   * Adds `open` by decoding its events, stopping at the occurrence bound: what a decode-as-you-go
   * reader would have retained. Marks the result partial when the bound cut the run.
   */
  #closeRun(open: OpenRun): void {
    let occurrences = 0;
    let kept = 0;
    for (; kept < open.count; kept++) {
      const n = this.#decode(open.first + kept, open.first).occurrences.length;
      if (this.#occurrences + occurrences + n > this.#bounds.maxOccurrences) {
        // Earlier in the stream than any bound that stopped the search, so it is the reason.
        this.#partial = "max_occurrences";
        break;
      }
      occurrences += n;
    }
    // Matches beyond the cut are dropped from the tail of the table (this run is the last one).
    const dropped = open.count - kept;
    this.#eventBytes -= this.#eventsCost(open.first + kept, open.first + open.count);
    this.#count = open.first + kept;
    this.#recordBytes -=
      (this.#records?.truncate(this.#count) ?? 0) + dropped * SNAPSHOT_MATCH_OVERHEAD_BYTES;
    if (kept > 0) {
      this.#occurrences += occurrences;
      this.#runs.push({ key: open.key, first: open.first, count: kept, occurrences });
      this.#onRun?.(open.key);
    } else {
      this.#eventBytes -= SNAPSHOT_FILE_OVERHEAD_BYTES + 2 * open.key.length;
      this.#recordBytes -= SNAPSHOT_FILE_OVERHEAD_BYTES + 2 * open.key.length;
    }
  }

  /** The events' cost of positions `[from, to)`, offsets included (not the file's overhead). */
  #eventsCost(from: number, to: number): number {
    let cost = 0;
    for (let i = from; i < to; i++)
      cost += (this.#ends[i] as number) - (this.#starts[i] as number) + SNAPSHOT_MATCH_OVERHEAD_BYTES;
    return cost;
  }

  /**
   * The records ended: the snapshot keeps the events, so the bound counts their bytes from here.
   * If what is kept already passes it, whole files are dropped from the end, then the last
   * file's matches past the bound, and the search stops there (true), partial.
   */
  #recordsEnded(): boolean {
    this.#rebuildEvents();
    this.#recordsKept = false;
    const max = this.#bounds.maxBytes;
    if (this.#eventBytes <= max) return false;
    const open = this.#open;
    this.#open = undefined;
    if (open !== undefined && open.count > 0 && !open.excluded) this.#closeRun(open);
    let last: IndexedRun | undefined;
    while (this.#eventBytes > max && this.#runs.length > 0) {
      last = this.#runs.pop() as IndexedRun;
      this.#occurrences -= last.occurrences;
      this.#eventBytes -=
        this.#eventsCost(last.first, last.first + last.count) +
        SNAPSHOT_FILE_OVERHEAD_BYTES +
        2 * last.key.length;
      this.#count = last.first;
    }
    if (last !== undefined) {
      // As much of the last file dropped as fits, its occurrences counted again.
      let count = 0;
      let cost = SNAPSHOT_FILE_OVERHEAD_BYTES + 2 * last.key.length;
      while (
        count < last.count &&
        this.#eventBytes + cost + this.#eventsCost(last.first + count, last.first + count + 1) <= max
      ) {
        cost += this.#eventsCost(last.first + count, last.first + count + 1);
        count++;
      }
      if (count > 0) {
        this.#eventBytes += cost;
        this.#count = last.first + count;
        this.#closeRun({ key: last.key, first: last.first, count, excluded: false });
      }
    }
    this.#partial = "max_bytes";
    return true;
  }

  /** The retained match at `position`, of the run that began at `first`. */
  #decode(position: number, first: number) {
    if (this.#recordsKept && this.#records !== undefined) {
      const event = this.#records.eventAt(position, first);
      return fastMatch(event) ?? fullMatch(event);
    }
    const rebuilt = this.#rebuilt;
    if (rebuilt !== undefined && position < rebuilt.until) {
      const chunk = this.#tableChunks[rebuilt.chunk] as Uint8Array;
      return decodeEvent(chunk, rebuilt.starts[position] as number, rebuilt.ends[position] as number);
    }
    const chunk = this.#tableChunks[this.#chunkOf[position] as number] as Uint8Array;
    return decodeEvent(chunk, this.#starts[position] as number, this.#ends[position] as number);
  }

  /**
   * The records ended: the events retained so far, whose chunks were let go of, are rebuilt from
   * their records into one chunk, so the table can refer to events from here on.
   */
  #rebuildEvents(): void {
    const runs: { key: string; first: number; count: number }[] = [...this.#runs];
    const open = this.#open;
    if (open !== undefined && open.count > 0 && !open.excluded) runs.push(open);
    const table = this.#records?.streamTable(runs);
    if (table === undefined) throw protocolError("the retained matches' records are incomplete");
    const events = eventsOf(table);
    this.#tableChunks.push(events.bytes);
    this.#heldFrom = this.#tableChunks.length;
    this.#rebuilt = { until: table.length, chunk: this.#tableChunks.length - 1, ...events };
  }

  /** Bytes `[start, end)` of the stream: a view when they lie in one chunk, else a copy. */
  #slice(start: number, end: number): Buffer {
    let low = 0;
    let high = this.#bases.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if ((this.#bases[mid] as number) <= start) low = mid;
      else high = mid - 1;
    }
    const chunk = this.#stream[low] as Buffer;
    const base = this.#bases[low] as number;
    if (end - base <= chunk.length) return chunk.subarray(start - base, end - base);
    const pieces: Buffer[] = [];
    for (let i = low, from = start; from < end; i++) {
      const c = this.#stream[i] as Buffer;
      const b = this.#bases[i] as number;
      pieces.push(c.subarray(from - b, Math.min(c.length, end - b)));
      from = b + c.length;
    }
    return Buffer.concat(pieces, end - start);
  }
}

function grown(array: Uint32Array): Uint32Array<ArrayBuffer> {
  const larger = new Uint32Array(array.length * 2);
  larger.set(array);
  return larger;
}

/**
 * `matched_lines` and `matches` of an `end` event. They are the last numbers of the event, after
 * the path (whose JSON string cannot contain an unescaped quote, so these keys cannot occur in
 * it); anything unexpected takes the full parse.
 */
function endStats(bytes: Uint8Array, at: number, end: number): { matchedLines: number; matches: number } {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset + at, end - at);
  const key = view.lastIndexOf(MATCHED_LINES);
  if (key !== -1) {
    const lines = digits(view, key + MATCHED_LINES.length);
    if (
      lines.end !== -1 &&
      view.compare(MATCHES, 0, MATCHES.length, lines.end, lines.end + MATCHES.length) === 0
    ) {
      const matches = digits(view, lines.end + MATCHES.length);
      if (matches.end !== -1 && view.toString("latin1", matches.end) === "}}}") {
        return { matchedLines: lines.value, matches: matches.value };
      }
    }
  }
  const event = parseJson(bytes, at, end) as {
    data?: { stats?: { matched_lines?: unknown; matches?: unknown } };
  };
  const stats = event.data?.stats;
  if (typeof stats?.matched_lines !== "number" || typeof stats.matches !== "number")
    throw protocolError("an end event without statistics");
  return { matchedLines: stats.matched_lines, matches: stats.matches };
}

/** Decimal digits at `at` (at most 15, so the value is exact); `end` is -1 when there are none. */
function digits(view: Buffer, at: number): { value: number; end: number } {
  let value = 0;
  let p = at;
  for (; p < view.length && p - at < 16; p++) {
    const c = view[p] as number;
    if (c < 0x30 || c > 0x39) break;
    value = value * 10 + (c - 0x30);
  }
  return p === at || p - at > 15 ? { value: 0, end: -1 } : { value, end: p };
}

function parseJson(bytes: Uint8Array, at: number, end: number): unknown {
  try {
    return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + at, end - at).toString("utf8"));
  } catch (cause) {
    throw new EvidentError("internal_error", "ripgrep produced a protocol line that is not JSON.", { cause });
  }
}

function protocolError(what: string): EvidentError {
  return new EvidentError("internal_error", `ripgrep's JSON output was not as expected: ${what}.`);
}
