/**
 * Snapshots: the retained result of one search, owned by one caller, addressed by cursors.
 *
 * `SnapshotStore` is the interface (a shared store for several replicas can implement it later);
 * `MemorySnapshotStore` keeps snapshots in this process with a time to live, a count bound and a
 * byte bound, evicting the least recently used. Cursors are encoded by `CursorCodec`
 * (`cursor-codec.ts`), shared with the file store. A cursor never names a command to rerun: pages
 * come from the stored snapshot or not at all.
 */
import { createHash, randomBytes } from "node:crypto";
import { EvidentError } from "../../core/errors.js";
import {
  SNAPSHOT_MAX_COUNT,
  SNAPSHOT_STORE_MAX_BYTES,
  SNAPSHOT_TOMBSTONES_MAX,
  SNAPSHOT_TTL_MS,
} from "../../core/limits.js";
import type { SearchQuery } from "../request.js";
import type { Revision } from "../revisions/scan.js";
import type { PartialReason } from "../rg/content-search.js";
import type { ParsedMatch } from "../rg/events.js";
import type { MatchTable } from "../rg/match-table.js";
import type { CodeSearchCoverage, StructureNode } from "../schema.js";
import type { AnalysisData, ChangesSummary } from "./analysis.js";
import {
  CURSOR_KEY_BYTES,
  CursorCodec,
  type CursorState,
  SELECTION_SIGNATURE_BYTES,
  SNAPSHOT_ID_BYTES,
} from "./cursor-codec.js";

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
  readonly matches: MatchTable;
  /** Ranked by match count (descending), then path. */
  readonly files: readonly SnapshotFile[];
  readonly totalOccurrences: number;
  /** Revisions observed identically before and after the search, by key. */
  readonly trustedRevisions: Readonly<Record<string, Revision>>;
  readonly partialReason: PartialReason | undefined;
  /** The file holding the line over the protocol cap, as shown (`protocol_line_limit`). */
  readonly longLineFile?: string | undefined;
  readonly searchErrors: number;
  readonly bytes: number;
  /** A structure search's result: its pattern, the node behind each match (by position), coverage. */
  readonly structure?: StructureSnapshot;
  /** The Git comparison the search was scoped to, if any (see code/changes/). */
  readonly changes?: ChangesSummary | undefined;
}

/** What a store keeps: a search snapshot or an analysis result (snapshots/analysis.ts). */
export type StoredResult = SnapshotData | AnalysisData;

export function isAnalysis(data: StoredResult): data is AnalysisData {
  return (data as Partial<AnalysisData>).kind === "analysis";
}

/** The caller's search snapshot; an analysis result under a search cursor is the wrong kind. */
export async function searchSnapshot(
  store: SnapshotStore,
  caller: string,
  id: string,
): Promise<SnapshotData> {
  const data = await store.get(caller, id);
  if (isAnalysis(data)) {
    // Reached by inspect and impact: say how an analysis item is inspected instead.
    throw new EvidentError(
      "cursor_wrong_kind",
      "This cursor belongs to an analysis result (anyOf, impact or navigation), whose items are not inspected through it: inspect an item by its path and line, or page the result with the cursor alone.",
      { details: { field: "cursor" } },
    );
  }
  return data;
}

/** The caller's analysis result; a search snapshot under an analysis cursor is the wrong kind. */
export async function analysisResult(
  store: SnapshotStore,
  caller: string,
  id: string,
): Promise<AnalysisData> {
  const data = await store.get(caller, id);
  if (!isAnalysis(data)) throw wrongResultKind();
  return data;
}

function wrongResultKind(): EvidentError {
  return new EvidentError(
    "cursor_wrong_kind",
    "This cursor belongs to another kind of result; use it as it was given.",
    {
      details: { field: "cursor" },
    },
  );
}

export interface StructureSnapshot {
  readonly pattern: string;
  readonly prefilter: string | undefined;
  readonly nodes: readonly StructureNode[];
  readonly coverage: CodeSearchCoverage;
}

export type { CursorKind, CursorState } from "./cursor-codec.js";

export interface SnapshotStore {
  /** Stores a snapshot for `caller` and returns its id. */
  put(caller: string, data: StoredResult): Promise<string>;
  /**
   * The caller's snapshot. Unknown ids and other callers' ids are `cursor_not_found`; released,
   * evicted or timed-out ones are `cursor_expired`.
   */
  get(caller: string, id: string): Promise<StoredResult>;
  /** Lets go of a snapshot no cursor can reach any more (its cursors then read as expired). */
  release(caller: string, id: string): Promise<void>;
  /** Records the file keys behind a selection signature, so match cursors can carry only the signature. */
  rememberSelection(caller: string, id: string, signature: string, keys: readonly string[]): Promise<void>;
  selection(caller: string, id: string, signature: string): Promise<readonly string[] | undefined>;
  encodeCursor(state: CursorState): string;
  /** Throws `cursor_malformed` for anything this store did not issue. */
  decodeCursor(token: string): CursorState;
  /**
   * Other tokens under the cursor key (source continuations): tamper-evident, bound to a purpose
   * and a caller. `open` returns undefined for anything else.
   */
  seal(purpose: string, caller: string, payload: Buffer): string;
  open(purpose: string, caller: string, token: string): Buffer | undefined;
  close(): Promise<void>;
}

