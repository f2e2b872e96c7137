/**
 * The retained matching lines of one search, addressable by position.
 *
 * A broad search retains tens of thousands of lines while a page shows a few dozen, so a search
 * keeps ripgrep's own protocol bytes and the offsets of each match event (`raw`), and a line is
 * decoded only when a page or a preview shows it, by one decoder (`fastMatch`, checked against
 * the full JSON parse it falls back to), so what a page shows does not depend on when it was
 * decoded. `parsed` holds lines already decoded (tests, and anything built from ParsedMatch
 * values).
 *
 * A kept snapshot holds its matches in `compact` records (compact.ts), or as `raw` events when
 * an event is not of the shape the records expect.
 *
 * These forms are plain data (typed arrays, strings, plain objects) so a store can serialize a
 * snapshot as it is; the functions below are the only way to read them. One more form, `paged`,
 * is a snapshot read back from a shared store: it holds the per-file index, and its matches are
 * fetched only for the positions a page asks for (`loadMatches`) before it reads them.
 */
import { EvidentError } from "../../core/errors.js";
import { type CompactMatchTable, compactMatchAt, isCompactTable } from "./compact.js";
import { fastMatch, fullMatch, type ParsedMatch } from "./events.js";

export type { CompactMatchTable } from "./compact.js";

export interface ParsedMatchTable {
  readonly kind: "parsed";
  readonly length: number;
  readonly list: readonly ParsedMatch[];
}

export interface RawMatchTable {
  readonly kind: "raw";
  readonly length: number;
  /**
   * While indexing, ripgrep's `--json` output as received, chunk by chunk, plus copies of the few
   * events that straddled two chunks; in a snapshot, one buffer of exactly its match events
   * (snapshots/build.ts), so a kept snapshot does not hold ripgrep's read chunks.
   */
  readonly chunks: readonly Uint8Array[];
  /** Where each match event is, by position: its chunk, and its byte range there (no line feed). */
  readonly chunkOf: Uint32Array;
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;
  /** Position of the first match of each file run, ascending; `runKeys` names each run's file. */
  readonly runStarts: Uint32Array;
  readonly runKeys: readonly string[];
}

/** Where a paged table's matches come from (a shared snapshot store). */
export interface MatchSource {
  /** Makes the matches at `positions` readable by `at`, fetching those not held yet. */
  load(positions: Iterable<number>): Promise<void>;
  /** A match `load` made readable, or undefined. */
  at(position: number): ParsedMatch | undefined;
}

export interface PagedMatchTable {
  readonly kind: "paged";
  readonly length: number;
  /** As in RawMatchTable: position of the first match of each file run, and each run's file. */
  readonly runStarts: Uint32Array;
  readonly runKeys: readonly string[];
  readonly source: MatchSource;
}

export type MatchTable = ParsedMatchTable | RawMatchTable | CompactMatchTable | PagedMatchTable;

export function parsedTable(list: readonly ParsedMatch[]): ParsedMatchTable {
  return { kind: "parsed", length: list.length, list };
}

export const EMPTY_TABLE: ParsedMatchTable = parsedTable([]);

/** A light shape check for a table read back from storage (the payload itself is authenticated). */
export function isMatchTable(value: unknown): value is MatchTable {
  if (typeof value !== "object" || value === null) return false;
  const t = value as Partial<Record<keyof RawMatchTable | "list", unknown>>;
  if (t.kind === "parsed") return Array.isArray(t.list) && t.length === t.list.length;
  if (t.kind === "compact") return isCompactTable(value as Partial<Record<keyof CompactMatchTable, unknown>>);
  return (
    t.kind === "raw" &&
    Array.isArray(t.chunks) &&
    t.chunks.every((c) => c instanceof Uint8Array) &&
    t.chunkOf instanceof Uint32Array &&
    t.starts instanceof Uint32Array &&
    t.ends instanceof Uint32Array &&
    t.runStarts instanceof Uint32Array &&
    Array.isArray(t.runKeys) &&
    t.runKeys.length === t.runStarts.length &&
    t.chunkOf.length === t.length &&
    t.starts.length === t.length &&
    t.ends.length === t.length &&
    t.ends.every(
      (end, i) => end <= ((t.chunks as Uint8Array[])[(t.chunkOf as Uint32Array)[i] as number]?.length ?? -1),
    )
  );
}

