/**
 * Private directories for state that one-shot surfaces (the CLI) keep between processes: code
 * search snapshots and long web pages. Where they are, how one is created and checked (0700,
 * owned by the current user, never a symlink, not writable by others), the MAC key file inside
 * it, and reading a small file there without following symlinks or blocking on a planted FIFO.
 * Every problem is a `configuration_error` naming the setting that moves the directory.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { dirname, join } from "node:path";
import { EvidentError } from "./errors.js";

/** The setting that moves every private cache directory. */
export const CACHE_DIR_SETTING = "EVIDENT_CACHE_DIR";
export const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** Reads open without following a symlink and without blocking on a planted FIFO. */
export const READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW | (constants.O_NONBLOCK ?? 0);
/** A new file only: never an existing one, never through a symlink. */
export const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;
const DIR_MODE = 0o700;
/** The sticky bit: in such a directory only an entry's owner may rename or remove it. */
const STICKY = 0o1000;
export const FILE_MODE = 0o600;
const KEY_FILE = "cursor.key";
/** Files being written; every write is a temp file renamed into place. */
export const TEMP_PREFIX = ".tmp-";
/** A "small" private file (a selection, a tombstone) larger than this is not ours. */
const SMALL_FILE_MAX_BYTES = 4 * 1024 * 1024;

/** Creates the directory (0700) if needed and refuses one that is not private. */
export function preparePrivateDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  } catch (thrown) {
    if (errnoOf(thrown) !== "EEXIST")
      throw cacheDirError(dir, `cannot be created (${errnoOf(thrown)})`, thrown);
  }
  let stat: Stats;
  try {
    stat = lstatSync(dir);
  } catch (thrown) {
    throw cacheDirError(dir, `cannot be read (${errnoOf(thrown)})`, thrown);
  }
  if (stat.isSymbolicLink()) throw cacheDirError(dir, "is a symbolic link");
  if (!stat.isDirectory()) throw cacheDirError(dir, "is not a directory");
  if (!ownedByMe(stat)) throw cacheDirError(dir, "is not owned by the current user");
  if (process.platform !== "win32" && (stat.mode & 0o022) !== 0) {
    throw cacheDirError(dir, "is writable by other users");
  }
  // Whoever may write the parent may swap this directory for another: refuse that too, unless
  // the parent is sticky (as /tmp is), where only its owner can rename it.
  const parent = dirname(dir);
  const above = statSync(parent);
  if (process.platform !== "win32" && (above.mode & 0o022) !== 0 && (above.mode & STICKY) === 0) {
    throw cacheDirError(parent, "is writable by other users");
  }
}

/**
 * Reads the directory's key file, or creates it: the new key is written to a temp file and
 * linked into place, so when two processes race the first link wins and both use its key (a
 * rename would let the second replace a key the first already issued cursors under). Where hard
 * links are unsupported, a rename is the fallback and the file is read back.
 */
export function loadOrCreateKey(dir: string, bytes: number): Buffer {
  const path = join(dir, KEY_FILE);
  const existing = readKeyFile(path, bytes);
  if (existing !== undefined) return existing;
  const temp = join(dir, `${TEMP_PREFIX}${randomBytes(8).toString("hex")}`);
  const fd = openSync(temp, CREATE_FLAGS, FILE_MODE);
  try {
    writeSync(fd, randomBytes(bytes));
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
  } catch (thrown) {
    if (errnoOf(thrown) !== "EEXIST") renameSync(temp, path);
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // Already renamed into place.
    }
  }
  const key = readKeyFile(path, bytes);
  if (key === undefined) throw cacheDirError(dir, "lost its key file while creating it");
  return key;
}

function readKeyFile(path: string, bytes: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS);
  } catch (thrown) {
    if (errnoOf(thrown) === "ENOENT") return undefined;
    throw keyError(path, `cannot be opened (${errnoOf(thrown)}; a symbolic link is refused)`, thrown);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || !ownedByMe(stat)) throw keyError(path, "is not a regular file owned by you");
    if (process.platform !== "win32" && (stat.mode & 0o077) !== 0) {
      throw keyError(path, "is readable or writable by other users");
    }
    const key = Buffer.alloc(bytes + 1);
    const read = readSync(fd, key, 0, key.length, 0);
    if (read !== bytes) throw keyError(path, "is damaged (delete it; existing cursors then expire)");
    return key.subarray(0, bytes);
  } finally {
    closeSync(fd);
  }
}

/** A small private file's text, or undefined when it is missing, not ours or not a file. */
export async function readSmallPrivateFile(path: string): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, READ_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || !ownedByMe(stat) || stat.size > SMALL_FILE_MAX_BYTES) return undefined;
    return await handle.readFile("utf8");
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

export function ownedByMe(stat: Stats): boolean {
  const uid = process.getuid?.();
  return uid === undefined || stat.uid === uid;
}

export function cacheDirError(dir: string, problem: string, cause?: unknown): EvidentError {
  return new EvidentError(
    "configuration_error",
    `The cursor cache ${dir} ${problem}. Set ${CACHE_DIR_SETTING} to a directory owned by you ` +
      "and not writable by others (it is created with mode 0700).",
    { details: { key: CACHE_DIR_SETTING, path: dir }, ...(cause === undefined ? {} : { cause }) },
  );
}

function keyError(path: string, problem: string, cause?: unknown): EvidentError {
  return new EvidentError(
    "configuration_error",
    `The cursor key file ${path} ${problem}. Set ${CACHE_DIR_SETTING} to a private directory, or fix the file.`,
    { details: { key: CACHE_DIR_SETTING, path }, ...(cause === undefined ? {} : { cause }) },
  );
}

export function errnoOf(thrown: unknown): string {
  const code = (thrown as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : "error";
}
