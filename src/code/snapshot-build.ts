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
  const counts = new Map<string, { matches: number; occurrences: number }>();
  for (const m of matches) {
    const c = counts.get(m.path) ?? { matches: 0, occurrences: 0 };
    c.matches++;
    c.occurrences += m.occurrences.length;
    counts.set(m.path, c);
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
  const runs: SnapshotMatch[][] = [];
  let current: SnapshotMatch[] | undefined;
  for (const match of parsed) {
    if (current === undefined || current[0]?.path !== match.path) {
      current = [];
      runs.push(current);
    }
    current.push(match);
  }
  runs.sort((a, b) => compareKeys((a[0] as SnapshotMatch).path, (b[0] as SnapshotMatch).path));
  const ordered = runs.flat();
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
