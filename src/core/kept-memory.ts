/**
 * The `KeptStore` in this process's memory: values held as they are (never serialized), bounded
 * by the bytes their owners estimate plus their parts. Room for a new value is made from its
 * caller's own values first (least recently used first, `keptParty`), then from everyone's:
 * however many values one caller keeps, it evicts at most about one share of others' values.
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

interface Entry<T> {
  readonly owner: string;
  readonly value: T;
  readonly parts: Map<string, Buffer>;
  bytes: number;
  used: number;
}

export class MemoryKeptStore<T> implements KeptStore<T> {
  readonly foreign = "an earlier server process";
  readonly entryMaxBytes: number;
  readonly #entries = new Map<string, Entry<T>>();
  readonly #gone = new Map<string, { owner: string; reason: KeptReason }>();
  readonly #options: KeptOptions;
  readonly #now: () => number;
  readonly #key = randomBytes(KEPT_KEY_BYTES);
  #bytes = 0;

  constructor(options: KeptOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.entryMaxBytes = keptEntryMaxBytes(options.maxBytes);
  }

  key(): Buffer {
    return this.#key;
  }

  /** Values held now, and their bytes (for tests and diagnostics). */
  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  async put(owner: string, value: T, bytes: number): Promise<string> {
    if (bytes > this.entryMaxBytes) throw new KeptValueTooLarge(bytes, this.entryMaxBytes);
    const now = this.#now();
    for (const [id, entry] of this.#entries)
      if (now - entry.used > this.#options.ttlMs) this.#drop(id, "timed out");
    const id = randomBytes(KEPT_ID_BYTES).toString("hex");
    this.#entries.set(id, { owner, value, parts: new Map(), bytes, used: now });
    this.#bytes += bytes;
    this.#makeRoom(id, owner);
    return id;
  }

  async get(owner: string, id: string): Promise<T> {
    const entry = this.#entries.get(id);
    if (entry !== undefined && entry.owner === owner) {
      if (this.#now() - entry.used <= this.#options.ttlMs) {
        entry.used = this.#now();
        this.#entries.delete(id);
        this.#entries.set(id, entry);
        return entry.value;
      }
      this.#drop(id, "timed out");
    }
    const gone = this.#gone.get(id);
    // Another owner learns nothing, not even that the id existed.
    if (gone !== undefined && gone.owner === owner) throw this.#options.errors.expired(gone.reason);
    throw this.#options.errors.notFound();
  }

  async release(owner: string, id: string): Promise<void> {
    if (this.#entries.get(id)?.owner === owner) this.#drop(id, "released");
  }

  /** Releases every value whose owner starts with `prefix` (a retired project root's). */
  releaseOwners(prefix: string): void {
    for (const [id, entry] of this.#entries) if (entry.owner.startsWith(prefix)) this.#drop(id, "released");
  }

  async addPart(owner: string, id: string, name: string, value: Buffer): Promise<void> {
    const entry = this.#entries.get(id);
    if (entry === undefined || entry.owner !== owner || entry.parts.has(name)) return;
    entry.parts.set(name, value);
    entry.bytes += name.length + value.length;
    this.#bytes += name.length + value.length;
    this.#makeRoom(id, owner);
  }

  async part(owner: string, id: string, name: string): Promise<Buffer | undefined> {
    const entry = this.#entries.get(id);
    return entry !== undefined && entry.owner === owner ? entry.parts.get(name) : undefined;
  }

  async close(): Promise<void> {
    this.#entries.clear();
    this.#gone.clear();
    this.#bytes = 0;
  }

  /** Evicts beyond the byte bound, the owner's own first; never `keep`, which is within its share. */
  #makeRoom(keep: string, owner: string): void {
    const party = keptParty(owner);
    // Map order is insertion order and `get` re-inserts: the first entry is the least recent.
    for (const own of [true, false]) {
      for (const [oldest, entry] of this.#entries) {
        if (this.#bytes <= this.#options.maxBytes) return;
        if (oldest !== keep && (!own || keptParty(entry.owner) === party)) this.#drop(oldest, "evicted");
      }
    }
  }

  #drop(id: string, reason: KeptReason): void {
    const entry = this.#entries.get(id);
    if (entry === undefined) return;
    this.#entries.delete(id);
    this.#bytes -= entry.bytes;
    this.#gone.set(id, { owner: entry.owner, reason });
    const max = this.#options.maxTombstones ?? KEPT_TOMBSTONES_MAX;
    for (const [oldest] of this.#gone) {
      if (this.#gone.size <= max) break;
      this.#gone.delete(oldest);
    }
  }
}
