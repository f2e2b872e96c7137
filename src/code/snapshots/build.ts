/**
 * From one ripgrep run to a snapshot: matches in a stable path order (the order of their 1-based
 * indices), files ranked by match count, trusted revisions attached. Also the file selections a
 * cursor may carry, resolved against the snapshot's own files.
 */
import { resolve } from "node:path";
import { SNAPSHOT_FILE_OVERHEAD_BYTES, SNAPSHOT_MATCH_OVERHEAD_BYTES } from "../../core/limits.js";
import type { SearchTarget } from "../path-policy.js";
import { invalid, type SearchQuery } from "../request.js";
import type { Revision } from "../revisions/scan.js";
import { type CompactMatchTable, type CompactRecorder, eventsOf } from "../rg/compact.js";
import type { IndexedRun, PartialReason, SearchRun } from "../rg/content-search.js";
import type { ParsedMatch } from "../rg/events.js";
import { fileRange, type MatchTable, matchAt, parsedTable, type RawMatchTable } from "../rg/match-table.js";
import type { ChangesSummary } from "./analysis.js";
import { arraySequence, compareKeys, displayPath, type MatchSequence } from "./sequence.js";
import type { SnapshotData, SnapshotFile } from "./store.js";

/** What one search produced: ripgrep's run and the revisions that held before and after it. */
export interface Execution {
  readonly run: SearchRun;
  readonly trusted: Record<string, Revision>;
}

export function buildSnapshot(
  query: SearchQuery,
  requested: SearchTarget,
  effective: SearchTarget,
  expanded: boolean,
  execution: Execution,
): SnapshotData {
  const { run } = execution;
  // Counted per run of one file's matches: one map operation per file, not per match.
  const counts = new Map<string, { matches: number; occurrences: number }>();
  for (const r of run.runs) {
    const c = counts.get(r.key);
    if (c === undefined) counts.set(r.key, { matches: r.count, occurrences: r.occurrences });
    else {
      c.matches += r.count;
      c.occurrences += r.occurrences;
    }
  }
  const files: SnapshotFile[] = [...counts].map(([key, c]) => ({ path: displayPath(key), key, ...c }));
  files.sort((a, b) => b.matches - a.matches || compareKeys(a.key, b.key));
  return {
    query,
    requestedRoot: requested.requested,
    effectiveRoot: effective.requested,
    expanded,
    rgCwd: effective.rg.cwd,
    matches: inPathOrder(run.table, run.runs, run.records),
    files,
    totalOccurrences: run.occurrences,
    trustedRevisions: execution.trusted,
    partialReason: run.partialReason,
    ...(run.longLineKey === undefined ? {} : { longLineFile: displayPath(run.longLineKey) }),
    searchErrors: run.searchErrors,
    bytes: run.bytes,
  };
}

/** Decoded matching lines (already in path, then line order) and what was said about them. */
export interface MatchedLines {
  readonly matches: readonly ParsedMatch[];
  readonly trusted: Record<string, Revision>;
  readonly partialReason: PartialReason | undefined;
  /** As the scan printed it (`protocol_line_limit`). */
  readonly longLineKey?: string | undefined;
  readonly searchErrors: number;
  readonly changes: ChangesSummary | undefined;
}

/**
 * A snapshot of decoded matching lines: those of a change scope, whose occurrences were
 * admitted one by one (code/changes/).
 */
export function snapshotFromLines(
  query: SearchQuery,
  requested: SearchTarget,
  effective: SearchTarget,
  expanded: boolean,
  lines: MatchedLines,
): SnapshotData {
  const counts = new Map<string, { matches: number; occurrences: number }>();
  let occurrences = 0;
  let bytes = 0;
  for (const m of lines.matches) {
    const c = counts.get(m.path) ?? { matches: 0, occurrences: 0 };
    if (c.matches === 0) {
      counts.set(m.path, c);
      bytes += SNAPSHOT_FILE_OVERHEAD_BYTES + 2 * m.path.length;
    }
    c.matches++;
    c.occurrences += m.occurrences.length;
    occurrences += m.occurrences.length;
    bytes += SNAPSHOT_MATCH_OVERHEAD_BYTES + 2 * m.text.length + 32 * m.occurrences.length;
  }
  const files: SnapshotFile[] = [...counts].map(([key, c]) => ({ path: displayPath(key), key, ...c }));
  files.sort((a, b) => b.matches - a.matches || compareKeys(a.key, b.key));
  return {
    query,
    requestedRoot: requested.requested,
    effectiveRoot: effective.requested,
    expanded,
    rgCwd: effective.rg.cwd,
    // A non-UTF-8 line's own bytes matter to term matching only, not to pages.
    matches: parsedTable(lines.matches.map((m) => (m.rawText === undefined ? m : withoutRaw(m)))),
    files,
    totalOccurrences: occurrences,
    trustedRevisions: lines.trusted,
    partialReason: lines.partialReason,
    ...(lines.longLineKey === undefined ? {} : { longLineFile: displayPath(lines.longLineKey) }),
    searchErrors: lines.searchErrors,
    bytes,
    changes: lines.changes,
  };
}

function withoutRaw(match: ParsedMatch): ParsedMatch {
  const { rawText: _, ...rest } = match;
  return rest;
}

