/**
 * What evident keeps between calls for one caller, addressed by cursors: the one store interface
 * and what every backend shares. Backends: memory (kept-memory.ts), files for one-shot surfaces
 * (file-kept-store.ts), Redis for replicas (redis/kept-store.ts); one contract suite runs them all.
 *
 * A store holds values under random ids, bound to the owner that put them, for a time to live
 * after their last use, within a byte bound (least recently used evicted first, the owner's own
 * before others'), no one value taking more than its share of the bytes (a larger one is
 * refused, so it cannot evict everyone else's). An entry may gain small named parts later (a
 * snapshot's selections). Ids it let go of read as expired, ids it never gave this owner as not
 * found, so another caller learns nothing; the errors' wording is the tool's (`KeptErrors`).
 * `CursorMac` turns (id, offset) into an opaque token under the store's key, so an edited,
 * truncated or foreign token reads as `cursor_malformed`, never as another position.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { decodeCanonicalToken } from "./canonical-token.js";
import { EvidentError } from "./errors.js";
import { KEPT_ENTRY_MAX_SHARE } from "./limits.js";

/** Bytes of a kept value's id (its hex form is twice as long), and of a MAC key. */
export const KEPT_ID_BYTES = 16;
export const KEPT_KEY_BYTES = 32;
/** A kept id as text, and a part's name. */
export const KEPT_ID = /^[0-9a-f]{32}$/;
export const KEPT_PART_NAME = /^[0-9a-z]{1,64}$/;

export interface KeptStore<T> {
  /**
   * Keeps `value` for `owner`; returns its id. `bytes` is the caller's estimate of what it holds
   * in memory (what the memory backend counts; the others count what they write). A value over
   * `entryMaxBytes` is refused (`KeptValueTooLarge`) before anything is evicted for it.
   */
  put(owner: string, value: T, bytes: number): Promise<string>;
  /** The most one value may take: its share of the byte bound (KEPT_ENTRY_MAX_SHARE). */
  readonly entryMaxBytes: number;
  /** The owner's value, or the tool's not-found / expired error. */
  get(owner: string, id: string): Promise<T>;
  /** Lets go of the owner's value (its id then reads as expired); others' are untouched. */
  release(owner: string, id: string): Promise<void>;
  /** Adds a small named part to the owner's value, once; its bytes count toward the bound. */
  addPart(owner: string, id: string, name: string, value: Buffer): Promise<void>;
  /** A part of the owner's value, or undefined. */
  part(owner: string, id: string, name: string): Promise<Buffer | undefined>;
  /** The MAC key for this store's cursors (per process in memory, per directory on disk). */
  key(): Buffer;
  /** Where a cursor refused under this key may come from, for `cursor_malformed` messages. */
  readonly foreign: string;
  close(): Promise<void>;
}

/** The errors a store gives, worded for the tool that keeps the values. */
export interface KeptErrors {
  notFound(): EvidentError;
  /** `reason`: released, evicted, timed out. */
  expired(reason: string): EvidentError;
  /** The stored value `what` (failed its integrity check, ...), so it was discarded. */
  damaged(what: string): EvidentError;
}

/**
 * Whose an owner is when room is made: an owner may name a scope before its caller
 * (`scope\0caller`, one project root's results), and a caller's values in every scope are its own.
 */
export function keptParty(owner: string): string {
  return owner.slice(owner.lastIndexOf("\0") + 1);
}

/** What every backend is built with. */
export interface KeptOptions {
  readonly ttlMs: number;
  readonly maxBytes: number;
  /** How many released, evicted or timed-out ids are remembered, to read as expired. */
  readonly maxTombstones?: number;
  readonly errors: KeptErrors;
  /** Injected clock, so expiry is testable without waiting. */
  readonly now?: () => number;
}

/** Why an entry went away, as its id then reads. */
export type KeptReason = "released" | "evicted" | "timed out";

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
 * A kept string's own copy: a slice keeps the whole string it was cut from alive (a page behind
 * its kept prefix, ripgrep's output behind a kept line). Latin-1 text stays one byte a character.
 */
export function keptCopy(text: string): string {
  const encoding = /[\u0100-\uffff]/.test(text) ? "utf16le" : "latin1";
  return Buffer.from(text, encoding).toString(encoding);
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

/** Bytes of `keptMac`'s MAC (HMAC-SHA-256), as the file and Redis backends store it. */
export const KEPT_MAC_BYTES = 32;

/** The MAC a stored part carries, bound to its entry's id and its name: an edited or swapped part is refused. */
export function keptMac(key: Buffer, id: string, name: string, chunks: readonly Uint8Array[]): Buffer {
  const mac = createHmac("sha256", key).update(`kept\0${id}\0${name}\0`);
  for (const chunk of chunks) mac.update(chunk);
  return mac.digest();
}

/** Whether `given` is the MAC `keptMac` gives, compared in constant time. */
export function keptMacHolds(given: Buffer, expected: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** web_read's wording: `redo` says how to get the value again ("read the URL again"). */
export function redoErrors(redo: string): KeptErrors {
  return {
    notFound: () => cursorError("cursor_not_found", `Nothing is kept for this cursor; ${redo}.`),
    expired: (reason) => cursorError("cursor_expired", `This cursor's content was ${reason}; ${redo}.`),
    damaged: () =>
      cursorError("cursor_expired", `This cursor's content was damaged, so it was discarded; ${redo}.`),
  };
}

export function cursorError(code: "cursor_not_found" | "cursor_expired", message: string): EvidentError {
  return new EvidentError(code, message, { details: { field: "cursor" } });
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
