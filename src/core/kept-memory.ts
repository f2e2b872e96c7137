/**
 * The `KeptStore` in this process's memory: values held as they are (never serialized), bounded
 * by the bytes their owners estimate plus their parts. Room for a new value is made from its
 * caller's own values first (least recently used first, `keptParty`), then from everyone's:
 * however many values one caller keeps, it evicts at most about one share of others' values.
 * Stores given one `KeptPool` (a surface's code_search and web_read) hold one bound together;
 * each sees only its own values.
 */
import { randomBytes } from "node:crypto";
import {
  KEPT_ID_BYTES,
  KEPT_KEY_BYTES,
  type KeptOptions,
  type KeptReason,
  type KeptStore,
  KeptValueTooLarge,
  keptEntryMaxBytes,
  keptParty,
} from "./kept.js";
import { KEPT_TOMBSTONES_MAX } from "./limits.js";

interface Entry {
  /** The store that kept it: a pool's stores never see each other's values. */
  readonly home: symbol;
  readonly owner: string;
  readonly value: unknown;
  readonly parts: Map<string, Buffer>;
  readonly ttlMs: number;
  bytes: number;
  used: number;
}

/** What memory stores hold together: their values, the ids they let go of, and the bytes. */
export class KeptPool {
  readonly entries = new Map<string, Entry>();
  readonly gone = new Map<string, { home: symbol; owner: string; reason: KeptReason }>();
  bytes = 0;
  /** Entries evicted to stay within the byte bound, since the pool was made (`/metrics`). */
  evictions = 0;
}

export class MemoryKeptStore<T> implements KeptStore<T> {
  readonly foreign = "an earlier server process";
  readonly entryMaxBytes: number;
  readonly #home = Symbol("kept store");
  readonly #pool: KeptPool;
  readonly #options: KeptOptions;
  readonly #now: () => number;
  readonly #key = randomBytes(KEPT_KEY_BYTES);

  /** `pool`: shared with other memory stores, whose `maxBytes` should be the same. */
  constructor(options: KeptOptions & { readonly pool?: KeptPool }) {
    this.#options = options;
    this.#pool = options.pool ?? new KeptPool();
    this.#now = options.now ?? Date.now;
    this.entryMaxBytes = keptEntryMaxBytes(options.maxBytes);
  }

  key(): Buffer {
    return this.#key;
  }

  /** Values this store holds now, and the bytes of its pool (for tests and diagnostics). */
  get size(): number {
    return [...this.#pool.entries.values()].filter((entry) => entry.home === this.#home).length;
  }

  get bytes(): number {
    return this.#pool.bytes;
  }

  async put(owner: string, value: T, bytes: number): Promise<string> {
    if (bytes > this.entryMaxBytes) throw new KeptValueTooLarge(bytes, this.entryMaxBytes);
    const now = this.#now();
    for (const [id, entry] of this.#pool.entries)
      if (now - entry.used > entry.ttlMs) this.#drop(id, "timed out");
    const id = randomBytes(KEPT_ID_BYTES).toString("hex");
    const { ttlMs } = this.#options;
    this.#pool.entries.set(id, { home: this.#home, owner, value, parts: new Map(), ttlMs, bytes, used: now });
    this.#pool.bytes += bytes;
    this.#makeRoom(id, owner);
    return id;
  }

  async get(owner: string, id: string): Promise<T> {
    const entry = this.#mine(owner, id);
    if (entry !== undefined) {
      if (this.#now() - entry.used <= entry.ttlMs) {
        entry.used = this.#now();
        this.#pool.entries.delete(id);
        this.#pool.entries.set(id, entry);
        return entry.value as T;
      }
      this.#drop(id, "timed out");
    }
    const gone = this.#pool.gone.get(id);
    // Another owner learns nothing, not even that the id existed.
    if (gone !== undefined && gone.home === this.#home && gone.owner === owner)
      throw this.#options.errors.expired(gone.reason);
    throw this.#options.errors.notFound();
  }

  async release(owner: string, id: string): Promise<void> {
    if (this.#mine(owner, id) !== undefined) this.#drop(id, "released");
  }

  /** Releases every value of this store whose owner starts with `prefix` (a retired project root's). */
  releaseOwners(prefix: string): void {
    for (const [id, entry] of this.#pool.entries)
      if (entry.home === this.#home && entry.owner.startsWith(prefix)) this.#drop(id, "released");
  }

  async addPart(owner: string, id: string, name: string, value: Buffer): Promise<void> {
    const entry = this.#mine(owner, id);
    if (entry === undefined || entry.parts.has(name)) return;
    entry.parts.set(name, value);
    entry.bytes += name.length + value.length;
    this.#pool.bytes += name.length + value.length;
    this.#makeRoom(id, owner);
  }

  async part(owner: string, id: string, name: string): Promise<Buffer | undefined> {
    return this.#mine(owner, id)?.parts.get(name);
  }

  /** Lets go of this store's values and tombstones; a pool's other stores keep theirs. */
  async close(): Promise<void> {
    for (const [id, entry] of this.#pool.entries) {
      if (entry.home !== this.#home) continue;
      this.#pool.entries.delete(id);
      this.#pool.bytes -= entry.bytes;
    }
    for (const [id, gone] of this.#pool.gone) if (gone.home === this.#home) this.#pool.gone.delete(id);
  }

  #mine(owner: string, id: string): Entry | undefined {
    const entry = this.#pool.entries.get(id);
    return entry !== undefined && entry.home === this.#home && entry.owner === owner ? entry : undefined;
  }

  /** Evicts beyond the byte bound, the owner's own first; never `keep`, which is within its share. */
  #makeRoom(keep: string, owner: string): void {
    const party = keptParty(owner);
    // Map order is insertion order and `get` re-inserts: the first entry is the least recent.
    for (const own of [true, false]) {
      for (const [oldest, entry] of this.#pool.entries) {
        if (this.#pool.bytes <= this.#options.maxBytes) return;
        if (oldest !== keep && (!own || keptParty(entry.owner) === party)) this.#drop(oldest, "evicted");
      }
    }
  }

  #drop(id: string, reason: KeptReason): void {
    const { entries, gone } = this.#pool;
    const entry = entries.get(id);
    if (entry === undefined) return;
    entries.delete(id);
    this.#pool.bytes -= entry.bytes;
    if (reason === "evicted") this.#pool.evictions += 1;
    gone.set(id, { home: entry.home, owner: entry.owner, reason });
    const max = this.#options.maxTombstones ?? KEPT_TOMBSTONES_MAX;
    for (const [oldest] of gone) {
      if (gone.size <= max) break;
      gone.delete(oldest);
    }
  }
}
