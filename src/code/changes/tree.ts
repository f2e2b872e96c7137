/**
 * A change scope's private tree: each wanted file's content on the searched side (working-tree
 * bytes already read, read again at the revision their id belongs to, or Git objects) written
 * under the tree as its key says, within the comparison's byte bounds. What cannot be written is
 * named with why, never dropped silently.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import { mapBounded } from "../../core/concurrency.js";
import { CHANGES_CONCURRENT_FILES, CHANGES_FILE_MAX_BYTES, CHANGES_MAX_BYTES } from "../../core/limits.js";
import type { ChangedFile } from "../git/diff.js";
import { type Blob as GitBlob, readBlobs } from "../git/objects.js";
import type { Git } from "../git/process.js";
import type { Repository } from "../git/repository.js";
import type { Revision } from "../revisions/scan.js";
import { readBytes } from "./worktree.js";

/** What a tree holds besides its files: each file's content id and the files it could not get. */
export interface ScopeBuild {
  readonly ids: ReadonlyMap<string, string>;
  readonly notCovered: readonly NotCovered[];
}

export interface NotCovered {
  readonly path: string;
  readonly reason: string;
  /** Changed files the entry stands for (named once with how many more; none for a submodule not
   * known to have changed), if not one. */
  readonly files?: number;
}

/** A changed file on its way into a tree. */
export interface Wanted {
  readonly changed: ChangedFile | undefined;
  /** Repository-relative path. */
  readonly path: string;
  readonly key: string;
  /** The content's id: an object id, or the id of the working-tree bytes read. */
  readonly id: string | undefined;
  /** Working-tree content: its bytes if they were read, and the revision its id belongs to. */
  readonly bytes: Buffer | undefined;
  readonly revision: Revision | undefined;
}

/** A file's bytes on their way into the tree. */
interface Write {
  readonly destination: string;
  readonly key: string;
  readonly bytes: Buffer;
}

/** Writes a scope's files into `dir`: working-tree bytes already read, or Git objects. */
export async function buildTree(
  git: Git,
  repository: Repository,
  wanted: readonly Wanted[],
  dir: string,
  signal: AbortSignal,
): Promise<ScopeBuild> {
  const contents = await contentsOf(git, repository, wanted, signal);
  const ids = new Map<string, string>();
  const notCovered: NotCovered[] = [];
  const writes: Write[] = [];
  let total = 0;
  for (const [i, w] of wanted.entries()) {
    const bytes = contents[i] as Buffer | string;
    if (typeof bytes === "string") {
      notCovered.push({ path: w.key, reason: bytes });
      continue;
    }
    if (total + bytes.length > CHANGES_MAX_BYTES) {
      notCovered.push({ path: w.key, reason: OVER_TOTAL });
      continue;
    }
    const destination = join(dir, w.key);
    // Never outside the tree, whatever a key holds (the paths were checked when listed).
    if (!destination.startsWith(`${dir}${sep}`)) {
      notCovered.push({ path: w.key, reason: "its path leads out of the comparison's tree" });
      continue;
    }
    total += bytes.length;
    ids.set(w.key, w.id as string);
    writes.push({ destination, key: w.key, bytes });
  }
  for (const key of dropShadowed(writes, dir)) {
    ids.delete(key);
    notCovered.push({
      path: key,
      reason: "a directory of the same name is changed too, so it cannot be compared",
    });
  }
  // Directories once each (parents first), then the files, several at a time.
  for (const directory of [...new Set(writes.map((w) => dirname(w.destination)))].sort()) {
    await mkdir(directory, { recursive: true, mode: 0o700 });
  }
  await mapBounded(
    writes,
    CHANGES_CONCURRENT_FILES,
    ({ destination, bytes }) => writeFile(destination, bytes, { mode: 0o600 }),
    signal,
  );
  return { ids, notCovered };
}

/** Said of a file past the total a comparison covers, whether or not its bytes were read. */
const OVER_TOTAL = `beyond the ${CHANGES_MAX_BYTES / (1024 * 1024)} MiB a comparison covers`;

/** Each wanted file's bytes, or why it has none: read already, read now, or from Git's objects. */
async function contentsOf(
  git: Git,
  repository: Repository,
  wanted: readonly Wanted[],
  signal: AbortSignal,
): Promise<(Buffer | string)[]> {
  const blobs = wanted.some((w) => w.revision === undefined)
    ? await readBlobs(
        git,
        repository,
        wanted.flatMap((w) => w.id ?? []),
        CHANGES_FILE_MAX_BYTES,
        CHANGES_MAX_BYTES,
        signal,
      )
    : undefined;
  // Working-tree files known by id but not read this time: read now, at that same revision.
  const late = await mapBounded(
    wanted,
    CHANGES_CONCURRENT_FILES,
    async (w) =>
      w.revision !== undefined && w.bytes === undefined
        ? readBytes(join(repository.root, w.path), w.revision)
        : undefined,
    signal,
  );
  return wanted.map(
    (w, i) => w.bytes ?? late[i] ?? blobBytes(w.id === undefined ? undefined : blobs?.get(w.id)),
  );
}

function blobBytes(blob: GitBlob | undefined): Buffer | string {
  if (blob === undefined || blob.kind === "missing") return "its content is not in the local object database";
  if (blob.kind === "too-large") return `larger than ${CHANGES_FILE_MAX_BYTES / (1024 * 1024)} MiB`;
  // Not read: past the same total bound as the tree's own (which also counts what else it
  // holds), so said the same way.
  if (blob.kind === "over-total") return OVER_TOTAL;
  return blob.bytes;
}

/**
 * A crafted tree can hold a file and a directory of one name: the directory is kept, and the
 * file's write is taken out of `writes`. Returns the keys of the files taken out.
 */
function dropShadowed(writes: Write[], dir: string): string[] {
  const directories = new Set<string>();
  for (const { destination } of writes) {
    for (let d = dirname(destination); d !== dir && !directories.has(d); d = dirname(d)) directories.add(d);
  }
  const dropped: string[] = [];
  for (let i = writes.length - 1; i >= 0; i--) {
    const { destination, key } = writes[i] as Write;
    if (!directories.has(destination)) continue;
    writes.splice(i, 1);
    dropped.push(key);
  }
  return dropped;
}
