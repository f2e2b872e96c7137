/**
 * A snapshot store on disk, for one-shot surfaces (the CLI): a cursor printed by one `evident
 * grep` process is continued by the next. Semantics match `MemorySnapshotStore`: snapshots are
 * bound to their caller, live `SNAPSHOT_TTL_MS` after their last use, are bounded in count and
 * bytes (least recently used evicted first), and read as `cursor_expired` once released, timed
 * out or evicted (a small tombstone file remembers them).
 *
 * Layout of the private directory (0700, owned by the current user, never a symlink):
 *   cursor.key                  the cursor MAC key (0600), created once; the first writer wins
 *   <id>.snapshot               magic, HMAC, caller, `node:v8` serialization of the result;
 *                               its mtime is the snapshot's last use
 *   <id>.<signature>.selection  the file keys behind a match cursor's selection (JSON + HMAC)
 *   <id>.expired                tombstone: caller and why it went away
 *   .tmp-*                      files being written; every write is temp file + rename
 *
 * Every file carries an HMAC under the key, bound to its id, so an edited, swapped or damaged
 * file reads as an expired cursor with a clear message, never as other evidence. Files are
 * opened with O_NOFOLLOW where the platform has it; symlinks in the directory are never used.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { type FileHandle, lstat, open, readdir, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { EvidentError } from "../../../core/errors.js";
import {
  SNAPSHOT_FILE_TOMBSTONES_MAX,
  SNAPSHOT_MAX_COUNT,
  SNAPSHOT_STORE_MAX_BYTES,
  SNAPSHOT_TTL_MS,
} from "../../../core/limits.js";
import type { Logger } from "../../../core/logger.js";
import {
  CREATE_FLAGS,
  cacheDirError,
  errnoOf,
  FILE_MODE,
  loadOrCreateKey,
  ownedByMe,
  preparePrivateDir,
  READ_FLAGS,
  readSmallPrivateFile,
  TEMP_PREFIX,
} from "../../../core/private-dir.js";
import { CURSOR_KEY_BYTES, CursorCodec, type CursorState, SNAPSHOT_ID_BYTES } from "../cursor-codec.js";
import {
  cursorExpired,
  cursorNotFound,
  type SnapshotStore,
  type StoredResult,
  storedResultDamaged,
} from "../store.js";
import {
  CALLER_MAX_BYTES,
  FILE_MAC_BYTES,
  HEADER_BYTES,
  ID_PATTERN,
  isReason,
  isStoredResult,
  MAGIC,
  type Reason,
  readHeader,
  SELECTION_NAME,
  SIGNATURE_PATTERN,
  SNAPSHOT_NAME,
  selectionMac,
  TOMBSTONE_NAME,
  verifySnapshot,
} from "./format.js";

export interface FileSnapshotStoreOptions {
  /** The directory itself (the surface resolves it from EVIDENT_CACHE_DIR, see config/settings.ts). */
  readonly dir: string;
  readonly ttlMs?: number;
  readonly maxCount?: number;
  readonly maxBytes?: number;
  readonly maxTombstones?: number;
  /** Injected clock, so expiry is testable without waiting. */
  readonly now?: () => number;
  readonly logger?: Logger;
}

export class FileSnapshotStore implements SnapshotStore {
  readonly #options: FileSnapshotStoreOptions;
  readonly #ttlMs: number;
  readonly #maxCount: number;
  readonly #maxBytes: number;
  readonly #maxTombstones: number;
  readonly #now: () => number;
  /** Owners of snapshots this instance wrote or verified, to skip re-reading headers. */
  readonly #owners = new Map<string, string>();
  #ready: { readonly dir: string; readonly key: Buffer; readonly codec: CursorCodec } | undefined;
  #failure: EvidentError | undefined;
  #closed = false;

  constructor(options: FileSnapshotStoreOptions) {
    this.#options = options;
    this.#ttlMs = options.ttlMs ?? SNAPSHOT_TTL_MS;
    this.#maxCount = options.maxCount ?? SNAPSHOT_MAX_COUNT;
    this.#maxBytes = options.maxBytes ?? SNAPSHOT_STORE_MAX_BYTES;
    this.#maxTombstones = options.maxTombstones ?? SNAPSHOT_FILE_TOMBSTONES_MAX;
    this.#now = options.now ?? Date.now;
  }

