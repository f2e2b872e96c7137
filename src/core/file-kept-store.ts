/**
 * A `KeptStore` on disk, for one-shot surfaces (the CLI): what one `evident` process kept, the
 * next one continues. Same semantics as `MemoryKeptStore`: bound to the caller, a time to live
 * after the last use (a file's mtime), count and byte bounds with the least recently used
 * evicted first (the caller's own first) and no value over its share, and ids let go of
 * reading as `cursor_expired` (a small `.gone` file says why).
 *
 * The directory is private (0700, owned by the user, never a symlink, not writable by others);
 * files are 0600, written to a temp name and renamed, opened without following symlinks. Each
 * value file starts with an HMAC under the directory's key, bound to its id, so an edited or
 * swapped file is an expired cursor, never other content. The key file is created once; when
 * two processes race, the first link wins and both use its key.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { constants } from "node:fs";
import { open, readdir, rename, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { EvidentError } from "./errors.js";
import {
  KEPT_ID_BYTES,
  KEPT_KEY_BYTES,
  type KeptStore,
  type KeptStoreBounds,
  KeptValueTooLarge,
  keptEntryMaxBytes,
  keptExpired,
  keptNotFound,
  keptValueMac,
} from "./kept.js";
import {
  CREATE_FLAGS,
  cacheDirError,
  errnoOf,
  FILE_MODE,
  loadOrCreateKey,
  O_NOFOLLOW,
  ownedByMe,
  preparePrivateDir,
  READ_FLAGS,
  readSmallPrivateFile,
  TEMP_PREFIX,
} from "./private-dir.js";

const ID = /^[0-9a-f]{32}$/;
const VALUE_NAME = /^([0-9a-f]{32})\.kept$/;
const GONE_NAME = /^[0-9a-f]{32}\.gone$/;
const MAC_HEX = 64;
/** A value file starts with its MAC, then `{"caller":"...",`; callers are short keys. */
const OWNER_PREFIX = /^[0-9a-f]{64}\n\{"caller":("(?:[^"\\]|\\.)*")/;
const OWNER_HEAD_BYTES = 4096;

export interface FileKeptStoreOptions extends KeptStoreBounds {
  readonly dir: string;
}

export class FileKeptStore<T> implements KeptStore<T> {
  readonly #options: FileKeptStoreOptions;
  readonly #now: () => number;
  readonly entryMaxBytes: number;
  #key: Buffer | undefined;

  constructor(options: FileKeptStoreOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.entryMaxBytes = keptEntryMaxBytes(options.maxBytes);
  }

