/**
 * The `KeptStore` on disk, for one-shot surfaces (the CLI): what one `evident` process kept, the
 * next one continues. Same semantics as in memory; a file's mtime is its value's last use.
 *
 * Layout of the private directory (0700, owned by the user, never a symlink, not writable by
 * others; every file 0600, written to a temp name and renamed, opened without following links):
 *   cursor.key          the cursor and MAC key, created once (when processes race, the first wins)
 *   <id>.kept           magic and runtime, MAC, owner, the value in `node:v8` serialization
 *   <id>.<name>.part    a part added later: MAC, owner, bytes
 *   <id>.gone           tombstone: owner and why the value went away
 * Every file's MAC is bound to its id and name, so an edited, swapped or damaged file reads as an
 * expired cursor with a clear message, never as other content.
 */
import { randomBytes } from "node:crypto";
import { type FileHandle, link, lstat, open, readdir, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { EvidentError } from "./errors.js";
import {
  KEPT_ID,
  KEPT_ID_BYTES,
  KEPT_KEY_BYTES,
  KEPT_MAC_BYTES,
  KEPT_PART_NAME,
  type KeptOptions,
  type KeptReason,
  type KeptStore,
  KeptValueTooLarge,
  keptEntryMaxBytes,
  keptMac,
  keptMacHolds,
  keptParty,
} from "./kept.js";
import { KEPT_FILE_TOMBSTONES_MAX } from "./limits.js";
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
} from "./private-dir.js";

/** Format, then the runtime whose `node:v8` serialization the value uses (the other's does not decode). */
const FORMAT = Buffer.from("evk1", "latin1");
const MAGIC = Buffer.concat([FORMAT, Buffer.from(process.versions.bun === undefined ? "N" : "B", "latin1")]);
const HEAD_BYTES = MAGIC.length + KEPT_MAC_BYTES + 2;
const OWNER_MAX_BYTES = 0xffff;
const VALUE_NAME = /^([0-9a-f]{32})\.kept$/;
const GONE_NAME = /^[0-9a-f]{32}\.gone$/;
const PART_NAME = /^([0-9a-f]{32})\.[0-9a-z]{1,64}\.part$/;
const OTHER_RUNTIME = "was written by evident under another JavaScript runtime (Node.js or Bun)";

export interface FileKeptStoreOptions<T> extends KeptOptions {
  readonly dir: string;
  /** Which tool keeps the values ("code_search"), for the message after close. */
  readonly tool: string;
  /** A shape check of a decoded value: one from another format version reads as damaged. */
  readonly accepts?: (value: unknown) => value is T;
}

type Ready = { readonly dir: string; readonly key: Buffer };
type Read = { owner: string; value: unknown } | { damaged: string };

export class FileKeptStore<T> implements KeptStore<T> {
  readonly foreign = "a different or since-cleared cursor cache directory";
  readonly entryMaxBytes: number;
  readonly #options: FileKeptStoreOptions<T>;
  readonly #now: () => number;
  /** Owners of values this instance wrote or verified, to skip re-reading headers. */
  readonly #owners = new Map<string, string>();
  #ready: Ready | undefined;
  #failure: EvidentError | undefined;
  #closed = false;

