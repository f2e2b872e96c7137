/**
 * A structure search's snapshot: the same shape a pattern search leaves (matches in path order,
 * files ranked by count, trusted revisions), so summaries, pages, cursors and inspection work on
 * it unchanged, plus the node behind each match and the search's coverage.
 */
import type { SearchTarget } from "../path-policy.js";
import type { StructureRequest } from "../request.js";
import { parsedTable } from "../rg/match-table.js";
import { compareKeys, displayPath } from "../snapshots/sequence.js";
import type { SnapshotData, SnapshotFile } from "../snapshots/store.js";
import type { StructureRun } from "./search.js";

export function structureSnapshot(
  request: StructureRequest,
  requested: SearchTarget,
  effective: SearchTarget,
  expanded: boolean,
  run: StructureRun,
): SnapshotData {
  const counts = new Map<string, number>();
  for (const match of run.matches) counts.set(match.path, (counts.get(match.path) ?? 0) + 1);
  const files: SnapshotFile[] = [...counts].map(([key, n]) => ({
    path: displayPath(key),
    key,
    matches: n,
    occurrences: n,
  }));
  files.sort((a, b) => b.matches - a.matches || compareKeys(a.key, b.key));
  return {
    query: request.query,
    requestedRoot: requested.requested,
    effectiveRoot: effective.requested,
    expanded,
    rgCwd: effective.rg.cwd,
    matches: parsedTable(run.matches),
    files,
    totalOccurrences: run.matches.length,
    trustedRevisions: run.trusted,
    partialReason: run.partialReason,
    searchErrors: 0,
    bytes: run.bytes,
    structure: {
      pattern: request.structure,
      prefilter: run.prefilter,
      nodes: run.nodes,
      coverage: run.coverage,
    },
  };
}
