/**
 * Snapshots: the retained result of one search, owned by one caller, addressed by cursors.
 *
 * `SnapshotStore` is the interface (a shared store for several replicas can implement it later);
 * `MemorySnapshotStore` keeps snapshots in this process with a time to live, a count bound and a
 * byte bound, evicting the least recently used. A cursor carries only a snapshot id (128 random
 * bits), an offset, its kind and an optional path-selection signature, plus a MAC so a cursor
 * that was edited reads as malformed rather than as some other page. A cursor never names a
 * command to rerun: pages come from the stored snapshot or not at all.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { EvidentError } from "../core/errors.js";
import {
  CURSOR_RANDOM_BITS,
  SNAPSHOT_MAX_COUNT,
  SNAPSHOT_STORE_MAX_BYTES,
  SNAPSHOT_TOMBSTONES_MAX,
  SNAPSHOT_TTL_MS,
} from "../core/limits.js";
import type { SearchQuery } from "./request.js";
import type { ParsedMatch } from "./rg-json.js";
import type { PartialReason } from "./rg-search.js";
import type { Revision } from "./scan-revisions.js";

/**
 * One retained matching line, exactly as parsed: `path` is the name as ripgrep printed it
 * (relative to `rgCwd`), which is also the key of its revision. Display paths are derived.
 */
export type SnapshotMatch = ParsedMatch;

export interface SnapshotFile {
  readonly path: string;
  readonly key: string;
  readonly matches: number;
  readonly occurrences: number;
}

/** Everything a page needs, as plain data (a shared store would serialize it). */
export interface SnapshotData {
  readonly query: SearchQuery;
  readonly requestedRoot: string;
  readonly effectiveRoot: string;
  readonly expanded: boolean;
  readonly rgCwd: string;
  /** Ordered by path, then line: the stable order of 1-based match indices. */
  readonly matches: readonly SnapshotMatch[];
  /** Ranked by match count (descending), then path. */
  readonly files: readonly SnapshotFile[];
  readonly totalOccurrences: number;
  /** Revisions observed identically before and after the search, by key. */
  readonly trustedRevisions: Readonly<Record<string, Revision>>;
  readonly partialReason: PartialReason | undefined;
  readonly searchErrors: number;
  readonly bytes: number;
  /**
   * A summary cursor was handed out: the snapshot stays until it times out or is evicted.
   * Otherwise only forward match cursors exist and the final page releases it.
   */
  readonly reusable: boolean;
}

export type CursorKind = "summary" | "matches";

export interface CursorState {
  readonly snapshotId: string;
  readonly offset: number;
  readonly kind: CursorKind;
  /** Hex signature of the canonical file selection a match cursor is bound to. */
  readonly selection?: string | undefined;
}

export interface SnapshotStore {
  /** Stores a snapshot for `caller` and returns its id. */
  put(caller: string, data: SnapshotData): Promise<string>;
  /**
   * The caller's snapshot. Unknown ids and other callers' ids are `cursor_not_found`; released,
   * evicted or timed-out ones are `cursor_expired`.
   */
  get(caller: string, id: string): Promise<SnapshotData>;
  /** Lets go of a snapshot no cursor can reach any more (its cursors then read as expired). */
  release(caller: string, id: string): Promise<void>;
  /** Records the file keys behind a selection signature, so match cursors can carry only the signature. */
  rememberSelection(caller: string, id: string, signature: string, keys: readonly string[]): Promise<void>;
  selection(caller: string, id: string, signature: string): Promise<readonly string[] | undefined>;
  encodeCursor(state: CursorState): string;
  /** Throws `cursor_malformed` for anything this store did not issue. */
  decodeCursor(token: string): CursorState;
  close(): Promise<void>;
}

export interface MemorySnapshotStoreOptions {
  readonly ttlMs?: number;
  readonly maxCount?: number;
  readonly maxBytes?: number;
  /** Injected clock, so expiry is testable without waiting. */
  readonly now?: () => number;
  /** MAC key; random per store by default. */
  readonly key?: Buffer;
}

interface Entry {
  readonly caller: string;
  readonly data: SnapshotData;
  readonly selections: Map<string, readonly string[]>;
  lastUsed: number;
}

type Tombstone = { readonly caller: string; readonly reason: "released" | "evicted" | "timed out" };

const VERSION = 1;
const ID_BYTES = CURSOR_RANDOM_BITS / 8;
const SIGNATURE_BYTES = 16;
const MAC_BYTES = 16;
const HEADER_BYTES = 3 + ID_BYTES + 4;

export class MemorySnapshotStore implements SnapshotStore {
  readonly #entries = new Map<string, Entry>();
  readonly #tombstones = new Map<string, Tombstone>();
  readonly #ttlMs: number;
  readonly #maxCount: number;
  readonly #maxBytes: number;
  readonly #now: () => number;
  readonly #key: Buffer;
  #bytes = 0;

  constructor(options: MemorySnapshotStoreOptions = {}) {
    this.#ttlMs = options.ttlMs ?? SNAPSHOT_TTL_MS;
    this.#maxCount = options.maxCount ?? SNAPSHOT_MAX_COUNT;
    this.#maxBytes = options.maxBytes ?? SNAPSHOT_STORE_MAX_BYTES;
    this.#now = options.now ?? Date.now;
    this.#key = options.key ?? randomBytes(32);
  }

  /** Snapshots currently held (for tests and diagnostics). */
  get size(): number {
    return this.#entries.size;
  }

