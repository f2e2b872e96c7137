/**
 * The `KeptStore` in the shared store (Redis, `EVIDENT_SNAPSHOT_STORE`), for servers run as
 * replicas: what one replica kept is continued by any other. Same semantics as in memory, the
 * byte bound holding across all replicas; owners are stored as keyed digests, never as caller
 * keys. A value is written as named parts (`KeptCodec`): its head, read on every use, and parts a
 * reader asks for later (a snapshot's blocks of matches, so a page reads only what it shows).
 * Every part carries a MAC bound to its id and name, so an edited or swapped part is an expired
 * cursor, never other content. Cursors are signed with a key derived from `EVIDENT_CURSOR_KEY`,
 * so every replica opens every other's. When Redis cannot be reached, calls fail with
 * `store_unavailable`, never falling back to memory.
 */
import { randomBytes } from "node:crypto";
import {
  KEPT_ID,
  KEPT_ID_BYTES,
  KEPT_MAC_BYTES,
  KEPT_PART_NAME,
  type KeptErrors,
  type KeptOptions,
  type KeptStore,
  KeptValueTooLarge,
  keptEntryMaxBytes,
  keptMac,
  keptMacHolds,
} from "../kept.js";
import { ownerOf, SharedEntries, type SharedEntriesOptions } from "./entries.js";
import { KEY_VARIABLE } from "./settings.js";

const HEAD = "h";
/** Added parts are named apart from the codec's. */
const partField = (name: string) => `p${name}`;

/** How a value is written as parts: the first is its head ("h"); `decode` reads the others on demand. */
export interface KeptCodec<T> {
  encode(value: T): Promise<Array<[string, Buffer]>>;
  /** The value from its head, or undefined for a value of another format. */
  decode(head: Buffer, read: (names: string[]) => Promise<Buffer[]>, errors: KeptErrors): T | undefined;
}

/** One part, JSON: the default for small values (web_read's pages). */
export const jsonCodec: KeptCodec<unknown> = {
  encode: async (value) => [[HEAD, Buffer.from(JSON.stringify(value))]],
  decode: (head) => {
    try {
      return JSON.parse(head.toString("utf8")) as unknown;
    } catch {
      return undefined;
    }
  },
};

export interface RedisKeptStoreOptions<T> extends KeptOptions, SharedEntriesOptions {
  /** Signs the cursors; signs stored parts and digests owners. */
  readonly keys: { readonly cursor: Buffer; readonly data: Buffer };
  readonly codec?: KeptCodec<T>;
}

export class RedisKeptStore<T> implements KeptStore<T> {
  readonly foreign = `a server with another ${KEY_VARIABLE}`;
  readonly entryMaxBytes: number;
  readonly #options: RedisKeptStoreOptions<T>;
  readonly #entries: SharedEntries;
  readonly #codec: KeptCodec<T>;

  constructor(options: RedisKeptStoreOptions<T>) {
    this.#options = options;
    this.#codec = options.codec ?? (jsonCodec as KeptCodec<T>);
    this.entryMaxBytes = keptEntryMaxBytes(options.maxBytes);
    this.#entries = new SharedEntries(options);
  }

  /** Connects (if not yet) and checks that Redis answers: startup uses it to fail early. */
  async check(): Promise<void> {
    await this.#entries.check();
  }

  /** Counts what Redis stores (parts and their MACs), not the caller's estimate. */
  async put(owner: string, value: T, _bytes: number): Promise<string> {
    const id = randomBytes(KEPT_ID_BYTES).toString("hex");
    const fields = new Map<string, Buffer>();
    let size = 0;
    for (const [name, payload] of await this.#codec.encode(value)) {
      const sealed = Buffer.concat([keptMac(this.#options.keys.data, id, name, [payload]), payload]);
      fields.set(name, sealed);
      size += name.length + sealed.length;
    }
    // Refused here, before Redis sees it: every replica runs this check, so none can evict all.
    if (size > this.entryMaxBytes) throw new KeptValueTooLarge(size, this.entryMaxBytes);
    await this.#entries.admit(id, this.#owner(owner), size, fields);
    return id;
  }

  async get(owner: string, id: string): Promise<T> {
    const { errors } = this.#options;
    if (!KEPT_ID.test(id)) throw errors.notFound();
    const touched = await this.#entries.touch(id, this.#owner(owner));
    if (touched.status === "missing") throw errors.notFound();
    if (touched.status === "expired") throw errors.expired(touched.reason);
    const head = this.#unseal(id, HEAD, touched.header);
    const value =
      head === undefined ? undefined : this.#codec.decode(head, (names) => this.#read(id, names), errors);
    if (value !== undefined) return value;
    await this.#entries.release(id, this.#owner(owner)).catch(() => undefined);
    this.#options.logger?.warn(
      `shared store: a value kept for ${this.#options.tool} failed its integrity check`,
    );
    throw errors.damaged("failed its integrity check");
  }

  async release(owner: string, id: string): Promise<void> {
    if (this.#entries.closed || !KEPT_ID.test(id)) return;
    await this.#entries.release(id, this.#owner(owner));
  }

  async addPart(owner: string, id: string, name: string, value: Buffer): Promise<void> {
    if (this.#entries.closed || !KEPT_ID.test(id) || !KEPT_PART_NAME.test(name)) return;
    const field = partField(name);
    const sealed = Buffer.concat([keptMac(this.#options.keys.data, id, field, [value]), value]);
    await this.#entries.addField(id, this.#owner(owner), field, sealed);
  }

  async part(owner: string, id: string, name: string): Promise<Buffer | undefined> {
    if (this.#entries.closed || !KEPT_ID.test(id) || !KEPT_PART_NAME.test(name)) return undefined;
    const field = partField(name);
    const value = await this.#entries.field(id, this.#owner(owner), field);
    return value === undefined ? undefined : this.#unseal(id, field, value);
  }

  /** Derived from the shared secret: every replica signs and opens the same cursors. */
  key(): Buffer {
    return this.#options.keys.cursor;
  }

  /** Ends this instance's connection; the values stay for the other replicas. */
  async close(): Promise<void> {
    await this.#entries.close();
  }

  /** Parts of a value already touched (a page's blocks), checked; a missing one was evicted meanwhile. */
  async #read(id: string, names: string[]): Promise<Buffer[]> {
    const { errors } = this.#options;
    const values = await this.#entries.readFields(id, names);
    return names.map((name, i) => {
      const value = values[i];
      if (value === null || value === undefined) throw errors.expired("evicted while the page was read");
      const payload = this.#unseal(id, name, value);
      if (payload === undefined) throw errors.damaged("failed its integrity check");
      return payload;
    });
  }

  #unseal(id: string, name: string, value: Buffer): Buffer | undefined {
    if (value.length < KEPT_MAC_BYTES) return undefined;
    const payload = value.subarray(KEPT_MAC_BYTES);
    const expected = keptMac(this.#options.keys.data, id, name, [payload]);
    return keptMacHolds(value.subarray(0, KEPT_MAC_BYTES), expected) ? payload : undefined;
  }

  #owner(owner: string): string {
    return ownerOf(this.#options.keys.data, owner);
  }
}