  constructor(options: FileKeptStoreOptions<T>) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.entryMaxBytes = keptEntryMaxBytes(options.maxBytes);
  }

  /** The directory's key: cursors made by one process verify in the next. */
  key(): Buffer {
    return this.#init().key;
  }

  /** Counts the file it writes (what eviction counts), not the caller's estimate. */
  async put(owner: string, value: T, _bytes: number): Promise<string> {
    const { dir, key } = this.#open();
    const id = randomBytes(KEPT_ID_BYTES).toString("hex");
    const head = Buffer.alloc(HEAD_BYTES);
    MAGIC.copy(head);
    const ownerBytes = ownerField(owner);
    const payload = serialize(value);
    const size = HEAD_BYTES + ownerBytes.length + payload.length;
    if (size > this.entryMaxBytes) throw new KeptValueTooLarge(size, this.entryMaxBytes);
    keptMac(key, id, "value", [MAGIC, ownerBytes, payload]).copy(head, MAGIC.length);
    head.writeUInt16BE(ownerBytes.length - 2, HEAD_BYTES - 2);
    await this.#writeOrFail(dir, `${id}.kept`, [head, ownerBytes.subarray(2), payload]);
    this.#owners.set(id, owner);
    await this.#maintain(dir, id, owner).catch(() => undefined);
    return id;
  }

  async get(owner: string, id: string): Promise<T> {
    const { dir, key } = this.#open();
    const { errors } = this.#options;
    if (!KEPT_ID.test(id)) throw errors.notFound();
    let handle: FileHandle;
    try {
      handle = await open(join(dir, `${id}.kept`), READ_FLAGS);
    } catch (thrown) {
      if (errnoOf(thrown) === "ENOENT") throw await this.#gone(dir, owner, id);
      throw await this.#damaged(dir, id, `cannot be opened (${errnoOf(thrown)})`);
    }
    let read: Read;
    let used: number;
    try {
      const info = await handle.stat();
      if (!info.isFile() || !ownedByMe(info)) read = { damaged: "is not a private regular file" };
      else read = verifyValue(key, id, await handle.readFile());
      used = info.mtimeMs;
      const now = this.#now();
      if ("owner" in read && read.owner === owner && now - used <= this.#options.ttlMs) {
        // Use keeps it alive; where times cannot be set it lives from its last write instead.
        await handle.utimes(now / 1000, now / 1000).catch(() => undefined);
      }
    } finally {
      await handle.close();
    }
    if ("damaged" in read) throw await this.#damaged(dir, id, read.damaged);
    if (read.owner !== owner) throw errors.notFound();
    if (this.#now() - used > this.#options.ttlMs) {
      await this.#expire(dir, id, owner, "timed out");
      throw errors.expired("timed out");
    }
    const accepts = this.#options.accepts;
    if (accepts !== undefined && !accepts(read.value))
      throw await this.#damaged(dir, id, "could not be decoded");
    this.#owners.set(id, owner);
    return read.value as T;
  }

  async release(owner: string, id: string): Promise<void> {
    if (this.#closed || !KEPT_ID.test(id)) return;
    const { dir } = this.#init();
    if ((await this.#ownerOf(dir, id)) === owner) await this.#expire(dir, id, owner, "released");
  }

  async addPart(owner: string, id: string, name: string, value: Buffer): Promise<void> {
    if (this.#closed || !KEPT_ID.test(id) || !KEPT_PART_NAME.test(name)) return;
    const { dir, key } = this.#init();
    if ((await this.#ownerOf(dir, id)) !== owner) return;
    const ownerBytes = ownerField(owner);
    const mac = keptMac(key, id, name, [ownerBytes, value]).subarray(0, KEPT_MAC_BYTES);
    await this.#writeOrFail(dir, `${id}.${name}.part`, [mac, ownerBytes, value], { once: true });
  }

  async part(owner: string, id: string, name: string): Promise<Buffer | undefined> {
    if (this.#closed || !KEPT_ID.test(id) || !KEPT_PART_NAME.test(name)) return undefined;
    const { dir, key } = this.#init();
    if ((await this.#ownerOf(dir, id)) !== owner) return undefined;
    const bytes = await readPrivate(join(dir, `${id}.${name}.part`));
    if (bytes === undefined || bytes.length < KEPT_MAC_BYTES + 2) return undefined;
    const ownerLength = bytes.readUInt16BE(KEPT_MAC_BYTES) + 2;
    const rest = bytes.subarray(KEPT_MAC_BYTES);
    const expected = keptMac(key, id, name, [rest]);
    if (!keptMacHolds(bytes.subarray(0, KEPT_MAC_BYTES), expected)) return undefined;
    if (rest.toString("utf8", 2, ownerLength) !== owner) return undefined;
    return rest.subarray(ownerLength);
  }

  /** Ends this instance's use of the directory; the files stay for the next process. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#owners.clear();
  }

  #open(): Ready {
    if (this.#closed) throw new EvidentError("cancelled", `${this.#options.tool} is shutting down.`);
    return this.#init();
  }

  /** Checks the directory and loads (or creates) its key, once; a refusal is remembered. */
  #init(): Ready {
    if (this.#ready !== undefined) return this.#ready;
    if (this.#failure !== undefined) throw this.#failure;
    const { dir } = this.#options;
    try {
      preparePrivateDir(dir);
      this.#ready = { dir, key: loadOrCreateKey(dir, KEPT_KEY_BYTES) };
      return this.#ready;
    } catch (thrown) {
      this.#failure =
        thrown instanceof EvidentError
          ? thrown
          : cacheDirError(dir, `cannot be used (${errnoOf(thrown)})`, thrown);
      throw this.#failure;
    }
  }

  /** The value file is gone: a tombstone of this owner says why, otherwise it never was. */
  async #gone(dir: string, owner: string, id: string): Promise<EvidentError> {
    const text = await readSmallPrivateFile(join(dir, `${id}.gone`));
    try {
      const tombstone = JSON.parse(text ?? "") as { owner?: unknown; reason?: unknown };
      if (tombstone.owner === owner && typeof tombstone.reason === "string")
        return this.#options.errors.expired(tombstone.reason);
    } catch {
      // No tombstone, or not one of ours: never kept for this owner.
    }
    return this.#options.errors.notFound();
  }

  async #damaged(dir: string, id: string, what: string): Promise<EvidentError> {
    await this.#discard(dir, id);
    return this.#options.errors.damaged(what);
  }

  async #ownerOf(dir: string, id: string): Promise<string | undefined> {
    return this.#owners.get(id) ?? (await readOwner(join(dir, `${id}.kept`)));
  }

  /** Tombstone first, then the files: a concurrent reader finds one or the other. */
  async #expire(dir: string, id: string, owner: string, reason: KeptReason): Promise<void> {
    await this.#write(dir, `${id}.gone`, [Buffer.from(JSON.stringify({ owner, reason }))]).catch(
      () => undefined,
    );
    await this.#discard(dir, id);
  }

  /** Removes a value's files (no tombstone): used for damaged files too. */
  async #discard(dir: string, id: string): Promise<void> {
    this.#owners.delete(id);
    await unlink(join(dir, `${id}.kept`)).catch(() => undefined);
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names)
      if (name.startsWith(`${id}.`) && name.endsWith(".part"))
        await unlink(join(dir, name)).catch(() => undefined);
  }

  /**
   * Upkeep after a put: expire timed-out values, evict the least recently used beyond the byte
   * bound (the owner's own first, never the one just written), drop orphaned parts, the oldest
   * tombstones beyond their bound, and temp files left by a crashed writer.
   */
  async #maintain(dir: string, newest: string, owner: string): Promise<void> {
    const scan = await this.#scan(dir, newest);
    let bytes = [...scan.live.values()].reduce((sum, entry) => sum + entry.size, 0);
    const live = [...scan.live].sort(([, a], [, b]) => a.used - b.used);
    for (const own of [true, false]) {
      for (const [id, entry] of live) {
        if (bytes <= this.#options.maxBytes) break;
        if (id === newest || !scan.live.has(id)) continue;
        const holder = await this.#ownerOf(dir, id);
        if (own && (holder === undefined || keptParty(holder) !== keptParty(owner))) continue;
        if (holder === undefined) await this.#discard(dir, id);
        else await this.#expire(dir, id, holder, "evicted");
        scan.live.delete(id);
        bytes -= entry.size;
      }
    }
    const max = this.#options.maxTombstones ?? KEPT_FILE_TOMBSTONES_MAX;
    scan.gone.sort((a, b) => a.time - b.time);
    for (const { name } of scan.gone.slice(0, Math.max(0, scan.gone.length - max)))
      await unlink(join(dir, name)).catch(() => undefined);
  }

  /** The directory's live values (size with their parts, last use) and tombstones, swept on the way. */
  async #scan(dir: string, newest: string) {
    const now = this.#now();
    const live = new Map<string, { size: number; used: number }>();
    const gone: Array<{ name: string; time: number }> = [];
    const parts: Array<{ id: string; size: number; name: string }> = [];
    for (const name of await readdir(dir)) {
      const info = await lstat(join(dir, name)).catch(() => undefined);
      if (info === undefined) continue;
      const value = VALUE_NAME.exec(name);
      const part = PART_NAME.exec(name);
      if (value !== null) {
        const id = value[1] as string;
        if (!info.isFile()) await this.#discard(dir, id);
        else if (id !== newest && now - info.mtimeMs > this.#options.ttlMs) {
          const holder = await this.#ownerOf(dir, id);
          if (holder === undefined) await this.#discard(dir, id);
          else await this.#expire(dir, id, holder, "timed out");
        } else live.set(id, { size: info.size, used: info.mtimeMs });
      } else if (part !== null) parts.push({ id: part[1] as string, size: info.size, name });
      else if (GONE_NAME.test(name)) gone.push({ name, time: info.mtimeMs });
      else if (name.startsWith(TEMP_PREFIX) && now - info.mtimeMs > this.#options.ttlMs)
        await unlink(join(dir, name)).catch(() => undefined);
    }
    for (const { id, size, name } of parts) {
      const entry = live.get(id);
      if (entry !== undefined) entry.size += size;
      else await unlink(join(dir, name)).catch(() => undefined);
    }
    return { live, gone };
  }

  async #writeOrFail(
    dir: string,
    name: string,
    chunks: readonly Buffer[],
    how = { once: false },
  ): Promise<void> {
    try {
      await this.#write(dir, name, chunks, how);
    } catch (thrown) {
      throw cacheDirError(dir, `cannot be written (${errnoOf(thrown)})`, thrown);
    }
  }

  /**
   * Writes a private file under a temp name, stamps its last use, then renames it into place
   * (`once`: links it, so a file already there stays).
   */
  async #write(dir: string, name: string, chunks: readonly Buffer[], how = { once: false }): Promise<void> {
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
      if (!how.once) await rename(temp, join(dir, name));
      else {
        await link(temp, join(dir, name)).catch((thrown: unknown) => {
          if (errnoOf(thrown) !== "EEXIST") throw thrown;
        });
        await unlink(temp);
      }
    } catch (thrown) {
      await unlink(temp).catch(() => undefined);
      throw thrown;
    }
  }
}