// Paths hold no NUL: a scope's owners never collide with another scope's.
const scopePrefix = (scope: string) => `${scope}\0`;

/**
 * `store` as one project root's service sees it: what it keeps is found only under the same
 * root, whatever the store (memory, the CLI's files, Redis). A result continued under another
 * root would start with that root's name over files searched elsewhere. Closing it closes `store`.
 */
export function scopedStore(store: SnapshotStore, scope: string): SnapshotStore {
  const prefix = scopePrefix(scope);
  const owner = (caller: string) => `${prefix}${caller}`;
  return {
    put: (caller, data) => store.put(owner(caller), data),
    get: (caller, id) => store.get(owner(caller), id),
    release: (caller, id) => store.release(owner(caller), id),
    rememberSelection: (caller, id, signature, keys) =>
      store.rememberSelection(owner(caller), id, signature, keys),
    selection: (caller, id, signature) => store.selection(owner(caller), id, signature),
    encodeCursor: (state) => store.encodeCursor(state),
    decodeCursor: (token) => store.decodeCursor(token),
    seal: (purpose, caller, payload) => store.seal(purpose, owner(caller), payload),
    open: (purpose, caller, token) => store.open(purpose, owner(caller), token),
    close: () => store.close(),
  };
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
  readonly data: StoredResult;
  readonly selections: Map<string, readonly string[]>;
  lastUsed: number;
}

type Tombstone = { readonly caller: string; readonly reason: "released" | "evicted" | "timed out" };

export class MemorySnapshotStore implements SnapshotStore {
  readonly #entries = new Map<string, Entry>();
  readonly #tombstones = new Map<string, Tombstone>();
  readonly #ttlMs: number;
  readonly #maxCount: number;
  readonly #maxBytes: number;
  readonly #now: () => number;
  readonly #codec: CursorCodec;
  #bytes = 0;

  constructor(options: MemorySnapshotStoreOptions = {}) {
    this.#ttlMs = options.ttlMs ?? SNAPSHOT_TTL_MS;
    this.#maxCount = options.maxCount ?? SNAPSHOT_MAX_COUNT;
    this.#maxBytes = options.maxBytes ?? SNAPSHOT_STORE_MAX_BYTES;
    this.#now = options.now ?? Date.now;
    this.#codec = new CursorCodec(options.key ?? randomBytes(CURSOR_KEY_BYTES), "an earlier server process");
  }

  /** Snapshots currently held (for tests and diagnostics). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * This store as one project root's service sees it: what the view keeps counts against this
   * store's one bound (so every root a surface serves shares it), is found only through the same
   * view, and goes when the view closes (a retired root's cursors then read as expired).
   */
  view(scope: string): SnapshotStore {
    const prefix = scopePrefix(scope);
    return {
      ...scopedStore(this, scope),
      close: async () => {
        for (const [id, entry] of this.#entries)
          if (entry.caller.startsWith(prefix)) this.#drop(id, "released");
      },
    };
  }

  async put(caller: string, data: StoredResult): Promise<string> {
    this.#sweep();
    const id = randomBytes(SNAPSHOT_ID_BYTES).toString("hex");
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

  async get(caller: string, id: string): Promise<StoredResult> {
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
    if (tombstone !== undefined && tombstone.caller === caller) throw cursorExpired(tombstone.reason);
    throw cursorNotFound();
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

  async close(): Promise<void> {
    this.#entries.clear();
    this.#tombstones.clear();
    this.#bytes = 0;
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
  return createHash("sha256")
    .update(canonical)
    .digest()
    .subarray(0, SELECTION_SIGNATURE_BYTES)
    .toString("hex");
}

/** The error every store gives for an unknown id, or another caller's. */
export function cursorNotFound(): EvidentError {
  return new EvidentError("cursor_not_found", "No result belongs to this cursor; run the search again.", {
    details: { field: "cursor" },
  });
}

/** The error every store gives for a snapshot that went away (`why`: released, evicted, ...). */
export function cursorExpired(why: string): EvidentError {
  return new EvidentError(
    "cursor_expired",
    `This cursor's result was ${why}; run the search again for current results.`,
    { details: { field: "cursor" } },
  );
}

/** A stored snapshot that failed its check (`what` it did) was discarded: its cursor has expired. */
export function storedResultDamaged(what: string): EvidentError {
  return new EvidentError(
    "cursor_expired",
    `The stored result for this cursor ${what}, so it was discarded; run the search again.`,
    { details: { field: "cursor" } },
  );
}
