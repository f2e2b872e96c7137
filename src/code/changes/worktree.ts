/**
 * Working-tree reads for change scopes: untracked files Git would show, and one file's bytes,
 * read once without following a symbolic link, with its revision observed around the read and
 * its content id computed as Git computes a blob's.
 */
import { createHash } from "node:crypto";
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { EvidentError } from "../../core/errors.js";
import { CHANGES_CONTENT_IDS_MAX, CHANGES_FILE_MAX_BYTES } from "../../core/limits.js";
import { BoundedCache } from "../bounded-cache.js";
import { feed, type Git } from "../git/process.js";
import type { Repository } from "../git/repository.js";
import { type Revision, readRevisionSync, revisionSize, sameRevision } from "../revisions/scan.js";
import { LineSplitter } from "../rg/events.js";
import { readVersion } from "../source/document.js";

/** Untracked files that are not ignored, repository-relative. */
export async function untrackedFiles(
  git: Git,
  repository: Repository,
  pathspec: string,
  signal: AbortSignal,
): Promise<string[]> {
  const out = await git.run({
    cwd: repository.root,
    args: ["ls-files", "--others", "--exclude-standard", "-z", "--", pathspec === "" ? "." : pathspec],
    config: repository.config,
    signal,
  });
  if (out.exitCode !== 0)
    throw new EvidentError("internal_error", "git ls-files could not list untracked files.");
  const names: string[] = [];
  for (const name of out.stdout.toString("utf8").split("\0")) if (name !== "") names.push(name);
  return names;
}

/**
 * Submodules under `pathspec` whose checkout is there (their `.git` exists), repository-relative.
 * Git is asked only when the working tree has a `.gitmodules`: a repository without one pays
 * nothing. The index is the truth (an entry of mode 160000), `.gitmodules` only the sign; the
 * listing is streamed and only submodule entries are kept.
 */
export async function checkedOutSubmodules(
  git: Git,
  repository: Repository,
  pathspec: string,
  signal: AbortSignal,
): Promise<string[]> {
  if (!exists(join(repository.root, ".gitmodules"))) return [];
  const names: Buffer[] = [];
  // At most one unfinished entry is held.
  const records = new LineSplitter(0);
  const keep = (record: Buffer) => {
    // "160000 <id> <stage>\t<path>"
    const tab = record.indexOf(0x09);
    if (tab >= 0 && record.subarray(0, 7).toString("latin1") === "160000 ")
      names.push(Buffer.from(record.subarray(tab + 1)));
  };
  const outcome = await git.stream(
    {
      cwd: repository.root,
      args: ["ls-files", "--stage", "-z", "--", pathspec === "" ? "." : pathspec],
      config: repository.config,
      signal,
    },
    (stdout) => feed(stdout, (chunk) => void records.push(chunk, keep)),
  );
  if (outcome.exitCode !== 0)
    throw new EvidentError("internal_error", "git ls-files could not list the submodules.");
  const root = Buffer.from(`${repository.root}/`);
  return names
    .filter((name) => exists(Buffer.concat([root, name, Buffer.from("/.git")])))
    .map((name) => name.toString("utf8"));
}

function exists(path: string | Buffer): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

export interface CurrentContent {
  readonly revision: Revision;
  /** The blob id Git would give the file's bytes. */
  readonly id: string;
  /** The bytes, when they were read for this (an id known for this revision needs no read). */
  readonly bytes: Buffer | undefined;
}

/**
 * Content ids of working-tree files by revision, kept between calls: a file whose revision is
 * the one observed when its id was computed has that content still (the trust model of every
 * revision check here), so asking again about the same changes reads nothing.
 */
export class ContentIds {
  readonly #ids: BoundedCache<{ readonly revision: Revision; readonly id: string }>;

  constructor(max: number = CHANGES_CONTENT_IDS_MAX) {
    this.#ids = new BoundedCache({ maxEntries: max, maxBytes: Number.POSITIVE_INFINITY });
  }

  get(path: string, revision: Revision): string | undefined {
    const known = this.#ids.get(path);
    return known !== undefined && sameRevision(known.revision, revision) ? known.id : undefined;
  }

  set(path: string, revision: Revision, id: string): void {
    this.#ids.set(path, { revision, id }, 0);
  }
}

/** A working-tree file's revision and content id (its bytes when they had to be read), or why not. */
export async function readCurrent(
  absolute: string,
  repository: Repository,
  ids: ContentIds,
): Promise<CurrentContent | string> {
  // A symbolic link is not followed (ripgrep does not follow them either): it could lead
  // anywhere, a credential store included.
  if (!isRegularFile(absolute)) return "it is not a regular file any more";
  const before = readRevisionSync(absolute);
  if (before === undefined) return "it cannot be read";
  if (BigInt(revisionSize(before)) > BigInt(CHANGES_FILE_MAX_BYTES)) {
    return `larger than ${CHANGES_FILE_MAX_BYTES / (1024 * 1024)} MiB`;
  }
  const known = ids.get(absolute, before);
  if (known !== undefined) return { revision: before, id: known, bytes: undefined };
  const read = await readBytes(absolute, before);
  if (typeof read === "string") return read;
  const id = blobId(read, repository.objectFormat);
  ids.set(absolute, before, id);
  return { revision: before, id, bytes: read };
}

/** The file's bytes if its revision is `expected` before and after reading them, else why not. */
export async function readBytes(absolute: string, expected: Revision): Promise<Buffer | string> {
  // A symbolic link swapped in since the listing is not followed.
  const read = await readVersion(absolute, expected, true);
  if (Buffer.isBuffer(read)) return read;
  if (read.reason === "not_a_file") return "it is not a regular file any more";
  return read.reason === "changed" ? "it changed while it was read" : "it cannot be read";
}

export function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

function blobId(bytes: Buffer, format: "sha1" | "sha256"): string {
  return createHash(format).update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}