/**
 * Matches ordered by path, then line. ripgrep searches files in parallel but reports each file's
 * matches together and in line order, so ordering the per-file runs is enough (and far cheaper
 * than sorting every match); a stable path order makes indices reproducible. No match is
 * decoded: their events are made compact records (rg/compact.ts), in that order, in one buffer
 * of exactly their size, so a kept snapshot holds a fraction of the bytes and none of ripgrep's
 * read chunks (with the other events in them), which the C allocator would keep scattered
 * through its heap for the snapshot's life. Events the records do not take are copied as they
 * are.
 */
function inPathOrder(
  stream: RawMatchTable | CompactMatchTable,
  runs: readonly IndexedRun[],
  records: CompactRecorder | undefined,
): MatchTable {
  const ordered = [...runs].sort((a, b) => compareKeys(a.key, b.key));
  // A file reported in two runs (never seen from ripgrep, but not ruled out) is put in line
  // order by the copy below.
  const merged = ordered.some((run, i) => i > 0 && (ordered[i - 1] as IndexedRun).key === run.key);
  const compact = merged ? undefined : records?.inOrder(ordered);
  if (compact !== undefined) return compact;
  const table = stream.kind === "raw" ? stream : eventTable(stream);
  let total = 0;
  for (const run of ordered) {
    for (let i = run.first, end = run.first + run.count; i < end; i++)
      total += (table.ends[i] as number) - (table.starts[i] as number);
  }
  const bytes = Buffer.allocUnsafeSlow(total);
  const starts = new Uint32Array(table.length);
  const ends = new Uint32Array(table.length);
  const runStarts: number[] = [];
  const runKeys: string[] = [];
  let position = 0;
  let used = 0;
  for (let r = 0; r < ordered.length; r++) {
    const run = ordered[r] as IndexedRun;
    // A file reported in two runs (never seen from ripgrep, but not ruled out) becomes one run.
    if (runKeys[runKeys.length - 1] !== run.key) {
      runStarts.push(position);
      runKeys.push(run.key);
    }
    // Element by element: a subarray per run is three objects per file for the collector.
    for (let i = run.first, end = run.first + run.count; i < end; i++, position++) {
      const chunk = table.chunks[table.chunkOf[i] as number] as Uint8Array;
      const from = table.starts[i] as number;
      const to = table.ends[i] as number;
      bytes.set(chunk.subarray(from, to), used);
      starts[position] = used;
      used += to - from;
      ends[position] = used;
    }
  }
  const result: RawMatchTable = {
    kind: "raw",
    length: position,
    chunks: position === 0 ? [] : [bytes],
    chunkOf: new Uint32Array(table.length),
    starts,
    ends,
    runStarts: Uint32Array.from(runStarts),
    runKeys,
  };
  if (runKeys.length < ordered.length) sortMergedRuns(result);
  return result;
}

/** A compact table's matches as their events, in the same order. */
function eventTable(table: CompactMatchTable): RawMatchTable {
  const { bytes, starts, ends } = eventsOf(table);
  return {
    kind: "raw",
    length: table.length,
    chunks: [bytes],
    chunkOf: new Uint32Array(table.length),
    starts,
    ends,
    runStarts: table.runStarts,
    runKeys: table.runKeys,
  };
}

/** Puts the matches of files reported in several runs in line order (decoding only those). */
function sortMergedRuns(table: RawMatchTable): void {
  for (let r = 0; r < table.runStarts.length; r++) {
    const from = table.runStarts[r] as number;
    const to = r + 1 < table.runStarts.length ? (table.runStarts[r + 1] as number) : table.length;
    const positions = Array.from({ length: to - from }, (_, i) => from + i);
    const lines = positions.map((p) => matchAt(table, p).line);
    if (lines.every((line, i) => i === 0 || (lines[i - 1] as number) <= line)) continue;
    const order = positions.map((p, i) => ({ p, line: lines[i] as number })).sort((a, b) => a.line - b.line);
    const chunkOf = order.map(({ p }) => table.chunkOf[p] as number);
    const starts = order.map(({ p }) => table.starts[p] as number);
    const ends = order.map(({ p }) => table.ends[p] as number);
    table.chunkOf.set(chunkOf, from);
    table.starts.set(starts, from);
    table.ends.set(ends, from);
  }
}

export function selectionSequence(snapshot: SnapshotData, keys: readonly string[]): MatchSequence {
  const positions: number[] = [];
  // Matches are ordered by key, so each file is one contiguous range, and sorted keys give
  // ascending positions.
  for (const key of [...new Set(keys)].sort(compareKeys)) {
    const [from, to] = fileRange(snapshot.matches, key);
    for (let i = from; i < to; i++) positions.push(i);
  }
  return arraySequence(positions);
}

/** Maps the caller's spellings of paths onto the snapshot's files. */
export function choosePaths(snapshot: SnapshotData, cwd: string, paths: readonly string[]): string[] {
  const byAbsolute = new Map<string, string>();
  for (const file of snapshot.files) byAbsolute.set(resolve(snapshot.rgCwd, file.key), file.key);
  const keys: string[] = [];
  const unknown: string[] = [];
  for (const path of paths) {
    const key = byAbsolute.get(resolve(snapshot.rgCwd, path)) ?? byAbsolute.get(resolve(cwd, path));
    if (key === undefined) unknown.push(path);
    else keys.push(key);
  }
  if (unknown.length > 0) {
    throw invalid(
      "paths",
      `not files of this result: ${unknown.join(", ")}. Use paths exactly as listed in the summary.`,
    );
  }
  return [...new Set(keys)].sort(compareKeys);
}