  async put(caller: string, data: SnapshotData): Promise<string> {
    this.#sweep();
    const id = randomBytes(ID_BYTES).toString("hex");
    this.#entries.set(id, { caller, data, selections: new Map(), lastUsed: this.#now() });
    this.#bytes += data.bytes;
    // Map order is insertion order and `get` re-inserts, so the first entry is the least recent.
    for (const [oldest] of this.#entries) {
      if (this.#entries.size <= this.#maxCount && this.#bytes <= this.#maxBytes) break;
      if (oldest === id) break;
      this.#drop(oldest, "evicted");
    }
    return id;
  }

  async get(caller: string, id: string): Promise<SnapshotData> {
    const entry = this.#entries.get(id);
    if (entry !== undefined && entry.caller === caller) {
      if (this.#now() - entry.lastUsed <= this.#ttlMs) {
        entry.lastUsed = this.#now();
        this.#entries.delete(id);
        this.#entries.set(id, entry);
        return entry.data;
      }
      this.#drop(id, "timed out");
    }
    const tombstone = this.#tombstones.get(id);
    // Another caller learns nothing, not even that the id existed.
    if (tombstone !== undefined && tombstone.caller === caller) {
      throw new EvidentError(
        "cursor_expired",
        `This cursor's result was ${tombstone.reason}; run the search again for current results.`,
        { details: { field: "cursor" } },
      );
    }
    throw new EvidentError("cursor_not_found", "No result belongs to this cursor; run the search again.", {
      details: { field: "cursor" },
    });
  }

  async release(caller: string, id: string): Promise<void> {
    const entry = this.#entries.get(id);
    if (entry !== undefined && entry.caller === caller) this.#drop(id, "released");
  }

  async rememberSelection(
    caller: string,
    id: string,
    signature: string,
    keys: readonly string[],
  ): Promise<void> {
    const entry = this.#entries.get(id);
    if (entry !== undefined && entry.caller === caller) entry.selections.set(signature, keys);
  }

  async selection(caller: string, id: string, signature: string): Promise<readonly string[] | undefined> {
    const entry = this.#entries.get(id);
    return entry !== undefined && entry.caller === caller ? entry.selections.get(signature) : undefined;
  }

  encodeCursor(state: CursorState): string {
    const hasSelection = state.selection !== undefined;
    const body = Buffer.alloc(HEADER_BYTES + (hasSelection ? SIGNATURE_BYTES : 0));
    body.writeUInt8(VERSION, 0);
    body.writeUInt8(state.kind === "summary" ? 0 : 1, 1);
    body.writeUInt8(hasSelection ? 1 : 0, 2);
    Buffer.from(state.snapshotId, "hex").copy(body, 3);
    body.writeUInt32BE(state.offset, 3 + ID_BYTES);
    if (hasSelection) Buffer.from(state.selection as string, "hex").copy(body, HEADER_BYTES);
    return Buffer.concat([body, this.#mac(body)]).toString("base64url");
  }

  decodeCursor(token: string): CursorState {
    const malformed = () =>
      new EvidentError(
        "cursor_malformed",
        "This cursor was not issued by this code_search server (it may be altered, truncated, or from an " +
          "earlier server process); copy cursors exactly, or run the search again.",
        {
          details: { field: "cursor" },
        },
      );
    if (!/^[A-Za-z0-9_-]+$/.test(token)) throw malformed();
    const raw = Buffer.from(token, "base64url");
    if (
      raw.length !== HEADER_BYTES + MAC_BYTES &&
      raw.length !== HEADER_BYTES + SIGNATURE_BYTES + MAC_BYTES
    ) {
      throw malformed();
    }
    const body = raw.subarray(0, raw.length - MAC_BYTES);
    const mac = raw.subarray(raw.length - MAC_BYTES);
    if (!timingSafeEqual(mac, this.#mac(body))) throw malformed();
    const kind = body.readUInt8(1);
    const flags = body.readUInt8(2);
    if (body.readUInt8(0) !== VERSION || kind > 1 || flags !== (body.length > HEADER_BYTES ? 1 : 0)) {
      throw malformed();
    }
    return {
      snapshotId: body.subarray(3, 3 + ID_BYTES).toString("hex"),
      offset: body.readUInt32BE(3 + ID_BYTES),
      kind: kind === 0 ? "summary" : "matches",
      selection: flags === 1 ? body.subarray(HEADER_BYTES).toString("hex") : undefined,
    };
  }

  async close(): Promise<void> {
    this.#entries.clear();
    this.#tombstones.clear();
    this.#bytes = 0;
  }

  #mac(body: Buffer): Buffer {
    return createHmac("sha256", this.#key).update(body).digest().subarray(0, MAC_BYTES);
  }

  #sweep(): void {
    const now = this.#now();
    for (const [id, entry] of this.#entries) {
      if (now - entry.lastUsed > this.#ttlMs) this.#drop(id, "timed out");
    }
  }

  #drop(id: string, reason: Tombstone["reason"]): void {
    const entry = this.#entries.get(id);
    if (entry === undefined) return;
    this.#entries.delete(id);
    this.#bytes -= entry.data.bytes;
    this.#tombstones.set(id, { caller: entry.caller, reason });
    for (const [oldest] of this.#tombstones) {
      if (this.#tombstones.size <= SNAPSHOT_TOMBSTONES_MAX) break;
      this.#tombstones.delete(oldest);
    }
  }
}

/** Canonical signature of a file selection: order and duplicates do not matter. */
export function selectionSignature(keys: Iterable<string>): string {
  const canonical = [...new Set(keys)].sort().join("\0");
  return createHash("sha256").update(canonical).digest().subarray(0, SIGNATURE_BYTES).toString("hex");
}
