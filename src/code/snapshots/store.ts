/**
 * Snapshots: the retained result of one search (or analysis), owned by one caller, addressed by
 * cursors. `SnapshotStore` is code_search's view of the one kept-data store (core/kept.ts, any
 * backend): results kept under one project root's scope, cursors encoded by `CursorCodec`
 * (cursor-codec.ts) under the store's key, a match cursor's file selection remembered as a part
 * of its result, and other sealed tokens (source continuations). A cursor never names a command
 * to rerun: pages come from the stored snapshot or not at all.
 */
import { createHash } from "node:crypto";
import { EvidentError } from "../../core/errors.js";
import { cursorError, type KeptErrors, type KeptStore, KeptValueTooLarge } from "../../core/kept.js";
import { type KeptPool, MemoryKeptStore } from "../../core/kept-memory.js";
import { KEPT_MAX_BYTES, SNAPSHOT_TTL_MS } from "../../core/limits.js";
import type { SearchQuery } from "../request.js";
import type { Revision } from "../revisions/scan.js";
import type { PartialReason } from "../rg/content-search.js";
import type { ParsedMatch } from "../rg/events.js";
import { isMatchTable, type MatchTable } from "../rg/match-table.js";
import type { CodeSearchCoverage, StructureNode } from "../schema.js";
import { type AnalysisData, type ChangesSummary, isAnalysisData } from "./analysis.js";
import { CursorCodec, type CursorState, SELECTION_SIGNATURE_BYTES } from "./cursor-codec.js";

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

/** A kept-data store some of whose owners may be released together (memory, shared by roots). */
type Kept = KeptStore<StoredResult> & { releaseOwners?(prefix: string): void };

const SIGNATURE = /^[0-9a-f]{32}$/;

/**
 * `kept` as one project root's service sees it (`scope`: the root): what it keeps is found only
 * under the same root, whatever the backend. A result continued under another root would start
 * with that root's name over files searched elsewhere. Closing it closes `kept`, or, for a store
 * shared by roots (memory), releases this root's results (their cursors then read as expired).
 */
export function snapshotStore(kept: Kept, scope?: string): SnapshotStore {
  // Paths hold no NUL: a scope's owners never collide with another scope's.
  const prefix = scope === undefined ? "" : `${scope}\0`;
  const owner = (caller: string) => `${prefix}${caller}`;
  let codec: CursorCodec | undefined;
  const cursors = () => {
    codec ??= new CursorCodec(kept.key(), kept.foreign);
    return codec;
  };
  return {
    put: (caller, data) => keep(kept, owner(caller), data),
    get: (caller, id) => kept.get(owner(caller), id),
    release: (caller, id) => kept.release(owner(caller), id),
    rememberSelection: async (caller, id, signature, keys) => {
      if (SIGNATURE.test(signature))
        await kept.addPart(owner(caller), id, `s${signature}`, Buffer.from(JSON.stringify(keys)));
    },
    selection: async (caller, id, signature) => {
      if (!SIGNATURE.test(signature)) return undefined;
      return stringList(await kept.part(owner(caller), id, `s${signature}`));
    },
    encodeCursor: (state) => cursors().encode(state),
    decodeCursor: (token) => cursors().decode(token),
    seal: (purpose, caller, payload) => cursors().seal(purpose, owner(caller), payload),
    open: (purpose, caller, token) => cursors().open(purpose, owner(caller), token),
    close: async () => {
      if (scope !== undefined && kept.releaseOwners !== undefined) kept.releaseOwners(prefix);
      else await kept.close();
    },
  };
}

/**
 * Keeps a result. Retention bounds keep every result within its share of the default store; a
 * store bounded lower (EVIDENT_KEPT_MAX_BYTES) keeps nothing larger, and says so.
 */
async function keep(kept: Kept, owner: string, data: StoredResult): Promise<string> {
  try {
    return await kept.put(owner, data, data.bytes);
  } catch (thrown) {
    if (!(thrown instanceof KeptValueTooLarge)) throw thrown;
    throw new EvidentError(
      "configuration_error",
      `This result (${thrown.bytes} bytes) is larger than one kept result may be here (${thrown.maxBytes} bytes, a quarter of EVIDENT_KEPT_MAX_BYTES), so it has no cursor; narrow the search, or raise EVIDENT_KEPT_MAX_BYTES.`,
      { details: { key: "EVIDENT_KEPT_MAX_BYTES" } },
    );
  }
}

function stringList(bytes: Buffer | undefined): readonly string[] | undefined {
  if (bytes === undefined) return undefined;
  try {
    const keys: unknown = JSON.parse(bytes.toString("utf8"));
    return Array.isArray(keys) && keys.every((k) => typeof k === "string") ? keys : undefined;
  } catch {
    return undefined;
  }
}

/** code_search's wording of the store's errors. */
export const SNAPSHOT_ERRORS: KeptErrors = {
  notFound: cursorNotFound,
  expired: cursorExpired,
  damaged: storedResultDamaged,
};

export interface MemorySnapshotOptions {
  readonly ttlMs?: number;
  readonly maxBytes?: number;
  /** Shared with other memory stores (web_read's pages), holding one bound together. */
  readonly pool?: KeptPool;
  /** Injected clock, so expiry is testable without waiting. */
  readonly now?: () => number;
}

/** Results kept in this process's memory (a service's default, and tests'). */
export function memorySnapshotStore(options: MemorySnapshotOptions = {}): SnapshotStore {
  return snapshotStore(memoryKept(options));
}

/** The memory store of code_search's results, before any scope. */
export function memoryKept(options: MemorySnapshotOptions = {}): MemoryKeptStore<StoredResult> {
  return new MemoryKeptStore<StoredResult>({
    ttlMs: options.ttlMs ?? SNAPSHOT_TTL_MS,
    maxBytes: options.maxBytes ?? KEPT_MAX_BYTES,
    errors: SNAPSHOT_ERRORS,
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.pool === undefined ? {} : { pool: options.pool }),
  });
}

/** A light shape check: a decoded value that passed its MAC but came from another format version. */
export function isStoredResult(value: unknown): value is StoredResult {
  return isAnalysisData(value) || isSnapshotData(value);
}

function isSnapshotData(value: unknown): value is SnapshotData {
  if (typeof value !== "object" || value === null) return false;
  const data = value as Partial<Record<keyof SnapshotData, unknown>>;
  return (
    isMatchTable(data.matches) &&
    Array.isArray(data.files) &&
    typeof data.query === "object" &&
    data.query !== null &&
    typeof data.rgCwd === "string" &&
    typeof data.bytes === "number" &&
    typeof data.trustedRevisions === "object" &&
    data.trustedRevisions !== null
  );
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
  return cursorError("cursor_not_found", "No result belongs to this cursor; run the search again.");
}

/** The error every store gives for a snapshot that went away (`why`: released, evicted, ...). */
export function cursorExpired(why: string): EvidentError {
  return cursorError(
    "cursor_expired",
    `This cursor's result was ${why}; run the search again for current results.`,
  );
}

/** A stored snapshot that failed its check (`what` it did) was discarded: its cursor has expired. */
export function storedResultDamaged(what: string): EvidentError {
  return cursorError(
    "cursor_expired",
    `The stored result for this cursor ${what}, so it was discarded; run the search again.`,
  );
}
