/**
 * Where each changed file goes in a scope's tree, and how ripgrep's printed paths map back.
 * Files keep their path under ripgrep's working directory as the ordinary search spells it: the
 * target's own spelling (which may pass through a symbolic link), then the file's place under
 * the target. An external target (searched by its absolute path) is searched relative in the
 * tree, and its paths are made absolute again.
 */
import { isAbsolute, join, normalize, relative, resolve, sep } from "node:path";
import type { SearchTarget } from "../path-policy.js";

export interface MirrorLayout {
  readonly external: boolean;
  /** ripgrep's root in the tree. */
  readonly root: string;
  /** A changed file's key: its normalized path in the tree. */
  keyOf(absolute: string): string;
  /** The key of a path as a scan printed it (after `printed`). */
  keyOfPrinted(path: string): string;
  /** A path ripgrep printed in the tree, as an ordinary search would have printed it. */
  printed(path: string): string;
  /** A key as an answer shows it. */
  shown(key: string): string;
}

export function mirrorLayout(target: SearchTarget): MirrorLayout {
  const external = isAbsolute(target.rg.root);
  const root = external ? relative(target.rg.cwd, target.rg.root) || "." : target.rg.root;
  return {
    external,
    root,
    keyOf(absolute) {
      const inner = relative(target.canonical, absolute);
      return normalize(inner === "" ? root : join(root, inner));
    },
    keyOfPrinted: (path) => normalize(external ? relative(target.rg.cwd, path) : path),
    printed: (path) => (external ? resolve(target.rg.cwd, path) : path),
    shown: (key) => (external ? resolve(target.rg.cwd, key) : key).split(sep).join("/"),
  };
}