/** An owner as written: its length (two bytes), then its UTF-8. */
function ownerField(owner: string): Buffer {
  const bytes = Buffer.from(owner, "utf8");
  if (bytes.length > OWNER_MAX_BYTES) throw new EvidentError("internal_error", "Caller key too long.");
  const field = Buffer.alloc(2 + bytes.length);
  field.writeUInt16BE(bytes.length);
  bytes.copy(field, 2);
  return field;
}

/** A value file checked against its MAC and decoded, or why it cannot be used. */
function verifyValue(key: Buffer, id: string, bytes: Buffer): Read {
  const damaged = { damaged: "failed its integrity check" };
  if (bytes.length < HEAD_BYTES || !bytes.subarray(0, FORMAT.length).equals(FORMAT)) return damaged;
  if (!bytes.subarray(0, MAGIC.length).equals(MAGIC)) return { damaged: OTHER_RUNTIME };
  const ownerEnd = HEAD_BYTES + bytes.readUInt16BE(HEAD_BYTES - 2);
  if (bytes.length < ownerEnd) return damaged;
  const body = bytes.subarray(HEAD_BYTES - 2);
  const expected = keptMac(key, id, "value", [MAGIC, body]);
  if (!keptMacHolds(bytes.subarray(MAGIC.length, MAGIC.length + KEPT_MAC_BYTES), expected)) return damaged;
  try {
    return {
      owner: bytes.toString("utf8", HEAD_BYTES, ownerEnd),
      value: deserialize(bytes.subarray(ownerEnd)),
    };
  } catch {
    return { damaged: "could not be decoded" };
  }
}

/** The owner named in a value file's header (unverified: used only to refuse, expire or order eviction). */
async function readOwner(path: string): Promise<string | undefined> {
  const handle = await open(path, READ_FLAGS).catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(head, 0, HEAD_BYTES, 0);
    if (bytesRead < HEAD_BYTES || !head.subarray(0, FORMAT.length).equals(FORMAT)) return undefined;
    const owner = Buffer.alloc(head.readUInt16BE(HEAD_BYTES - 2));
    const got = await handle.read(owner, 0, owner.length, HEAD_BYTES);
    return got.bytesRead === owner.length ? owner.toString("utf8") : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/** A private regular file's bytes (a part), or undefined. */
async function readPrivate(path: string): Promise<Buffer | undefined> {
  const handle = await open(path, READ_FLAGS).catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const info = await handle.stat();
    return info.isFile() && ownedByMe(info) ? await handle.readFile() : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
