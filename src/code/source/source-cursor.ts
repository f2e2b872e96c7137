/**
 * Source continuations: what an inspection could not fit, as exact byte ranges of documents bound
 * to the version they were read at (revision and content hash). The token is sealed by the
 * snapshot store's key for one caller, so it cannot be forged or used by another caller; it
 * expires SOURCE_CURSOR_TTL_MS after it was issued; and a document that no longer has that
 * version is `source_changed`, never other bytes. Reading the same token again gives the same
 * answer: it names the bytes, not a position in some state.
 */
import { EvidentError } from "../../core/errors.js";
import { SOURCE_CURSOR_TTL_MS } from "../../core/limits.js";
import { type Revision, revisionOf } from "../revisions/scan.js";
import type { ByteRange } from "./ranges.js";

/** What seals and opens tokens (the snapshot store, under its cursor key). */
export interface TokenSealer {
  seal(purpose: string, caller: string, payload: Buffer): string;
  open(purpose: string, caller: string, token: string): Buffer | undefined;
}

export interface ContinuedDocument {
  /** Absolute path as read. */
  readonly path: string;
  /** The path as the agent saw it. */
  readonly display: string;
  readonly revision: Revision;
  readonly hash: string;
  /** Ascending, disjoint. */
  readonly ranges: readonly ByteRange[];
}

export interface SourceCursorState {
  readonly issuedAt: number;
  readonly documents: readonly ContinuedDocument[];
}

const PURPOSE = "source-continuation";
const VERSION = 1;

export function encodeSourceCursor(sealer: TokenSealer, caller: string, state: SourceCursorState): string {
  const compact = [
    VERSION,
    state.issuedAt,
    state.documents.map((d) => [
      d.path,
      d.display,
      // The revision's five numbers in its own order, the form tokens have always carried.
      d.revision.split(":"),
      d.hash,
      d.ranges.map((r) => [r.startByte, r.endByte]),
    ]),
  ];
  return sealer.seal(PURPOSE, caller, Buffer.from(JSON.stringify(compact)));
}

/**
 * The state a token carries. Throws `cursor_malformed` for a token this server did not issue to
 * this caller (altered, truncated, another caller's or another server's), `cursor_expired` past
 * its time to live.
 */
export function decodeSourceCursor(
  sealer: TokenSealer,
  caller: string,
  token: string,
  now: number = Date.now(),
): SourceCursorState {
  const payload = sealer.open(PURPOSE, caller, token);
  const state = payload === undefined ? undefined : parse(payload);
  if (state === undefined) {
    throw new EvidentError(
      "cursor_malformed",
      "This sourceCursor was not issued to you by this code_search server (it may be altered, truncated, " +
        "or from an earlier server process); copy it exactly, or inspect the target again.",
      { details: { field: "sourceCursor" } },
    );
  }
  if (now - state.issuedAt > SOURCE_CURSOR_TTL_MS || now < state.issuedAt - SOURCE_CURSOR_TTL_MS) {
    throw new EvidentError(
      "cursor_expired",
      `This sourceCursor has expired (they last ${SOURCE_CURSOR_TTL_MS / 60_000} minutes); inspect the target again.`,
      { details: { field: "sourceCursor" } },
    );
  }
  return state;
}

/** A sealed payload is ours, so a shape check suffices (it guards against our own bugs). */
function parse(payload: Buffer): SourceCursorState | undefined {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString("utf8"));
  } catch {
    return undefined;
  }
  if (
    !Array.isArray(value) ||
    value[0] !== VERSION ||
    typeof value[1] !== "number" ||
    !Array.isArray(value[2])
  )
    return undefined;
  const documents: ContinuedDocument[] = [];
  for (const d of value[2] as unknown[]) {
    if (!Array.isArray(d) || d.length !== 5) return undefined;
    const [path, display, revision, hash, ranges] = d as unknown[];
    if (typeof path !== "string" || typeof display !== "string" || typeof hash !== "string") return undefined;
    if (!Array.isArray(revision) || revision.length !== 5 || !revision.every((v) => typeof v === "string"))
      return undefined;
    if (!Array.isArray(ranges) || ranges.length === 0) return undefined;
    const byteRanges: ByteRange[] = [];
    for (const r of ranges as unknown[]) {
      if (!Array.isArray(r) || r.length !== 2 || !r.every((n) => Number.isSafeInteger(n) && n >= 0))
        return undefined;
      const [startByte, endByte] = r as [number, number];
      if (endByte <= startByte) return undefined;
      byteRanges.push({ startByte, endByte });
    }
    const [size, mtimeNs, ctimeNs, ino, dev] = revision as string[];
    const parsed = revisionOf({ size, mtimeNs, ctimeNs, ino, dev });
    if (parsed === undefined) return undefined;
    documents.push({
      path,
      display,
      revision: parsed,
      hash,
      ranges: byteRanges,
    });
  }
  return documents.length === 0 ? undefined : { issuedAt: value[1] as number, documents };
}
