/**
 * The file store's private directory: where it is, how it is created and checked (0700, owned
 * by the current user, never a symlink), and the cursor MAC key inside it.
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
  unlinkSync,
  writeSync,
} from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { EvidentError } from "../../../core/errors.js";
import { CURSOR_KEY_BYTES } from "../cursor-codec.js";

export const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** Reads open without following a symlink and without blocking on a planted FIFO. */
export const READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW | (constants.O_NONBLOCK ?? 0);
const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;
const KEY_FILE = "cursor.key";
export const TEMP_PREFIX = ".tmp-";

/**
 * Where snapshots live: `EVIDENT_CACHE_DIR` when set (relative to `cwd`), else
 * `$XDG_CACHE_HOME/evident/snapshots` (an absolute XDG_CACHE_HOME only), else
 * `~/.cache/evident/snapshots`.
 */
export function snapshotCacheDir(env: Readonly<Record<string, string | undefined>>, cwd: string): string {
  const explicit = nonEmpty(env.EVIDENT_CACHE_DIR);
  if (explicit !== undefined) return resolve(cwd, explicit);
  const xdg = nonEmpty(env.XDG_CACHE_HOME);
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(nonEmpty(env.HOME) ?? homedir(), ".cache");
  return join(base, "evident", "snapshots");
}

export function prepareDir(dir: string): void {
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
}

/**
 * Reads the key file, or creates it: the new key is written to a temp file and linked into
 * place, so when two processes race the first link wins and both use its key (a rename would
 * let the second replace a key the first already issued cursors under). Where hard links are
 * unsupported, a rename is the fallback and the file is read back.
 */
export function loadOrCreateKey(dir: string): Buffer {
  const path = join(dir, KEY_FILE);
  const existing = readKeyFile(path);
  if (existing !== undefined) return existing;
  const temp = join(dir, `${TEMP_PREFIX}${randomBytes(8).toString("hex")}`);
  const fd = openSync(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW,
    FILE_MODE,
  );
  try {
    writeSync(fd, randomBytes(CURSOR_KEY_BYTES));
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
  const key = readKeyFile(path);
  if (key === undefined) throw cacheDirError(dir, "lost its key file while creating it");
  return key;
}

export function readKeyFile(path: string): Buffer | undefined {
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
    const key = Buffer.alloc(CURSOR_KEY_BYTES + 1);
    const read = readSync(fd, key, 0, key.length, 0);
    if (read !== CURSOR_KEY_BYTES)
      throw keyError(path, "is damaged (delete it; existing cursors then expire)");
    return key.subarray(0, CURSOR_KEY_BYTES);
  } finally {
    closeSync(fd);
  }
}

export function ownedByMe(stat: Stats): boolean {
  const uid = process.getuid?.();
  return uid === undefined || stat.uid === uid;
}

export function cacheDirError(dir: string, problem: string, cause?: unknown): EvidentError {
  return new EvidentError(
    "configuration_error",
    `The code_search cursor cache ${dir} ${problem}. Set EVIDENT_CACHE_DIR to a directory owned by you ` +
      "and not writable by others (it is created with mode 0700).",
    { details: { key: "EVIDENT_CACHE_DIR", path: dir }, ...(cause === undefined ? {} : { cause }) },
  );
}

export function keyError(path: string, problem: string, cause?: unknown): EvidentError {
  return new EvidentError(
    "configuration_error",
    `The code_search cursor key file ${path} ${problem}. Set EVIDENT_CACHE_DIR to a private directory, or ` +
      "fix the file.",
    { details: { key: "EVIDENT_CACHE_DIR", path }, ...(cause === undefined ? {} : { cause }) },
  );
}

export function errnoOf(thrown: unknown): string {
  const code = (thrown as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : "error";
}

export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

/** A small private file's text, or undefined when it is missing, not ours or not a file. */
export async function readSmall(path: string): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, READ_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || !ownedByMe(stat) || stat.size > 4 * 1024 * 1024) return undefined;
    return await handle.readFile("utf8");
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
