/**
 * Whether the environment asks for the shared store. `EVIDENT_SNAPSHOT_STORE=redis://...` (or
 * `rediss://` for TLS) keeps what cursors continue in Redis (code_search's snapshots, web_read's
 * long pages), so that every replica of a server can continue every cursor; it then needs
 * `EVIDENT_CURSOR_KEY`, the secret every replica shares, from which the cursor MAC keys, the
 * stored data's MAC keys and the key namespace are derived. A bad value refuses to start rather
 * than falling back to a per-process store.
 */
import { hkdfSync } from "node:crypto";
import { EvidentError } from "../errors.js";
import { KEPT_KEY_BYTES } from "../kept.js";
import { CURSOR_KEY_MIN_CHARS } from "../limits.js";

export const STORE_VARIABLE = "EVIDENT_SNAPSHOT_STORE";
export const KEY_VARIABLE = "EVIDENT_CURSOR_KEY";

export interface SharedStoreKeys {
  /** Signs code_search's cursors. */
  readonly cursor: Buffer;
  /** Signs stored snapshot data and digests callers. */
  readonly data: Buffer;
  /** Signs the cursors of kept values (web_read's long pages; core/redis/kept-store.ts). */
  readonly keptCursor: Buffer;
  /** Signs kept values and digests their callers. */
  readonly keptData: Buffer;
  /** Names this deployment's keys in Redis (replicas sharing the secret share it). */
  readonly namespace: string;
}

export interface RedisStoreSettings {
  /** The URL as configured (it may hold a password: never log or show it). */
  readonly url: string;
  /** The URL without credentials, for messages. */
  readonly shownUrl: string;
  /** The password in the URL, if any, so messages can scrub it. */
  readonly password: string | undefined;
  readonly keys: SharedStoreKeys;
}

/**
 * The Redis store's settings, or undefined when none is asked for: `store` is
 * EVIDENT_SNAPSHOT_STORE as config/ read it (trimmed), `cursorKey` EVIDENT_CURSOR_KEY as set.
 */
export function resolveRedisStoreSettings(
  store: string | undefined,
  cursorKey: string | undefined,
): RedisStoreSettings | undefined {
  const raw = store ?? "";
  if (raw === "" || raw === "memory") return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw misconfigured(
      STORE_VARIABLE,
      `${STORE_VARIABLE} is not a URL; use redis://host:6379 (or rediss:// for TLS).`,
    );
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    throw misconfigured(
      STORE_VARIABLE,
      `${STORE_VARIABLE} must be a redis:// or rediss:// URL (or "memory"), got the scheme "${url.protocol}".`,
    );
  }
  if (url.hostname === "") {
    throw misconfigured(STORE_VARIABLE, `${STORE_VARIABLE} names no host; use redis://host:6379.`);
  }
  const password = url.password === "" ? undefined : decodeURIComponent(url.password);
  const shown = new URL(url.href);
  shown.username = "";
  shown.password = "";
  return { url: raw, shownUrl: shown.href, password, keys: deriveKeys(cursorSecret(cursorKey)) };
}

/** The shared secret, refused when it cannot be what the operator meant. */
function cursorSecret(secret: string | undefined): string {
  const advice =
    `set ${KEY_VARIABLE} to the same random secret of at least ${CURSOR_KEY_MIN_CHARS} characters on every ` +
    "replica (for example `openssl rand -hex 32`)";
  if (secret === undefined || secret === "") {
    throw misconfigured(
      KEY_VARIABLE,
      `A shared snapshot store (${STORE_VARIABLE}) needs a cursor key every replica shares: ${advice}.`,
    );
  }
  if (secret.trim() !== secret) {
    throw misconfigured(
      KEY_VARIABLE,
      `${KEY_VARIABLE} starts or ends with whitespace (a secret file's trailing newline?); ${advice}.`,
    );
  }
  if (secret.length < CURSOR_KEY_MIN_CHARS) {
    throw misconfigured(KEY_VARIABLE, `${KEY_VARIABLE} is ${secret.length} characters long; ${advice}.`);
  }
  return secret;
}

/** Independent keys for independent uses, all from the one shared secret. */
export function deriveKeys(secret: string | Buffer): SharedStoreKeys {
  const derive = (info: string, bytes: number) =>
    Buffer.from(hkdfSync("sha256", secret, "evident shared snapshot store", info, bytes));
  return {
    cursor: derive("cursor mac", KEPT_KEY_BYTES),
    data: derive("data mac", KEPT_KEY_BYTES),
    keptCursor: derive("kept cursor mac", KEPT_KEY_BYTES),
    keptData: derive("kept data mac", KEPT_KEY_BYTES),
    namespace: derive("namespace", 8).toString("hex"),
  };
}

function misconfigured(key: string, message: string): EvidentError {
  return new EvidentError("configuration_error", message, { details: { key } });
}