  /** Counts the file it writes (what eviction counts), not the caller's estimate. */
  async put(caller: string, value: T, _bytes: number): Promise<string> {
    const { key } = this.#ready();
    const id = randomBytes(KEPT_ID_BYTES).toString("hex");
    const json = JSON.stringify({ caller, value });
    const size = MAC_HEX + 1 + Buffer.byteLength(json);
    if (size > this.entryMaxBytes) throw new KeptValueTooLarge(size, this.entryMaxBytes);
    try {
      await this.#write(`${id}.kept`, `${mac(key, id, json)}\n${json}`);
    } catch (thrown) {
      throw cacheDirError(this.#options.dir, `cannot be written (${errnoOf(thrown)})`, thrown);
    }
    await this.#maintain(id, caller).catch(() => undefined);
    return id;
  }

  async get(caller: string, id: string): Promise<T> {
    const { dir, key } = this.#ready();
    const redo = this.#options.redo;
    if (!ID.test(id)) throw keptNotFound(redo);
    let text: string;
    let used: number;
    try {
      const handle = await open(join(dir, `${id}.kept`), READ_FLAGS);
      try {
        const info = await handle.stat();
        if (!info.isFile() || !ownedByMe(info)) throw new Error("not a private file");
        text = await handle.readFile("utf8");
        used = info.mtimeMs;
      } finally {
        await handle.close();
      }
    } catch (thrown) {
      if (errnoOf(thrown) === "ENOENT") return this.#gone(caller, id);
      await unlink(join(dir, `${id}.kept`)).catch(() => undefined);
      throw keptExpired("unreadable, so it was discarded", redo);
    }
    const json = text.slice(MAC_HEX + 1);
    const given = Buffer.from(text.slice(0, MAC_HEX), "hex");
    const expected = Buffer.from(mac(key, id, json), "hex");
    let record: { caller?: unknown; value?: T } | undefined;
    if (given.length === expected.length && timingSafeEqual(given, expected)) {
      try {
        record = JSON.parse(json) as { caller?: unknown; value?: T };
      } catch {
        record = undefined;
      }
    }
    if (record === undefined) {
      await unlink(join(dir, `${id}.kept`)).catch(() => undefined);
      throw keptExpired("damaged, so it was discarded", redo);
    }
    if (record.caller !== caller) throw keptNotFound(redo);
    const now = this.#now();
    if (now - used > this.#options.ttlMs) {
      await this.#expire(id, caller, "timed out");
      throw keptExpired("timed out", redo);
    }
    const handle = await open(join(dir, `${id}.kept`), constants.O_RDONLY | O_NOFOLLOW).catch(
      () => undefined,
    );
    await handle?.utimes(now / 1000, now / 1000).catch(() => undefined);
    await handle?.close();
    return record.value as T;
  }

  /** The directory's key: cursors made by one process verify in the next. */
  key(): Buffer {
    return this.#ready().key;
  }

  async close(): Promise<void> {}

  #ready(): { dir: string; key: Buffer } {
    const dir = this.#options.dir;
    if (this.#key === undefined) {
      preparePrivateDir(dir);
      this.#key = loadOrCreateKey(dir, KEPT_KEY_BYTES);
    }
    return { dir, key: this.#key };
  }

  async #gone(caller: string, id: string): Promise<never> {
    try {
      const record = JSON.parse(
        (await readSmallPrivateFile(join(this.#options.dir, `${id}.gone`))) ?? "",
      ) as {
        caller?: unknown;
        reason?: unknown;
      };
      if (record.caller === caller && typeof record.reason === "string")
        throw keptExpired(record.reason, this.#options.redo);
    } catch (thrown) {
      if (thrown instanceof EvidentError) throw thrown;
    }
    throw keptNotFound(this.#options.redo);
  }

  async #expire(id: string, caller: string, reason: string): Promise<void> {
    await this.#write(`${id}.gone`, JSON.stringify({ caller, reason })).catch(() => undefined);
    await unlink(join(this.#options.dir, `${id}.kept`)).catch(() => undefined);
  }

  /**
   * After a put: expire timed-out values, evict beyond the bounds (the caller's own values
   * first, as in memory), drop old `.gone` files and temp files.
   */
  async #maintain(newest: string, caller: string): Promise<void> {
    const dir = this.#options.dir;
    const now = this.#now();
    const live: Array<{ id: string; used: number; size: number }> = [];
    const gone: Array<{ name: string; time: number }> = [];
    for (const name of await readdir(dir)) {
      const info = await stat(join(dir, name)).catch(() => undefined);
      if (info === undefined) continue;
      const value = VALUE_NAME.exec(name);
      if (value !== null) {
        const id = value[1] as string;
        if (id !== newest && now - info.mtimeMs > this.#options.ttlMs)
          await this.#expireUnread(id, "timed out");
        else live.push({ id, used: info.mtimeMs, size: info.size });
      } else if (GONE_NAME.test(name)) gone.push({ name, time: info.mtimeMs });
      else if (name.startsWith(TEMP_PREFIX) && now - info.mtimeMs > this.#options.ttlMs)
        await unlink(join(dir, name)).catch(() => undefined);
    }
    live.sort((a, b) => a.used - b.used);
    let bytes = live.reduce((sum, entry) => sum + entry.size, 0);
    let count = live.length;
    const over = () => count > this.#options.maxCount || bytes > this.#options.maxBytes;
    const owners = new Map<string, string | undefined>();
    if (over()) for (const entry of live) owners.set(entry.id, await this.#ownerOf(entry.id));
    const evicted = new Set<string>([newest]);
    for (const own of [true, false]) {
      for (const entry of live) {
        if (!over()) break;
        if (evicted.has(entry.id) || (own && owners.get(entry.id) !== caller)) continue;
        await this.#expireUnread(entry.id, "evicted");
        evicted.add(entry.id);
        count--;
        bytes -= entry.size;
      }
    }
    gone.sort((a, b) => a.time - b.time);
    for (const { name } of gone.slice(0, Math.max(0, gone.length - this.#options.maxCount * 4)))
      await unlink(join(dir, name)).catch(() => undefined);
  }

  /**
   * Who a value file says it belongs to, from its first bytes (unverified: it only orders
   * eviction, in a directory only this user can write).
   */
  async #ownerOf(id: string): Promise<string | undefined> {
    const handle = await open(join(this.#options.dir, `${id}.kept`), READ_FLAGS).catch(() => undefined);
    if (handle === undefined) return undefined;
    try {
      const head = Buffer.alloc(OWNER_HEAD_BYTES);
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      const found = OWNER_PREFIX.exec(head.subarray(0, bytesRead).toString("utf8"));
      return found === null ? undefined : (JSON.parse(found[1] as string) as string);
    } catch {
      return undefined;
    } finally {
      await handle.close();
    }
  }

  /** Expires a value this process has not read: its owner is read from the file (unverified, only to say why). */
  async #expireUnread(id: string, reason: string): Promise<void> {
    // From the file's first bytes: a value of any size leaves a tombstone for its owner.
    const caller = await this.#ownerOf(id);
    if (caller !== undefined) await this.#expire(id, caller, reason);
    else await unlink(join(this.#options.dir, `${id}.kept`)).catch(() => undefined);
  }

  async #write(name: string, text: string): Promise<void> {
    const dir = this.#options.dir;
    const temp = join(dir, `${TEMP_PREFIX}${randomBytes(8).toString("hex")}`);
    const handle = await open(temp, CREATE_FLAGS, FILE_MODE);
    try {
      await writeFile(handle, text);
      const now = this.#now();
      await handle.utimes(now / 1000, now / 1000);
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, join(dir, name));
    } catch (thrown) {
      await unlink(temp).catch(() => undefined);
      throw thrown;
    }
  }
}

function mac(key: Buffer, id: string, json: string): string {
  return keptValueMac(key, id, json).toString("hex");
}
