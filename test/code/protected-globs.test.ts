import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { after, describe, it } from "node:test";
import { descendantExclusions, PROTECTED_NAMES, PROTECTED_SEQUENCES } from "../../src/code/path-policy.js";
import { makeTree, RG, removeTree } from "./helpers.js";

/** The protected areas as one ripgrep glob each, the form the policy used to pass. */
const NAMES: readonly string[] = PROTECTED_NAMES;
const SEQUENCES = PROTECTED_SEQUENCES.map((sequence) => sequence.join("/"));
const ONE_GLOB_PER_ENTRY = [...NAMES.map((name) => `!${name}`), ...SEQUENCES.map((s) => `!**/${s}`)];

const trees: string[] = [];
after(async () => {
  await Promise.all(trees.map(removeTree));
});

function listed(cwd: string, root: string, userGlobs: readonly string[], protectedGlobs: readonly string[]) {
  const args = ["--files", "--no-config", "--hidden"];
  for (const glob of userGlobs) args.push("--glob", glob);
  for (const glob of protectedGlobs) args.push("--iglob", glob);
  try {
    return execFileSync(RG, [...args, "--", root], { cwd })
      .toString()
      .split("\n")
      .sort();
  } catch (error) {
    // Exit status 1: no file listed at all.
    if ((error as { status?: number }).status === 1) return [];
    throw error;
  }
}

describe("protected descendant globs", () => {
  it("ripgrep lists the same files under the combined glob as under one glob per protected entry", async () => {
    const files: Record<string, string> = {};
    for (const entry of [...NAMES, ...SEQUENCES]) {
      // Exact, upper-case (case-insensitive file systems), and near misses that stay searchable.
      for (const spelling of [entry, entry.toUpperCase(), `${entry}x`, `x${entry}`]) {
        for (const prefix of ["", "a/b/"]) files[`${prefix}${spelling}/f.txt`] = "x\n";
      }
      files[`a/${entry}.bak`] = "x\n";
    }
    for (const name of NAMES) files[`c/${name}`] = "x\n";
    for (const sequence of SEQUENCES) files[`z/${sequence.split("/").slice(1).join("/")}/g.txt`] = "x\n";
    const root = await makeTree(files);
    trees.push(root);
    const combined = descendantExclusions(root, root);
    for (const userGlobs of [[], ["**"], ["**/.ssh/**", ".npmrc", "**/.git/**"]]) {
      for (const searchRoot of [".", "a", "a/b"]) {
        const expected = listed(root, searchRoot, userGlobs, ONE_GLOB_PER_ENTRY);
        if (userGlobs.length === 0) assert.ok(expected.length > 10, "the tree has searchable files");
        assert.deepEqual(
          listed(root, searchRoot, userGlobs, combined),
          expected,
          `${JSON.stringify(userGlobs)} ${searchRoot}`,
        );
      }
    }
  });
});
