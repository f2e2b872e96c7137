/**
 * A snapshot store shared by every replica of a server, kept in Redis (EVIDENT_SNAPSHOT_STORE),
 * so a cursor made on one replica is continued on any other. Semantics match the memory store:
 * snapshots are bound to their caller (stored as a keyed digest), live SNAPSHOT_TTL_MS after
 * their last use, are bounded in count and bytes across all replicas (least recently used
 * evicted first), and read as `cursor_expired` once released, timed out or evicted.
 *
 * A page reads the snapshot's header and then only the blocks of matches it shows (format.ts);
 * the connection and the bookkeeping, shared with web_read's kept pages, are core/redis/
 * (entries.ts, atomic scripts). Cursors are signed with a key derived from EVIDENT_CURSOR_KEY,
 * which every replica shares (core/redis/settings.ts). When Redis cannot be reached, calls fail
 * with `store_unavailable`: there is no silent fallback to a per-process store, whose cursors
 * the other replicas could not continue.
 */
import { randomBytes } from "node:crypto";
import {
  SNAPSHOT_MAX_COUNT,
  SNAPSHOT_STORE_MAX_BYTES,
  SNAPSHOT_TOMBSTONES_MAX,
  SNAPSHOT_TTL_MS,
} from "../../../core/limits.js";
import type { Logger } from "../../../core/logger.js";
import { ownerOf, SharedEntries } from "../../../core/redis/entries.js";
import { KEY_VARIABLE, type RedisStoreSettings } from "../../../core/redis/settings.js";
import { CursorCodec, type CursorState, SNAPSHOT_ID_BYTES } from "../cursor-codec.js";
import {
  cursorExpired,
  cursorNotFound,
  type SnapshotStore,
  type StoredResult,
  storedResultDamaged,
} from "../store.js";
import { decodeHeader, encodeSnapshot, seal, selectionField, unseal } from "./format.js";

export interface RedisSnapshotStoreOptions {
  readonly settings: RedisStoreSettings;
  readonly ttlMs?: number;
  readonly maxCount?: number;
  readonly maxBytes?: number;
  readonly maxTombstones?: number;
  /** Injected clock, so expiry is testable without waiting. */
  readonly now?: () => number;
  /** How long one exchange with Redis may take (SHARED_STORE_COMMAND_TIMEOUT_MS). */
  readonly timeoutMs?: number;
  readonly logger?: Logger;
}

const ID_PATTERN = /^[0-9a-f]{32}$/;

export class RedisSnapshotStore implements SnapshotStore {
  readonly #settings: RedisStoreSettings;
  readonly #entries: SharedEntries;
  readonly #logger: Logger | undefined;
  readonly #codec: CursorCodec;

  constructor(options: RedisSnapshotStoreOptions) {
    this.#settings = options.settings;
    this.#logger = options.logger;
    this.#entries = new SharedEntries({
      settings: options.settings,
      scope: "",
      ttlMs: options.ttlMs ?? SNAPSHOT_TTL_MS,
      maxCount: options.maxCount ?? SNAPSHOT_MAX_COUNT,
      maxBytes: options.maxBytes ?? SNAPSHOT_STORE_MAX_BYTES,
      maxTombstones: options.maxTombstones ?? SNAPSHOT_TOMBSTONES_MAX,
      consequence: "code_search cannot keep or continue results",
      tool: "code_search",
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
    this.#codec = new CursorCodec(options.settings.keys.cursor, `a server with another ${KEY_VARIABLE}`);
  }

  /** Connects (if not yet) and checks that Redis answers: startup uses it to fail early. */
  async check(): Promise<void> {
    await this.#entries.check();
  }

  async put(caller: string, data: StoredResult): Promise<string> {
    const id = randomBytes(SNAPSHOT_ID_BYTES).toString("hex");
    const encoded = await encodeSnapshot(this.#settings.keys.data, id, data);
    await this.#entries.admit(id, this.#owner(caller), encoded.bytes, encoded.fields);
    return id;
  }

  async get(caller: string, id: string): Promise<StoredResult> {
    if (!ID_PATTERN.test(id)) throw cursorNotFound();
    const touched = await this.#entries.touch(id, this.#owner(caller));
    if (touched.status === "missing") throw cursorNotFound();
    if (touched.status === "expired") throw cursorExpired(touched.reason);
    const data = decodeHeader(this.#settings.keys.data, id, touched.header, (fields) =>
      this.#entries.readFields(id, fields),
    );
    if (data === undefined) {
      await this.#dropDamaged(caller, id);
      throw storedResultDamaged("failed its integrity check");
    }
    return data;
  }

  async release(caller: string, id: string): Promise<void> {
    if (this.#entries.closed || !ID_PATTERN.test(id)) return;
    await this.#entries.release(id, this.#owner(caller));
  }

  async rememberSelection(
    caller: string,
    id: string,
    signature: string,
    keys: readonly string[],
  ): Promise<void> {
    if (this.#entries.closed || !ID_PATTERN.test(id)) return;
    const field = selectionField(signature);
    const value = seal(this.#settings.keys.data, id, field, Buffer.from(JSON.stringify(keys)));
    await this.#entries.addField(id, this.#owner(caller), field, value);
  }

  async selection(caller: string, id: string, signature: string): Promise<readonly string[] | undefined> {
    if (this.#entries.closed || !ID_PATTERN.test(id)) return undefined;
    const field = selectionField(signature);
    const value = await this.#entries.field(id, this.#owner(caller), field);
    if (value === undefined) return undefined;
    const payload = unseal(this.#settings.keys.data, id, field, value);
    if (payload === undefined) return undefined;
    try {
      const keys: unknown = JSON.parse(payload.toString("utf8"));
      return Array.isArray(keys) && keys.every((k) => typeof k === "string") ? keys : undefined;
    } catch {
      return undefined;
    }
  }

  encodeCursor(state: CursorState): string {
    return this.#codec.encode(state);
  }

  decodeCursor(token: string): CursorState {
    return this.#codec.decode(token);
  }

  seal(purpose: string, caller: string, payload: Buffer): string {
    return this.#codec.seal(purpose, caller, payload);
  }

  open(purpose: string, caller: string, token: string): Buffer | undefined {
    return this.#codec.open(purpose, caller, token);
  }

  /** Ends this instance's connection; the snapshots stay for the other replicas. */
  async close(): Promise<void> {
    await this.#entries.close();
  }

  // ------------------------------------------------------------------------------------------

  #owner(caller: string): string {
    return ownerOf(this.#settings.keys.data, caller);
  }

  /** A snapshot whose stored header fails its check is dropped, and its cursor reads as expired. */
  async #dropDamaged(caller: string, id: string): Promise<void> {
    await this.release(caller, id).catch(() => undefined);
    this.#logger?.warn("shared snapshot store: a stored snapshot failed its integrity check", {});
  }
}
