/**
 * code_search's results in each backend of the one kept-data store (core/kept.ts), with its
 * wording and bounds: memory (store.ts), the CLI's files, Redis (its results in blocks, so a page
 * reads only what it shows). The tool picks one and scopes it per root (`snapshotStore`).
 */
import { FileKeptStore } from "../../core/file-kept-store.js";
import type { KeptOptions } from "../../core/kept.js";
import { KEPT_MAX_BYTES, SNAPSHOT_TTL_MS } from "../../core/limits.js";
import type { Logger } from "../../core/logger.js";
import { RedisKeptStore } from "../../core/redis/kept-store.js";
import type { RedisStoreSettings } from "../../core/redis/settings.js";
import { snapshotCodec } from "./redis-codec.js";
import { isStoredResult, SNAPSHOT_ERRORS, type StoredResult } from "./store.js";

/** Bounds a caller may set; the rest are code_search's. */
export type SnapshotBounds = Partial<Omit<KeptOptions, "errors">>;

function options(bounds: SnapshotBounds): KeptOptions {
  return { ttlMs: SNAPSHOT_TTL_MS, maxBytes: KEPT_MAX_BYTES, ...bounds, errors: SNAPSHOT_ERRORS };
}

/** Results on disk in `dir`, for one-shot surfaces: the next process continues a cursor. */
export function fileSnapshots(dir: string, bounds: SnapshotBounds = {}): FileKeptStore<StoredResult> {
  return new FileKeptStore<StoredResult>({
    ...options(bounds),
    dir,
    tool: "code_search",
    accepts: isStoredResult,
  });
}

/** Results in Redis, shared by every replica. */
export function redisSnapshots(
  settings: RedisStoreSettings,
  bounds: SnapshotBounds & { readonly timeoutMs?: number; readonly logger?: Logger } = {},
): RedisKeptStore<StoredResult> {
  return new RedisKeptStore<StoredResult>({
    ...options(bounds),
    ...(bounds.timeoutMs === undefined ? {} : { timeoutMs: bounds.timeoutMs }),
    ...(bounds.logger === undefined ? {} : { logger: bounds.logger }),
    settings,
    keys: { cursor: settings.keys.cursor, data: settings.keys.data },
    scope: "",
    tool: "code_search",
    consequence: "code_search cannot keep or continue results",
    codec: snapshotCodec,
  });
}
