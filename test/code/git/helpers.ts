/**
 * Real Git repositories for tests: built with the git executable in a temp tree, with a fixed
 * identity and no global or system configuration, so a developer's settings never leak in.
 */
import { spawnSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { makeTree, removeTree, type TreeEntry } from "../helpers.js";

export const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
  GIT_AUTHOR_DATE: "2024-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2024-01-01T00:00:00Z",
  // A commit otherwise starts `git maintenance run --auto`, half of what it costs.
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: "maintenance.auto",
  GIT_CONFIG_VALUE_0: "false",
};

/** Runs git in `cwd`; fails the test on a non-zero exit. Returns stdout. */
export function git(cwd: string, ...args: string[]): string {
  const out = spawnSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8" });
  if (out.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${out.stderr}`);
  return out.stdout;
}

export function gitVersion(): [number, number] {
  const text = git(process.cwd(), "--version");
  const m = /(\d+)\.(\d+)/.exec(text);
  return [Number(m?.[1]), Number(m?.[2])];
}

/** A repository whose first commit holds `files`. */
export async function makeRepo(files: Record<string, TreeEntry>): Promise<string> {
  const root = await makeTree(files);
  git(root, "init", "-q", "-b", "main");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "first");
  return root;
}

/** Writes files (relative path -> content) into a tree. */
export async function write(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

/** Writes `files`, stages everything and commits. */
export async function commit(
  root: string,
  files: Record<string, string | Buffer>,
  message = "change",
): Promise<void> {
  await write(root, files);
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", message);
}

/**
 * A `makeRepo` whose repositories are removed when the calling test file ends (`after`,
 * registered once per call of this function at the top of a file).
 */
export function reposRemovedAfter(after: (fn: () => Promise<void>) => void) {
  const roots: string[] = [];
  after(async () => {
    await Promise.all(roots.map(removeTree));
  });
  return async (files: Record<string, TreeEntry>): Promise<string> => {
    const root = await makeRepo(files);
    roots.push(root);
    return root;
  };
}
