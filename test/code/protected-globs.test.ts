/**
 * Protected descendants are excluded in two steps: case-sensitive ripgrep globs for the usual
 * spellings (cheap for ripgrep), then a case-insensitive filter on ripgrep's output. Together
 * they must exclude exactly the files whose paths `protectedReason` refuses: checked here
 * against ripgrep itself, on trees holding every protected entry in several spellings.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { after, describe, it } from "node:test";
import {
  descendantExclusions,
  PROTECTED_NAMES,
  PROTECTED_SEQUENCES,
  protectedDescendant,
  protectedReason,
} from "../../src/code/path-policy.js";
import { makeTree, RG, removeTree } from "./helpers.js";

const ENTRIES = [...PROTECTED_NAMES, ...PROTECTED_SEQUENCES.map((sequence) => sequence.join("/"))];

const trees: string[] = [];
after(async () => {
  await Promise.all(trees.map(removeTree));
});

function listed(cwd: string, root: string, userGlobs: readonly string[], protectedGlobs: readonly string[]) {
  const args = ["--files", "--no-config", "--hidden"];
  for (const glob of userGlobs) args.push("--glob", glob);
  for (const glob of protectedGlobs) args.push("--glob", glob);
  try {
    return execFileSync(RG, [...args, "--", root], { cwd })
      .toString()
      .split("\n")
      .filter((name) => name !== "")
      .sort();
  } catch (error) {
    // Exit status 1: no file listed at all.
    if ((error as { status?: number }).status === 1) return [];
    throw error;
  }
}

/**
 * What code_search lists: ripgrep under the protective globs, then the output filter. With or
 * without the multi-component globs (`external`), the filter must leave the same files.
 */
function ours(cwd: string, root: string, userGlobs: readonly string[], external = false) {
  const isProtected = protectedDescendant({ cwd });
  const globs = descendantExclusions(cwd, realpathSync(resolve(cwd, root)), external);
  return listed(cwd, root, userGlobs, globs).filter((name) => !isProtected(name));
}

/** The reference: everything ripgrep lists without exclusions, less what the policy refuses. */
function allowed(cwd: string, root: string, userGlobs: readonly string[]) {
  return listed(cwd, root, userGlobs, []).filter((name) => protectedReason(resolve(cwd, name)) === undefined);
}

const capitalized = (entry: string) =>
  entry.replace(/(^|[/ .])([a-z])/g, (_, before: string, letter: string) => before + letter.toUpperCase());

describe("protected descendants", () => {
  it("case-sensitive globs and the output filter exclude exactly what the policy refuses, in any spelling", async () => {
    const files: Record<string, string> = {};
    for (const entry of ENTRIES) {
      // Exact, upper-case and capitalized (case-insensitive file systems, macOS's own
      // spellings), and near misses that stay searchable.
      for (const spelling of [entry, entry.toUpperCase(), capitalized(entry), `${entry}x`, `x${entry}`]) {
        for (const prefix of ["", "a/b/"]) files[`${prefix}${spelling}/f.txt`] = "x\n";
      }
      files[`a/${entry}.bak`] = "x\n";
    }
    for (const name of PROTECTED_NAMES) {
      files[`c/${name}`] = "x\n";
      files[`c/up/${name.toUpperCase()}`] = "x\n";
    }
    for (const sequence of PROTECTED_SEQUENCES) files[`z/${sequence.slice(1).join("/")}/g.txt`] = "x\n";
    // Where "/" is the only separator, a backslash is part of a name: "a\\.ssh" is no .ssh.
    if (sep === "/") files["d/a\\.ssh"] = "x\n";
    const root = await makeTree(files);
    trees.push(root);
    for (const userGlobs of [[], ["**"], ["**/.ssh/**", ".npmrc", "**/.git/**", "**/.SSH/**"]]) {
      for (const searchRoot of [".", "a", "a/b", "c"]) {
        const expected = allowed(root, searchRoot, userGlobs);
        if (userGlobs.length === 0 && searchRoot === ".")
          assert.ok(expected.length > 100, "searchable files");
        assert.ok(expected.length < listed(root, searchRoot, userGlobs, []).length, "something is refused");
        for (const external of [false, true]) {
          assert.deepEqual(
            ours(root, searchRoot, userGlobs, external),
            expected,
            `${JSON.stringify(userGlobs)} ${searchRoot} ${external ? "external" : "in the project"}`,
          );
        }
      }
    }
  });

  it("multi-component stores get ripgrep globs where they live: outside the project, or around the home directory", async () => {
    const root = await makeTree({ "home/me/.config/gh/hosts.yml": "x\n", "project/src/a.ts": "x\n" });
    trees.push(root);
    const canonical = realpathSync(root);
    const saved = process.env.HOME;
    process.env.HOME = join(canonical, "home/me");
    try {
      const hasStores = (globs: string[]) => globs.includes("!**/.config/gh");
      const project = join(canonical, "project");
      assert.ok(
        !hasStores(descendantExclusions(project, project, false)),
        "a project without the home directory",
      );
      assert.ok(descendantExclusions(project, project, false).includes("!.ssh"), "names apply everywhere");
      assert.ok(hasStores(descendantExclusions(project, project, true)), "an external scan");
      assert.ok(
        hasStores(descendantExclusions(canonical, canonical, false)),
        "a tree that holds the home directory",
      );
      assert.ok(
        hasStores(descendantExclusions(canonical, join(canonical, "home/me"), false)),
        "the home directory",
      );
    } finally {
      if (saved === undefined) delete process.env.HOME;
      else process.env.HOME = saved;
    }
  });

  it("a working directory inside the first part of a credential store keeps the rest of it out", async () => {
    // A dotfiles project: cwd is ~/.config, so ripgrep prints gh/hosts.yml for ~/.config/gh.
    const root = await makeTree({
      ".config/gh/hosts.yml": "x\n",
      ".config/GH/hosts.yml": "x\n",
      ".config/ghostty/config": "x\n",
      ".config/nvim/init.lua": "x\n",
      ".local/share/keyrings/login.keyring": "x\n",
      ".local/share/fonts/a.ttf": "x\n",
      "Library/Application Support/Google/Chrome/Default/Cookies": "x\n",
      "Library/Application Support/Google/Drive/a": "x\n",
    });
    trees.push(root);
    const cases: [string, string[]][] = [
      [".config", ["./ghostty/config", "./nvim/init.lua"]],
      [".local", ["./share/fonts/a.ttf"]],
      [".local/share", ["./fonts/a.ttf"]],
      ["Library/Application Support", ["./Google/Drive/a"]],
      ["Library/Application Support/Google", ["./Drive/a"]],
    ];
    for (const [cwd, expected] of cases) {
      const dir = join(root, cwd);
      assert.deepEqual(ours(dir, ".", []), expected, cwd);
      assert.deepEqual(allowed(dir, ".", []), expected, `${cwd} (reference)`);
      // ripgrep itself already leaves out the usual spelling of the rest.
      const globbed = listed(dir, ".", [], descendantExclusions(dir, realpathSync(dir), false));
      if (cwd === ".config") assert.deepEqual(globbed, ["./GH/hosts.yml", ...expected]);
    }
  });
});
