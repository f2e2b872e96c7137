/**
 * Shared fixtures for code_search tests: the real ripgrep binary, throwaway trees on disk and a
 * process-table probe. Nothing here stands in for our own modules.
 */
import { mkdir, mkdtemp, readdir, readlink, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { rgPath } from "@vscode/ripgrep";

export const RG = rgPath;

export type TreeEntry = string | Buffer | { readonly symlink: string };

/** Writes `files` (relative path -> content or symlink target) under a fresh temp directory. */
export async function makeTree(files: Record<string, TreeEntry>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "evident-code-"));
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    await mkdir(dirname(full), { recursive: true });
    if (typeof content === "object" && !Buffer.isBuffer(content)) await symlink(content.symlink, full);
    else await writeFile(full, content);
  }
  return root;
}

export async function removeTree(root: string): Promise<void> {
  await rm(root, { recursive: true, force: true });
}

/**
 * A `makeTree` whose trees are removed when the calling test file ends (`after`, registered
 * once per call of this function at the top of a file).
 */
export function treesRemovedAfter(after: (fn: () => Promise<void>) => void) {
  const trees: string[] = [];
  after(async () => {
    await Promise.all(trees.map(removeTree));
  });
  return async (files: Record<string, TreeEntry>): Promise<string> => {
    const root = await makeTree(files);
    trees.push(root);
    return root;
  };
}

/** Whether a process with this pid exists (a reaped child does not). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Pids whose working directory is `dir`, read from the process table (/proc). */
export async function processesIn(dir: string): Promise<number[]> {
  const target = await realpath(dir);
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if ((await readlink(`/proc/${entry}/cwd`)) === target) found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to inspect.
    }
  }
  return found;
}