  /** The directory in use (resolving and checking it on first use). */
  get dir(): string {
    return this.#init().dir;
  }

  async put(caller: string, data: StoredResult): Promise<string> {
    const { dir, key } = this.#open();
    const callerBytes = Buffer.from(caller, "utf8");
    if (callerBytes.length > CALLER_MAX_BYTES)
      throw new EvidentError("internal_error", "Caller key too long.");
    const id = randomBytes(SNAPSHOT_ID_BYTES).toString("hex");
    const payload = serialize(data);
    const header = Buffer.alloc(HEADER_BYTES);
    MAGIC.copy(header, 0);
    header.writeUInt16BE(callerBytes.length, MAGIC.length + FILE_MAC_BYTES);
    const mac = createHmac("sha256", key)
      .update(`snapshot\0${id}\0`)
      .update(header.subarray(MAGIC.length + FILE_MAC_BYTES))
      .update(callerBytes)
      .update(payload)
      .digest();
    mac.copy(header, MAGIC.length);
    try {
      await this.#writeAtomic(dir, `${id}.snapshot`, [header, callerBytes, payload]);
    } catch (thrown) {
      throw cacheDirError(dir, `cannot be written (${errnoOf(thrown)})`, thrown);
    }
    this.#owners.set(id, caller);
    try {
      await this.#maintain(dir, id);
    } catch (thrown) {
      this.#options.logger?.debug("snapshot cache maintenance failed", { error: errnoOf(thrown) });
    }
    return id;
  }

