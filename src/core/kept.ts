/**
 * State a tool keeps between calls for one caller, addressed by cursors: the generic parts.
 *
 * `KeptStore` holds values under random ids, bound to the caller that put them, for a time to
 * live after their last use, within a count and a byte bound (least recently used evicted
 * first); ids it let go of read as `cursor_expired`, ids it never gave this caller as
 * `cursor_not_found`, so another caller learns nothing. `CursorMac` turns (id, offset) into an
 * opaque token with a truncated HMAC under a per-store key, so an edited, truncated or foreign
 * token reads as `cursor_malformed`, never as another position. web_read's page cursors use
 * both; code_search's snapshot stores keep their own richer cursor format. Stores: in memory
 * (here), on disk (file-kept-store.ts, the CLI), in Redis (redis/kept-store.ts, replicas).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { decodeCanonicalToken } from "./canonical-token.js";
import { EvidentError } from "./errors.js";

/** Bytes of a kept value's id (its hex form is twice as long), and of a MAC key. */
export const KEPT_ID_BYTES = 16;
export const KEPT_KEY_BYTES = 32;

export interface KeptStore<T> {
  /** Keeps `value` (about `bytes` bytes) for `caller`; returns its id. */
  put(caller: string, value: T, bytes: number): Promise<string>;
  /** The caller's value, or `cursor_not_found` / `cursor_expired`. */
  get(caller: string, id: string): Promise<T>;
  /** The MAC key for this store's cursors (per process in memory, per directory on disk). */
  key(): Buffer;
  /** Where a cursor refused under this key may come from, for `cursor_malformed` messages. */
  readonly foreign?: string;
  close(): Promise<void>;
}

export interface KeptStoreBounds {
  readonly ttlMs: number;
  readonly maxCount: number;
  readonly maxBytes: number;
  /** What the agent should do to get the state again ("read the page again"). */
  readonly redo: string;
  /** Injected clock, so expiry is testable without waiting. */
  readonly now?: () => number;
}

type Reason = "timed out" | "evicted";

export class MemoryKeptStore<T> implements KeptStore<T> {
  readonly #entries = new Map<string, { caller: string; value: T; bytes: number; used: number }>();
  readonly #gone = new Map<string, { caller: string; reason: Reason }>();
  readonly #bounds: KeptStoreBounds;
  readonly #now: () => number;
  readonly #key = randomBytes(KEPT_KEY_BYTES);
  #bytes = 0;

  constructor(bounds: KeptStoreBounds) {
    this.#bounds = bounds;
    this.#now = bounds.now ?? Date.now;
  }

  key(): Buffer {
    return this.#key;
  }

  get size(): number {
    return this.#entries.size;
  }

  async put(caller: string, value: T, bytes: number): Promise<string> {
    const now = this.#now();
    for (const [id, entry] of this.#entries)
      if (now - entry.used > this.#bounds.ttlMs) this.#drop(id, "timed out");
    const id = randomBytes(KEPT_ID_BYTES).toString("hex");
    this.#entries.set(id, { caller, value, bytes, used: now });
    this.#bytes += bytes;
    // Map order is insertion order and `get` re-inserts: the first entry is the least recent.
    for (const [oldest] of this.#entries) {
      if (
        oldest === id ||
        (this.#entries.size <= this.#bounds.maxCount && this.#bytes <= this.#bounds.maxBytes)
      )
        break;
      this.#drop(oldest, "evicted");
    }
    return id;
  }

  async get(caller: string, id: string): Promise<T> {
    const entry = this.#entries.get(id);
    if (entry !== undefined && entry.caller === caller) {
      if (this.#now() - entry.used <= this.#bounds.ttlMs) {
        entry.used = this.#now();
        this.#entries.delete(id);
        this.#entries.set(id, entry);
        return entry.value;
      }
      this.#drop(id, "timed out");
    }
    const gone = this.#gone.get(id);
    if (gone !== undefined && gone.caller === caller) throw keptExpired(gone.reason, this.#bounds.redo);
    throw keptNotFound(this.#bounds.redo);
  }

  async close(): Promise<void> {
    this.#entries.clear();
    this.#gone.clear();
    this.#bytes = 0;
  }

  #drop(id: string, reason: Reason): void {
    const entry = this.#entries.get(id);
    if (entry === undefined) return;
    this.#entries.delete(id);
    this.#bytes -= entry.bytes;
    this.#gone.set(id, { caller: entry.caller, reason });
    // Remember about as many gone ids as can be kept at once, so a recent cursor reads as expired.
    for (const [oldest] of this.#gone) {
      if (this.#gone.size <= this.#bounds.maxCount * 4) break;
      this.#gone.delete(oldest);
    }
  }
}

/** The MAC a kept value carries where it is stored, bound to its id: an edited or swapped value is refused. */
export function keptValueMac(key: Buffer, id: string, json: string): Buffer {
  return createHmac("sha256", key).update(`kept\0${id}\0`).update(json).digest();
}

export function keptExpired(reason: string, redo: string): EvidentError {
  return new EvidentError("cursor_expired", `This cursor's content was ${reason}; ${redo}.`, {
    details: { field: "cursor" },
  });
}

export function keptNotFound(redo: string): EvidentError {
  return new EvidentError("cursor_not_found", `Nothing is kept for this cursor; ${redo}.`, {
    details: { field: "cursor" },
  });
}

/** A cursor's content: which kept value, and where in it to continue. */
export interface KeptCursor {
  readonly id: string;
  readonly offset: number;
}

const MAC_BYTES = 16;
const TOKEN_BYTES = 1 + KEPT_ID_BYTES + 4;

export class CursorMac {
  readonly #key: Buffer;
  readonly #tag: number;
  readonly #foreign: string;

  /**
   * `tag` is one byte naming what the cursor is for (a page cursor is not a search cursor);
   * `foreign` completes the malformed-cursor message ("... or from an earlier server process").
   */
  constructor(key: Buffer, tag: number, foreign: string) {
    this.#key = key;
    this.#tag = tag;
    this.#foreign = foreign;
  }

  encode(cursor: KeptCursor): string {
    const body = Buffer.alloc(TOKEN_BYTES);
    body.writeUInt8(this.#tag, 0);
    Buffer.from(cursor.id, "hex").copy(body, 1);
    body.writeUInt32BE(cursor.offset, 1 + KEPT_ID_BYTES);
    return Buffer.concat([body, this.#mac(body)]).toString("base64url");
  }

  /** Throws `cursor_malformed` for anything not issued under this key and tag. */
  decode(token: string): KeptCursor {
    const raw = decodeCanonicalToken(token) ?? Buffer.alloc(0);
    const body = raw.subarray(0, TOKEN_BYTES);
    if (
      raw.length !== TOKEN_BYTES + MAC_BYTES ||
      !timingSafeEqual(raw.subarray(TOKEN_BYTES), this.#mac(body)) ||
      body.readUInt8(0) !== this.#tag
    ) {
      throw new EvidentError(
        "cursor_malformed",
        `This cursor was not issued here (it may be altered, truncated, or from ${this.#foreign}); copy cursors exactly.`,
        { details: { field: "cursor" } },
      );
    }
    return {
      id: body.subarray(1, 1 + KEPT_ID_BYTES).toString("hex"),
      offset: body.readUInt32BE(1 + KEPT_ID_BYTES),
    };
  }

  #mac(body: Buffer): Buffer {
    return createHmac("sha256", this.#key).update(body).digest().subarray(0, MAC_BYTES);
  }
}
