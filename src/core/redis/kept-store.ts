/**
 * A `KeptStore` in the shared store (Redis, `EVIDENT_SNAPSHOT_STORE`), for servers run as
 * replicas: what one replica kept (web_read's long page) is continued by any other. Same
 * semantics as `MemoryKeptStore`: bound to the caller (stored as a keyed digest), a time to live
 * after the last use, count and byte bounds across all replicas with the least recently used
 * evicted first (the caller's own first) and no value over its share, ids let go of reading
 * as `cursor_expired` and ids never given to this caller as `cursor_not_found`. The bookkeeping is the snapshots' own (entries.ts), in a scope of its
 * own. Cursors are signed with a key derived from `EVIDENT_CURSOR_KEY`, so every replica opens
 * every other's; each value carries a MAC bound to its id, so an edited or swapped value is an
 * expired cursor, never other content. When Redis cannot be reached, calls fail with
 * `store_unavailable`, never falling back to memory.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import {
  KEPT_ID_BYTES,
  type KeptStore,
  type KeptStoreBounds,
  KeptValueTooLarge,
  keptEntryMaxBytes,
  keptExpired,
  keptNotFound,
  keptValueMac,
} from "../kept.js";
import type { Logger } from "../logger.js";
import { ownerOf, SharedEntries } from "./entries.js";
import { KEY_VARIABLE, type RedisStoreSettings } from "./settings.js";

export interface RedisKeptStoreOptions extends KeptStoreBounds {
  readonly settings: RedisStoreSettings;
  /** Key prefix of these values in the deployment's namespace ("pages:"). */
  readonly scope: string;
  /** Which tool keeps the values, for messages ("web_read"). */
  readonly tool: string;
  /** What fails while Redis is away ("web_read cannot keep or continue long pages"). */
  readonly consequence: string;
  /** How long one exchange with Redis may take (SHARED_STORE_COMMAND_TIMEOUT_MS). */
  readonly timeoutMs?: number;
  readonly logger?: Logger;
}

const ID = /^[0-9a-f]{32}$/;
const VALUE_FIELD = "h";
const MAC_BYTES = 32;

export class RedisKeptStore<T> implements KeptStore<T> {
  readonly foreign = `a server with another ${KEY_VARIABLE}`;
  readonly #options: RedisKeptStoreOptions;
  readonly #entries: SharedEntries;
  readonly entryMaxBytes: number;

  constructor(options: RedisKeptStoreOptions) {
    this.#options = options;
    this.entryMaxBytes = keptEntryMaxBytes(options.maxBytes);
    this.#entries = new SharedEntries({
      settings: options.settings,
      scope: options.scope,
      ttlMs: options.ttlMs,
      maxCount: options.maxCount,
      maxBytes: options.maxBytes,
      // As in memory: about as many gone ids as can be kept at once read as expired.
      maxTombstones: options.maxCount * 4,
      // As in memory: a caller's new value makes room from its own values first.
      ownFirst: true,
      consequence: options.consequence,
      tool: options.tool,
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
  }

  /** Counts what Redis stores (the value and its MAC), not the caller's estimate. */
  async put(caller: string, value: T, _bytes: number): Promise<string> {
    const id = randomBytes(KEPT_ID_BYTES).toString("hex");
    const json = JSON.stringify(value);
    const stored = Buffer.concat([keptValueMac(this.#dataKey(), id, json), Buffer.from(json)]);
    const size = VALUE_FIELD.length + stored.length;
    // Refused here, before Redis sees it: every replica runs this check, so none can evict all.
    if (size > this.entryMaxBytes) throw new KeptValueTooLarge(size, this.entryMaxBytes);
    await this.#entries.admit(id, this.#owner(caller), size, [[VALUE_FIELD, stored]]);
    return id;
  }

  async get(caller: string, id: string): Promise<T> {
    const { redo } = this.#options;
    if (!ID.test(id)) throw keptNotFound(redo);
    const owner = this.#owner(caller);
    const touched = await this.#entries.touch(id, owner);
    if (touched.status === "missing") throw keptNotFound(redo);
    if (touched.status === "expired") throw keptExpired(touched.reason, redo);
    const stored = touched.header;
    const json = stored.subarray(MAC_BYTES).toString("utf8");
    const given = stored.subarray(0, MAC_BYTES);
    const expected = keptValueMac(this.#dataKey(), id, json);
    if (given.length === MAC_BYTES && timingSafeEqual(given, expected)) {
      try {
        return JSON.parse(json) as T;
      } catch {
        // A value that verifies but does not parse was written by something else: discarded below.
      }
    }
    await this.#entries.release(id, owner).catch(() => undefined);
    this.#options.logger?.warn(
      `shared store: a value kept for ${this.#options.tool} failed its integrity check`,
    );
    throw keptExpired("damaged, so it was discarded", redo);
  }

  /** Derived from the shared secret: every replica signs and opens the same cursors. */
  key(): Buffer {
    return this.#options.settings.keys.keptCursor;
  }

  /** Ends this instance's connection; the values stay for the other replicas. */
  async close(): Promise<void> {
    await this.#entries.close();
  }

  #dataKey(): Buffer {
    return this.#options.settings.keys.keptData;
  }

  #owner(caller: string): string {
    return ownerOf(this.#dataKey(), caller);
  }
}
