/**
 * Matches of a kept search result named by their numbers [n], for inspection and impact: the
 * result read once, every number checked against it before any source is read, and each match
 * as the file to read again at the revision the search retained.
 */
import { printablePath } from "../render/detail-page.js";
import { invalid } from "../request.js";
import { pathUnder, type Revision } from "../revisions/scan.js";
import { loadMatches, matchAt } from "../rg/match-table.js";
import { displayPath } from "../snapshots/sequence.js";
import { type SnapshotData, type SnapshotStore, searchSnapshot } from "../snapshots/store.js";

/** Where a match is, to be read again. */
export interface MatchPlace {
  readonly absolute: string;
  readonly display: string;
  readonly line: number;
  /** The match's first occurrence's column (UTF-16 units), when its line is not a lossy view. */
  readonly column: number | undefined;
  /** The revision the search retained; undefined when the file was not verified unchanged. */
  readonly expected: Revision | undefined;
  /** For a change scope read from Git objects: the side and comparison it was read from. */
  readonly historical: string | undefined;
}

/**
 * The result `cursor` continues, with the matches `indices` name at hand (a shared store keeps
 * them in blocks); a number past its matches is `invalid_arguments` naming `field`.
 */
export async function keptMatches(
  store: SnapshotStore,
  caller: string,
  cursor: string,
  indices: readonly number[],
  field: string,
): Promise<SnapshotData> {
  const state = store.decodeCursor(cursor);
  const snapshot = await searchSnapshot(store, caller, state.snapshotId);
  for (const index of indices) {
    if (index > snapshot.matches.length) {
      throw invalid(field, `there is no match [${index}]; this result has ${snapshot.matches.length}.`);
    }
  }
  await loadMatches(
    snapshot.matches,
    indices.map((index) => index - 1),
  );
  return snapshot;
}

/**
 * Match [index] of a result `keptMatches` gave, or why its file cannot be named again
 * (`lossyNote` ends that refusal).
 */
export function matchPlace(snapshot: SnapshotData, index: number, lossyNote = ""): MatchPlace {
  const match = matchAt(snapshot.matches, index - 1);
  if (match.pathLossy) {
    throw invalid(
      "inspect",
      `match [${index}] is in ${printablePath(displayPath(match.path))}, whose name is not valid UTF-8 (shown with U+FFFD), so the file cannot be read again by that name${lossyNote}.`,
    );
  }
  const first = match.occurrences[0];
  const { changes } = snapshot;
  return {
    absolute: pathUnder(snapshot.rgCwd, match.path),
    display: displayPath(match.path),
    line: match.line,
    column: first !== undefined && !match.textLossy ? first.startColumn : undefined,
    expected: Object.hasOwn(snapshot.trustedRevisions, match.path)
      ? snapshot.trustedRevisions[match.path]
      : undefined,
    historical:
      changes?.source === "objects" ? `the ${changes.side} side of ${changes.comparison}` : undefined,
  };
}
