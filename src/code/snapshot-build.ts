/**
 * From one ripgrep run to a snapshot: matches in a stable path order (the order of their 1-based
 * indices), files ranked by match count, trusted revisions attached. Also the file selections a
 * cursor may carry, resolved against the snapshot's own files.
 */
import { resolve } from "node:path";
import { arraySequence, compareKeys, displayPath, type MatchSequence } from "./format.js";
import type { SearchTarget } from "./path-policy.js";
import { invalid, type SearchQuery } from "./request.js";
import type { SearchRun } from "./rg-search.js";
import type { Revision } from "./scan-revisions.js";
import type { SnapshotData, SnapshotFile, SnapshotMatch } from "./snapshot-store.js";

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
  reusable: boolean,
): SnapshotData {
  const { run } = execution;
  const matches = inPathOrder(run.matches);
  // Counted per run of one file's consecutive matches: one map operation per file, not per match.
  const counts = new Map<string, { matches: number; occurrences: number }>();
  for (let i = 0; i < matches.length; ) {
    const key = (matches[i] as SnapshotMatch).path;
    let end = i;
    let occurrences = 0;
    for (; end < matches.length && (matches[end] as SnapshotMatch).path === key; end++) {
      occurrences += (matches[end] as SnapshotMatch).occurrences.length;
    }
    const c = counts.get(key);
    if (c === undefined) counts.set(key, { matches: end - i, occurrences });
    else {
      c.matches += end - i;
      c.occurrences += occurrences;
    }
    i = end;
  }
  const files: SnapshotFile[] = [...counts].map(([key, c]) => ({ path: displayPath(key), key, ...c }));
  files.sort((a, b) => b.matches - a.matches || compareKeys(a.key, b.key));
  return {
    query,
    requestedRoot: requested.requested,
    effectiveRoot: effective.requested,
    expanded,
    rgCwd: effective.rg.cwd,
    matches,
    files,
    totalOccurrences: run.occurrences,
    trustedRevisions: execution.trusted,
    partialReason: run.partialReason,
    searchErrors: run.searchErrors,
    bytes: run.bytes,
    reusable,
  };
}

/**
 * Matches ordered by path, then line. ripgrep searches files in parallel but reports each file's
 * matches together and in line order, so sorting the per-file runs is enough (and far cheaper
 * than sorting every match); a stable path order makes indices reproducible.
 */
function inPathOrder(parsed: readonly SnapshotMatch[]): SnapshotMatch[] {
  const runs: { path: string; start: number; end: number }[] = [];
  for (let i = 0; i < parsed.length; ) {
    const path = (parsed[i] as SnapshotMatch).path;
    let end = i + 1;
    while (end < parsed.length && (parsed[end] as SnapshotMatch).path === path) end++;
    runs.push({ path, start: i, end });
    i = end;
  }
  runs.sort((a, b) => compareKeys(a.path, b.path));
  const ordered: SnapshotMatch[] = [];
  for (const { start, end } of runs)
    for (let i = start; i < end; i++) ordered.push(parsed[i] as SnapshotMatch);
  // A file reported in two runs (never seen from ripgrep, but not ruled out) still ends sorted.
  for (let i = 1; i < ordered.length; i++) {
    const a = ordered[i - 1] as SnapshotMatch;
    const b = ordered[i] as SnapshotMatch;
    if (a.path === b.path && a.line > b.line) {
      ordered.sort((x, y) => compareKeys(x.path, y.path) || x.line - y.line);
      break;
    }
  }
  return ordered;
}

export function selectionSequence(snapshot: SnapshotData, keys: readonly string[]): MatchSequence {
  const wanted = new Set(keys);
  const positions: number[] = [];
  snapshot.matches.forEach((m, i) => {
    if (wanted.has(m.path)) positions.push(i);
  });
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