  async get(caller: string, id: string): Promise<StoredResult> {
    const { dir, key } = this.#open();
    if (!ID_PATTERN.test(id)) throw cursorNotFound();
    const path = join(dir, `${id}.snapshot`);
    let handle: FileHandle;
    try {
      handle = await open(path, READ_FLAGS);
    } catch (thrown) {
      if (errnoOf(thrown) === "ENOENT") return this.#gone(dir, caller, id);
      await this.#discard(dir, id);
      throw storedResultDamaged(`cannot be opened (${errnoOf(thrown)})`);
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile() || !ownedByMe(stat)) {
        await this.#discard(dir, id);
        throw storedResultDamaged("is not a private regular file");
      }
      const bytes = await handle.readFile();
      const record = verifySnapshot(key, id, bytes);
      if (record === undefined || record === "other runtime") {
        await this.#discard(dir, id);
        throw storedResultDamaged(
          record === undefined
            ? "failed its integrity check"
            : "was written by evident under another JavaScript runtime (Node.js or Bun)",
        );
      }
      if (record.caller !== caller) throw cursorNotFound();
      const now = this.#now();
      if (now - stat.mtimeMs <= this.#ttlMs) {
        let data: unknown;
        try {
          data = deserialize(record.payload);
        } catch {
          data = undefined;
        }
        if (!isStoredResult(data)) {
          await this.#discard(dir, id);
          throw storedResultDamaged("could not be decoded");
        }
        // Use keeps it alive; where times cannot be set it lives from its last write instead.
        await handle.utimes(now / 1000, now / 1000).catch(() => undefined);
        this.#owners.set(id, caller);
        return data;
      }
    } finally {
      await handle.close();
    }
    // Past its time to live: leave a tombstone, then report it like the memory store does.
    await this.#expire(dir, id, caller, "timed out");
    throw cursorExpired("timed out");
  }

  async release(caller: string, id: string): Promise<void> {
    if (this.#closed || !ID_PATTERN.test(id)) return;
    const { dir } = this.#init();
    if ((await this.#ownerOf(dir, id)) === caller) await this.#expire(dir, id, caller, "released");
  }

  async rememberSelection(
    caller: string,
    id: string,
    signature: string,
    keys: readonly string[],
  ): Promise<void> {
    if (this.#closed || !ID_PATTERN.test(id) || !SIGNATURE_PATTERN.test(signature)) return;
    const { dir, key } = this.#init();
    if ((await this.#ownerOf(dir, id)) !== caller) return;
    const record = { caller, keys: [...keys], mac: selectionMac(key, id, signature, caller, keys) };
    try {
      await this.#writeAtomic(dir, `${id}.${signature}.selection`, [Buffer.from(JSON.stringify(record))]);
    } catch (thrown) {
      throw cacheDirError(dir, `cannot be written (${errnoOf(thrown)})`, thrown);
    }
  }

  async selection(caller: string, id: string, signature: string): Promise<readonly string[] | undefined> {
    if (this.#closed || !ID_PATTERN.test(id) || !SIGNATURE_PATTERN.test(signature)) return undefined;
    const { dir, key } = this.#init();
    if ((await this.#ownerOf(dir, id)) !== caller) return undefined;
    const text = await readSmallPrivateFile(join(dir, `${id}.${signature}.selection`));
    if (text === undefined) return undefined;
    try {
      const record = JSON.parse(text) as { caller?: unknown; keys?: unknown; mac?: unknown };
      const { keys, mac } = record;
      if (
        record.caller !== caller ||
        !Array.isArray(keys) ||
        !keys.every((k) => typeof k === "string") ||
        typeof mac !== "string"
      ) {
        return undefined;
      }
      const expected = selectionMac(key, id, signature, caller, keys);
      const given = Buffer.from(mac, "hex");
      return given.length === expected.length / 2 && timingSafeEqual(given, Buffer.from(expected, "hex"))
        ? keys
        : undefined;
    } catch {
      return undefined;
    }
  }

  encodeCursor(state: CursorState): string {
    return this.#init().codec.encode(state);
  }

  decodeCursor(token: string): CursorState {
    return this.#init().codec.decode(token);
  }

  seal(purpose: string, caller: string, payload: Buffer): string {
    return this.#init().codec.seal(purpose, caller, payload);
  }

  open(purpose: string, caller: string, token: string): Buffer | undefined {
    return this.#init().codec.open(purpose, caller, token);
  }

  /** Ends this instance's use of the directory; the files stay for the next process. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#owners.clear();
  }

  // ------------------------------------------------------------------------------------------

  #open(): { dir: string; key: Buffer } {
    if (this.#closed) throw new EvidentError("cancelled", "code_search is shutting down.");
    return this.#init();
  }

  /** Resolves and checks the directory and loads (or creates) the key, once. */
  #init(): { readonly dir: string; readonly key: Buffer; readonly codec: CursorCodec } {
    if (this.#ready !== undefined) return this.#ready;
    if (this.#failure !== undefined) throw this.#failure;
    const dir = this.#options.dir;
    try {
      preparePrivateDir(dir);
      const key = loadOrCreateKey(dir, CURSOR_KEY_BYTES);
      const codec = new CursorCodec(key, "a different or since-cleared cursor cache directory");
      this.#ready = { dir, key, codec };
      return this.#ready;
    } catch (thrown) {
      this.#failure =
        thrown instanceof EvidentError
          ? thrown
          : cacheDirError(dir, `cannot be used (${errnoOf(thrown)})`, thrown);
      throw this.#failure;
    }
  }

  /** The snapshot file is gone: a tombstone of this caller says why, otherwise it never was. */
  async #gone(dir: string, caller: string, id: string): Promise<never> {
    const text = await readSmallPrivateFile(join(dir, `${id}.expired`));
    if (text !== undefined) {
      try {
        const tombstone = JSON.parse(text) as { caller?: unknown; reason?: unknown };
        if (tombstone.caller === caller && isReason(tombstone.reason)) throw cursorExpired(tombstone.reason);
      } catch (thrown) {
        if (thrown instanceof EvidentError) throw thrown;
      }
    }
    throw cursorNotFound();
  }

  async #ownerOf(dir: string, id: string): Promise<string | undefined> {
    const known = this.#owners.get(id);
    if (known !== undefined) return known;
    const header = await readHeader(join(dir, `${id}.snapshot`));
    return header?.caller;
  }

  /** Tombstone first, then the files: a concurrent reader finds one or the other. */
  async #expire(dir: string, id: string, caller: string, reason: Reason): Promise<void> {
    this.#owners.delete(id);
    try {
      await this.#writeAtomic(dir, `${id}.expired`, [Buffer.from(JSON.stringify({ caller, reason }))]);
    } catch (thrown) {
      this.#options.logger?.debug("snapshot tombstone not written", { error: errnoOf(thrown) });
    }
    await this.#discard(dir, id);
  }

  /** Removes a snapshot's files (no tombstone): used for damaged files too. */
  async #discard(dir: string, id: string): Promise<void> {
    this.#owners.delete(id);
    await unlink(join(dir, `${id}.snapshot`)).catch(() => undefined);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith(`${id}.`) && name.endsWith(".selection")) {
        await unlink(join(dir, name)).catch(() => undefined);
      }
    }
  }

  /**
   * Opportunistic upkeep after a put: expire timed-out snapshots, evict the least recently used
   * beyond the count and byte bounds (never the one just written), drop orphaned selections,
   * the oldest tombstones beyond their bound, and temp files left by a crashed writer.
   */
  async #maintain(dir: string, newest: string): Promise<void> {
    const names = await readdir(dir);
    const now = this.#now();
    const live: Array<{ id: string; used: number; size: number }> = [];
    const tombstones: string[] = [];
    const selections: Array<{ id: string; name: string }> = [];
    for (const name of names) {
      const snapshot = SNAPSHOT_NAME.exec(name);
      if (snapshot !== null) {
        const id = snapshot[1] as string;
        const stat = await lstat(join(dir, name)).catch(() => undefined);
        if (stat === undefined) continue;
        if (!stat.isFile()) {
          await this.#discard(dir, id);
        } else if (id !== newest && now - stat.mtimeMs > this.#ttlMs) {
          await this.#expireUnread(dir, id, "timed out");
        } else {
          live.push({ id, used: stat.mtimeMs, size: stat.size });
        }
        continue;
      }
      if (TOMBSTONE_NAME.test(name)) {
        tombstones.push(name);
        continue;
      }
      const selection = SELECTION_NAME.exec(name);
      if (selection !== null) {
        selections.push({ id: selection[1] as string, name });
        continue;
      }
      if (name.startsWith(TEMP_PREFIX)) {
        const stat = await lstat(join(dir, name)).catch(() => undefined);
        if (stat !== undefined && Date.now() - stat.mtimeMs > this.#ttlMs) {
          await unlink(join(dir, name)).catch(() => undefined);
        }
      }
    }
    live.sort((a, b) => a.used - b.used);
    let bytes = live.reduce((sum, entry) => sum + entry.size, 0);
    let count = live.length;
    for (const entry of live) {
      if (count <= this.#maxCount && bytes <= this.#maxBytes) break;
      if (entry.id === newest) continue;
      await this.#expireUnread(dir, entry.id, "evicted");
      count -= 1;
      bytes -= entry.size;
    }
    const alive = new Set(live.map((entry) => entry.id));
    for (const { id, name } of selections) {
      if (!alive.has(id) && !names.includes(`${id}.snapshot`)) {
        await unlink(join(dir, name)).catch(() => undefined);
      }
    }
    if (tombstones.length > this.#maxTombstones) {
      const dated: Array<{ name: string; time: number }> = [];
      for (const name of tombstones) {
        const stat = await lstat(join(dir, name)).catch(() => undefined);
        dated.push({ name, time: stat?.mtimeMs ?? 0 });
      }
      dated.sort((a, b) => a.time - b.time);
      for (const { name } of dated.slice(0, dated.length - this.#maxTombstones)) {
        await unlink(join(dir, name)).catch(() => undefined);
      }
    }
  }

  /** Expires a snapshot this instance has not read: its owner comes from the file's header. */
  async #expireUnread(dir: string, id: string, reason: Reason): Promise<void> {
    const owner = await this.#ownerOf(dir, id);
    if (owner === undefined) await this.#discard(dir, id);
    else await this.#expire(dir, id, owner, reason);
  }

  /** Writes a private file under a temp name, stamps its last use, then renames it into place. */
  async #writeAtomic(dir: string, name: string, chunks: readonly Buffer[]): Promise<void> {
    const temp = join(dir, `${TEMP_PREFIX}${randomBytes(8).toString("hex")}`);
    const handle = await open(temp, CREATE_FLAGS, FILE_MODE);
    try {
      try {
        await handle.writev(chunks as Buffer[]);
        const now = this.#now();
        await handle.utimes(now / 1000, now / 1000);
      } finally {
        await handle.close();
      }
      await rename(temp, join(dir, name));
    } catch (thrown) {
      await unlink(temp).catch(() => undefined);
      throw thrown;
    }
  }
}
