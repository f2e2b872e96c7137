/**
 * The file store's on-disk format: file names, the snapshot header (magic, HMAC, caller) and its
 * verification, selection MACs, and the shape check of a decoded payload.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { type FileHandle, open } from "node:fs/promises";
import { READ_FLAGS } from "../../../core/private-dir.js";
import { isMatchTable } from "../../rg/match-table.js";
import { isAnalysisData } from "../analysis.js";
import type { SnapshotData, StoredResult } from "../store.js";

export type Reason = "released" | "evicted" | "timed out";

export const ID_PATTERN = /^[0-9a-f]{32}$/;
export const SIGNATURE_PATTERN = /^[0-9a-f]{32}$/;
export const SNAPSHOT_NAME = /^([0-9a-f]{32})\.snapshot$/;
export const TOMBSTONE_NAME = /^([0-9a-f]{32})\.expired$/;
export const SELECTION_NAME = /^([0-9a-f]{32})\.[0-9a-f]{32}\.selection$/;
/** Format version and the runtime whose `node:v8` serialization the payload uses. */
// evs2: snapshots keep ripgrep's output indexed (match-table.ts) instead of decoded matches.
// evs3: a file revision is one string (revisions/scan.ts), not an object of five.
const FORMAT = Buffer.from("evs3", "latin1");
export const MAGIC = Buffer.concat([
  FORMAT,
  Buffer.from(process.versions.bun === undefined ? "N" : "B", "latin1"),
]);
export const FILE_MAC_BYTES = 32;
export const CALLER_MAX_BYTES = 0xffff;
export const HEADER_BYTES = MAGIC.length + FILE_MAC_BYTES + 2;

export function verifySnapshot(
  key: Buffer,
  id: string,
  bytes: Buffer,
): { caller: string; payload: Buffer } | "other runtime" | undefined {
  if (bytes.length < HEADER_BYTES || !bytes.subarray(0, FORMAT.length).equals(FORMAT)) return undefined;
  // The payload is the runtime's own `node:v8` serialization; the other runtime's does not decode.
  if (!bytes.subarray(0, MAGIC.length).equals(MAGIC)) return "other runtime";
  const callerLength = bytes.readUInt16BE(MAGIC.length + FILE_MAC_BYTES);
  if (bytes.length < HEADER_BYTES + callerLength) return undefined;
  const mac = createHmac("sha256", key)
    .update(`snapshot\0${id}\0`)
    .update(bytes.subarray(MAGIC.length + FILE_MAC_BYTES))
    .digest();
  if (!timingSafeEqual(mac, bytes.subarray(MAGIC.length, MAGIC.length + FILE_MAC_BYTES))) return undefined;
  return {
    caller: bytes.toString("utf8", HEADER_BYTES, HEADER_BYTES + callerLength),
    payload: bytes.subarray(HEADER_BYTES + callerLength),
  };
}

/** The caller named in a snapshot file's header (unverified: used only to refuse or expire). */
export async function readHeader(path: string): Promise<{ caller: string } | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, READ_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const head = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await handle.read(head, 0, HEADER_BYTES, 0);
    if (bytesRead < HEADER_BYTES || !head.subarray(0, FORMAT.length).equals(FORMAT)) return undefined;
    const length = head.readUInt16BE(MAGIC.length + FILE_MAC_BYTES);
    const caller = Buffer.alloc(length);
    const got = await handle.read(caller, 0, length, HEADER_BYTES);
    return got.bytesRead === length ? { caller: caller.toString("utf8") } : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

export function selectionMac(
  key: Buffer,
  id: string,
  signature: string,
  caller: string,
  keys: readonly string[],
): string {
  return createHmac("sha256", key)
    .update(`selection\0${id}\0${signature}\0${JSON.stringify(caller)}\0${JSON.stringify(keys)}`)
    .digest("hex");
}

/** A light shape check: a payload that passed its MAC but came from another format version. */
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

export function isReason(value: unknown): value is Reason {
  return value === "released" || value === "evicted" || value === "timed out";
}