/**
 * Makes the matches at `positions` readable by `matchAt`. Only a paged table reads anything (the
 * positions are then iterated, so pass a generator to skip the work for the other forms).
 */
export async function loadMatches(table: MatchTable, positions: Iterable<number>): Promise<void> {
  if (table.kind === "paged") await table.source.load(positions);
}

/**
 * The match at `position` (0-based), decoded from the protocol bytes when the table is raw. A
 * paged table's match must have been loaded first (`loadMatches`).
 */
export function matchAt(table: MatchTable, position: number): ParsedMatch {
  if (position < 0 || position >= table.length) {
    throw new EvidentError("internal_error", `match position ${position} is outside the snapshot.`);
  }
  if (table.kind === "parsed") return table.list[position] as ParsedMatch;
  if (table.kind === "paged") {
    const match = table.source.at(position);
    if (match === undefined) {
      throw new EvidentError("internal_error", `match position ${position} was read before it was loaded.`);
    }
    if (match.path !== keyAt(table, position)) {
      throw new EvidentError("internal_error", "a stored match names another file than its run.");
    }
    return match;
  }
  if (table.kind === "compact") {
    const run = runIndex(table, position);
    const parsed = compactMatchAt(table, position, run);
    const key = table.runKeys[run] as string;
    if (parsed.path !== key) {
      throw new EvidentError("internal_error", "a retained match record names another file than its run.");
    }
    return { ...parsed, path: key };
  }
  const chunk = table.chunks[table.chunkOf[position] as number] as Uint8Array;
  const parsed = decodeEvent(chunk, table.starts[position] as number, table.ends[position] as number);
  const key = keyAt(table, position);
  // The event's own path is the run's path; share the run's string rather than keep a copy.
  if (parsed.path !== key) {
    throw new EvidentError("internal_error", "a retained match event names another file than its run.");
  }
  return { ...parsed, path: key };
}

/** The file key of the match at `position`, without decoding the line. */
export function keyAt(table: MatchTable, position: number): string {
  if (table.kind === "parsed") return (table.list[position] as ParsedMatch).path;
  return table.runKeys[runIndex(table, position)] as string;
}

/**
 * Positions `[from, to)` of `key`'s matches. The table is ordered by key (compared by UTF-16
 * code units), so they are one contiguous range, found by binary search.
 */
export function fileRange(table: MatchTable, key: string): [number, number] {
  const from = lowerBound(table, key, false);
  return [from, lowerBound(table, key, true, from)];
}

/** First position whose key is not below `key` (or, with `after`, above it). */
function lowerBound(table: MatchTable, key: string, after: boolean, low = 0): number {
  let high = table.length;
  let lo = low;
  while (lo < high) {
    const mid = (lo + high) >>> 1;
    const k = keyAt(table, mid);
    if (k < key || (after && k === key)) lo = mid + 1;
    else high = mid;
  }
  return lo;
}

/** Every match, decoded (tests and whole-result checks; pages decode only what they show). */
export function allMatches(table: MatchTable): ParsedMatch[] {
  if (table.kind === "parsed") return [...table.list];
  return Array.from({ length: table.length }, (_, i) => matchAt(table, i));
}

/** The match event `bytes[start, end)` as a ParsedMatch. */
export function decodeEvent(bytes: Uint8Array, start: number, end: number): ParsedMatch {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start);
  const line = view.toString("utf8");
  return fastMatch(line) ?? fullMatch(line);
}

/** The run containing `position`: the last run start not after it. */
export function runIndex(table: Exclude<MatchTable, ParsedMatchTable>, position: number): number {
  const starts = table.runStarts;
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >>> 1;
    if ((starts[mid] as number) <= position) low = mid;
    else high = mid - 1;
  }
  return low;
}
