/**
 * Shared fixtures for code_search tests: the real ripgrep binary, throwaway trees on disk and a
 * process-table probe, raw ripgrep's match set. Nothing here stands in for our own modules.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import {
  chmod,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readlink,
  realpath,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { rgPath } from "@vscode/ripgrep";
import type { ParsedMatch } from "../../src/code/rg/events.js";

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

/** `files` files under src/; file i holds i+1 lines that match "needle". */
export function manyFiles(files: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < files; i++) {
    out[`src/f${String(i).padStart(3, "0")}.ts`] = Array.from(
      { length: i + 1 },
      (_, j) => `const needle${j} = ${j};`,
    ).join("\n");
  }
  return out;
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

/**
 * Whether the process still runs. An orphan that has died stays a zombie until whatever
 * adopted it reaps it; dead is what matters here.
 */
export function isRunning(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
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

/** Raw ripgrep's match set, parsed independently of src/code. */
export function rawMatches(root: string, pattern: string, extra: string[] = []): string[] {
  const out = spawnSync(RG, ["--json", "--hidden", "--iglob", "!.git", ...extra, "--", pattern, "."], {
    cwd: root,
    maxBuffer: 256 * 1024 * 1024,
  });
  assert.ok(out.status === 0 || out.status === 1, out.stderr.toString());
  const set: string[] = [];
  for (const line of out.stdout.toString("utf8").split("\n")) {
    if (!line.startsWith('{"type":"match"')) continue;
    const { data } = JSON.parse(line);
    const path = data.path.text ?? Buffer.from(data.path.bytes, "base64").toString("utf8");
    const ranges = data.submatches
      .map((s: { start: number; end: number }) => `${s.start}-${s.end}`)
      .join(",");
    set.push(`${path}\u0000${data.line_number}\u0000${ranges}`);
  }
  return set.sort();
}

/** A retained snapshot's match set, in `rawMatches`'s form. */
export function asSet(snapshot: { matches: readonly ParsedMatch[] }): string[] {
  return snapshot.matches
    .map(
      (m) =>
        `${m.path}\u0000${m.line}\u0000${m.occurrences.map((o) => `${o.startByte}-${o.endByte}`).join(",")}`,
    )
    .sort();
}

export interface GatedRipgrep {
  /** An executable for EVIDENT_RG_PATH: it waits at the gate, then becomes the real ripgrep. */
  readonly path: string;
  /** How many processes have started through it so far (each notes its start before the gate). */
  starts(): number;
  /**
   * Resolves once a process waits at the gate; it stays there until `pass` lets it through, or
   * until it ends. `close` lets go of the gate without passing it.
   */
  waiting(): Promise<{ pass(): Promise<void>; close(): Promise<void> }>;
}

/**
 * A ripgrep held at a gate before it starts: a script that opens a named pipe for reading (which
 * blocks until the test opens it for writing), reads one line, then execs the real ripgrep with
 * its arguments. A search through it takes as long as the test wants, with no sleeping, and
 * terminating it while it waits ends it as it would end ripgrep. `dir` holds the script and the
 * pipe, outside any searched tree.
 */
export async function gatedRipgrep(dir: string): Promise<GatedRipgrep> {
  const gate = join(dir, "gate");
  const log = join(dir, "starts");
  const path = join(dir, "rg");
  spawnSync("mkfifo", [gate]);
  await writeFile(log, "");
  // bash's read -u leaves the script's stdin alone: a ripgrep started ahead reads its pattern there.
  await writeFile(
    path,
    `#!/bin/bash\necho "$$" >> '${log}'\nread -r -u 3 _ 3< '${gate}'\nexec '${RG}' "$@"\n`,
  );
  await chmod(path, 0o755);
  return {
    path,
    starts: () => readFileSync(log, "utf8").split("\n").filter(Boolean).length,
    async waiting() {
      // Opening for writing returns once a waiting process has opened the gate for reading.
      const writer = await open(gate, "w");
      return {
        async pass() {
          await writer.write("go\n");
          await writer.close();
        },
        close: () => writer.close(),
      };
    },
  };
}
