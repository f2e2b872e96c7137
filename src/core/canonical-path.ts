/**
 * A path as the file system spells it, links resolved, so that two spellings of one file compare
 * equal; a path that cannot be resolved (gone, unreadable) stays as it was given.
 */
import { realpathSync } from "node:fs";

export function canonicalPath(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}
