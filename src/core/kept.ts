/**
 * State a tool keeps between calls for one caller, addressed by cursors: the generic parts.
 *
 * `KeptStore` holds values under random ids, bound to the caller that put them, for a time to
 * live after their last use, within a count and a byte bound (least recently used evicted
 * first, the caller's own before others'), no one value taking more than its share of the
 * bytes (a larger one is refused, so it cannot evict everyone else's); ids it let go of read
 * as `cursor_expired`, ids it never gave this caller as `cursor_not_found`, so another caller
 * learns nothing. `CursorMac` turns (id, offset) into an opaque token with a truncated HMAC
 * under a per-store key, so an edited, truncated or foreign token reads as `cursor_malformed`,
 * never as another position. web_read's page cursors use both; code_search's snapshot stores
 * keep their own richer cursor format. Stores: in memory (here), on disk (file-kept-store.ts,
 * the CLI), in Redis (redis/kept-store.ts, replicas).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { decodeCanonicalToken } from "./canonical-token.js";
import { EvidentError } from "./errors.js";
import { KEPT_ENTRY_MAX_SHARE } from "./limits.js";

/** Bytes of a kept value's id (its hex form is twice as long), and of a MAC key. */
export const KEPT_ID_BYTES = 16;
export const KEPT_KEY_BYTES = 32;

export interface KeptStore<T> {
  /**
   * Keeps `value` (about `bytes` bytes) for `caller`; returns its id. A value over
   * `entryMaxBytes` is refused (`KeptValueTooLarge`) before anything is evicted for it.
   */
  put(caller: string, value: T, bytes: number): Promise<string>;
  /** The most one value may take: its share of the byte bound (KEPT_ENTRY_MAX_SHARE). */
  readonly entryMaxBytes: number;
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

/** A value's share of a store bounded by `maxBytes`. */
export function keptEntryMaxBytes(maxBytes: number): number {
  return Math.floor(maxBytes * KEPT_ENTRY_MAX_SHARE);
}

/**
 * Thrown by `put` for a value over the store's `entryMaxBytes`: the caller cuts the value or
 * keeps nothing, and says so; the store kept nothing and evicted nothing for it.
 */
export class KeptValueTooLarge extends Error {
  constructor(
    readonly bytes: number,
    readonly maxBytes: number,
  ) {
    super(`a kept value of ${bytes} bytes is over the ${maxBytes} bytes one value may take`);
    this.name = "KeptValueTooLarge";
  }
}

/**
 * What a value may weigh in any store, at most: its JSON text (how the file and Redis stores
 * write it) in UTF-8, counting every UTF-16 unit as at least two bytes (how memory holds it).
 */
export function keptBytes(value: unknown): number {
  const json = JSON.stringify(value) ?? "";
  let bytes = 0;
  for (let i = 0; i < json.length; i++) {
    const unit = json.charCodeAt(i);
    bytes += unit >= 0x800 && (unit < 0xd800 || unit > 0xdfff) ? 3 : 2;
  }
  return bytes;
}

/**
 * The longest prefix of `text` (in UTF-16 units, never splitting a surrogate pair) whose
 * `keptBytes` inside a JSON string stays within `maxBytes`, and those bytes.
 */
export function keptPrefix(text: string, maxBytes: number): { length: number; bytes: number } {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const unit = text.charCodeAt(i);
    let width = 1;
    let cost: number;
    if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      width = 2;
      cost = 4;
    } else if (unit >= 0xd800 && unit <= 0xdfff)
      cost = 12; // a lone surrogate: \uXXXX
    else if (unit === 0x22 || unit === 0x5c || unit === 0x08 || unit === 0x0c) cost = 4;
    else if (unit === 0x0a || unit === 0x0d || unit === 0x09) cost = 4;
    else if (unit < 0x20)
      cost = 12; // \u00XX
    else cost = unit >= 0x800 ? 3 : 2;
    if (bytes + cost > maxBytes) break;
    bytes += cost;
    i += width;
  }
  return { length: i, bytes };
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * Room for a new value is made from its caller's own values first (least recently used first),
 * then from everyone's: however many values one caller keeps, it evicts at most about one share
 * of other callers' values.
 */
export class MemoryKeptStore<T> implements KeptStore<T> {
  readonly #entries = new Map<string, { caller: string; value: T; bytes: number; used: number }>();
  readonly #gone = new Map<string, { caller: string; reason: Reason }>();
  readonly #bounds: KeptStoreBounds;
  readonly #now: () => number;
  readonly #key = randomBytes(KEPT_KEY_BYTES);
  readonly entryMaxBytes: number;
  #bytes = 0;

  constructor(bounds: KeptStoreBounds) {
    this.#bounds = bounds;
    this.#now = bounds.now ?? Date.now;
    this.entryMaxBytes = keptEntryMaxBytes(bounds.maxBytes);
  }

  key(): Buffer {
    return this.#key;
  }

  get size(): number {
    return this.#entries.size;
  }

  async put(caller: string, value: T, bytes: number): Promise<string> {
    if (bytes > this.entryMaxBytes) throw new KeptValueTooLarge(bytes, this.entryMaxBytes);
    const now = this.#now();
    for (const [id, entry] of this.#entries)
      if (now - entry.used > this.#bounds.ttlMs) this.#drop(id, "timed out");
    const id = randomBytes(KEPT_ID_BYTES).toString("hex");
    this.#entries.set(id, { caller, value, bytes, used: now });
    this.#bytes += bytes;
    // Map order is insertion order and `get` re-inserts: the first entry is the least recent.
    // The new entry is within its share, so evicting older ones always brings the store in bounds.
    const over = () => this.#entries.size > this.#bounds.maxCount || this.#bytes > this.#bounds.maxBytes;
    for (const own of [true, false]) {
      for (const [oldest, entry] of this.#entries) {
        if (!over()) return id;
        if (oldest !== id && (!own || entry.caller === caller)) this.#drop(oldest, "evicted");
      }
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
