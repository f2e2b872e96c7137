/**
 * Orders and names in a snapshot: the sequences of match positions a page walks (the whole
 * snapshot or a file selection), the one ordering of paths, and how a path is shown.
 */
import type { SnapshotData } from "./store.js";

/** An ordered list of snapshot positions (0-based): the whole snapshot or a file selection. */
export interface MatchSequence {
  readonly length: number;
  at(position: number): number;
}

export function wholeSequence(snapshot: SnapshotData): MatchSequence {
  return { length: snapshot.matches.length, at: (position) => position };
}

export function arraySequence(positions: readonly number[]): MatchSequence {
  return { length: positions.length, at: (position) => positions[position] as number };
}

/** The one ordering of paths: by UTF-16 code units, so it is the same everywhere. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A path as the agent sees it: ripgrep's `./` prefix dropped. */
export function displayPath(key: string): string {
  return key.startsWith("./") ? key.slice(2) : key;
}
