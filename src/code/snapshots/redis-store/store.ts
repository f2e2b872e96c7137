/**
 * A snapshot store shared by every replica of a server, kept in Redis (EVIDENT_SNAPSHOT_STORE),
 * so a cursor made on one replica is continued on any other. Semantics match the memory store:
 * snapshots are bound to their caller (stored as a keyed digest), live SNAPSHOT_TTL_MS after
 * their last use, are bounded in count and bytes across all replicas (least recently used
 * evicted first), and read as `cursor_expired` once released, timed out or evicted.
 *
 * A page reads the snapshot's header and then only the blocks of matches it shows (format.ts);
 * the bookkeeping runs as atomic scripts (scripts.ts). Cursors are signed with a key derived
 * from EVIDENT_CURSOR_KEY, which every replica shares (settings.ts). When Redis cannot be
 * reached, calls fail with `store_unavailable`: there is no silent fallback to a per-process
 * store, whose cursors the other replicas could not continue.
 */
import { createHash, randomBytes } from "node:crypto";
import { createClient, RESP_TYPES } from "@redis/client";
import { EvidentError } from "../../../core/errors.js";
import {
  SHARED_STORE_COMMAND_TIMEOUT_MS,
  SHARED_STORE_CONNECT_TIMEOUT_MS,
  SHARED_STORE_EXPIRY_GRACE_MS,
  SNAPSHOT_MAX_COUNT,
  SNAPSHOT_STORE_MAX_BYTES,
  SNAPSHOT_TOMBSTONES_MAX,
  SNAPSHOT_TTL_MS,
} from "../../../core/limits.js";
import type { Logger } from "../../../core/logger.js";
import { CursorCodec, type CursorState, SNAPSHOT_ID_BYTES } from "../cursor-codec.js";
import {
  cursorExpired,
  cursorNotFound,
  type SnapshotStore,
  type StoredResult,
  storedResultDamaged,
} from "../store.js";
import { decodeHeader, encodeSnapshot, ownerOf, seal, selectionField, unseal } from "./format.js";
import { ADMIT, RELEASE, SELECTION, TOUCH } from "./scripts.js";
import { KEY_VARIABLE, type RedisStoreSettings, STORE_VARIABLE } from "./settings.js";

export interface RedisSnapshotStoreOptions {
  readonly settings: RedisStoreSettings;
  readonly ttlMs?: number;
  readonly maxCount?: number;
  readonly maxBytes?: number;
  readonly maxTombstones?: number;
  /** Injected clock, so expiry is testable without waiting. */
  readonly now?: () => number;
  /** How long one exchange with Redis may take (SHARED_STORE_COMMAND_TIMEOUT_MS). */
  readonly timeoutMs?: number;
  readonly logger?: Logger;
}

type Client = ReturnType<ReturnType<typeof createClient>["withTypeMapping"]>;

const ID_PATTERN = /^[0-9a-f]{32}$/;

export class RedisSnapshotStore implements SnapshotStore {
  readonly #settings: RedisStoreSettings;
  readonly #ttlMs: number;
  readonly #maxCount: number;
  readonly #maxBytes: number;
  readonly #maxTombstones: number;
  readonly #now: () => number;
  readonly #timeoutMs: number;
  readonly #logger: Logger | undefined;
  readonly #codec: CursorCodec;
  readonly #keys: readonly string[];
  readonly #prefix: string;
  #client: Promise<Client> | undefined;
  #closed = false;
  #outage = false;

  constructor(options: RedisSnapshotStoreOptions) {
    this.#settings = options.settings;
    this.#ttlMs = options.ttlMs ?? SNAPSHOT_TTL_MS;
    this.#maxCount = options.maxCount ?? SNAPSHOT_MAX_COUNT;
    this.#maxBytes = options.maxBytes ?? SNAPSHOT_STORE_MAX_BYTES;
    this.#maxTombstones = options.maxTombstones ?? SNAPSHOT_TOMBSTONES_MAX;
    this.#now = options.now ?? Date.now;
    this.#timeoutMs = options.timeoutMs ?? SHARED_STORE_COMMAND_TIMEOUT_MS;
    this.#logger = options.logger;
    this.#codec = new CursorCodec(options.settings.keys.cursor, `a server with another ${KEY_VARIABLE}`);
    const namespace = `evident:${options.settings.keys.namespace}:`;
    this.#keys = ["index", "meta", "seq", "gone", "gone-order"].map((name) => namespace + name);
    this.#prefix = `${namespace}s:`;
  }

  /** Connects (if not yet) and checks that Redis answers: startup uses it to fail early. */
  async check(): Promise<void> {
    await this.#run((client) => client.ping());
  }

  async put(caller: string, data: StoredResult): Promise<string> {
    const id = randomBytes(SNAPSHOT_ID_BYTES).toString("hex");
    const encoded = await encodeSnapshot(this.#settings.keys.data, id, data);
    const fields: Array<string | Buffer> = [];
    for (const [field, value] of encoded.fields) fields.push(field, value);
    await this.#script(ADMIT, [
      id,
      this.#owner(caller),
      String(this.#now()),
      String(this.#ttlMs),
      String(this.#maxCount),
      String(this.#maxBytes),
      String(encoded.bytes),
      ...fields,
    ]);
    return id;
  }

  async get(caller: string, id: string): Promise<StoredResult> {
    if (!ID_PATTERN.test(id)) throw cursorNotFound();
    const reply = (await this.#script(TOUCH, [
      id,
      this.#owner(caller),
      String(this.#now()),
      String(this.#ttlMs),
    ])) as Buffer[];
    const status = String(reply[0]);
    if (status === "missing") throw cursorNotFound();
    if (status === "expired") throw cursorExpired(String(reply[1]));
    const data = decodeHeader(this.#settings.keys.data, id, reply[1] as Buffer, (fields) =>
      this.#readBlocks(id, fields),
    );
    if (data === undefined) {
      await this.#dropDamaged(caller, id);
      throw storedResultDamaged("failed its integrity check");
    }
    return data;
  }

  async release(caller: string, id: string): Promise<void> {
    if (this.#closed || !ID_PATTERN.test(id)) return;
    await this.#script(RELEASE, [id, this.#owner(caller)]);
  }

  async rememberSelection(
    caller: string,
    id: string,
    signature: string,
    keys: readonly string[],
  ): Promise<void> {
    if (this.#closed || !ID_PATTERN.test(id)) return;
    const field = selectionField(signature);
    const value = seal(this.#settings.keys.data, id, field, Buffer.from(JSON.stringify(keys)));
    await this.#script(SELECTION, [id, this.#owner(caller), field, value]);
  }

  async selection(caller: string, id: string, signature: string): Promise<readonly string[] | undefined> {
    if (this.#closed || !ID_PATTERN.test(id)) return undefined;
    const field = selectionField(signature);
    const value = await this.#script(SELECTION, [id, this.#owner(caller), field, ""]);
    if (!Buffer.isBuffer(value)) return undefined;
    const payload = unseal(this.#settings.keys.data, id, field, value);
    if (payload === undefined) return undefined;
    try {
      const keys: unknown = JSON.parse(payload.toString("utf8"));
      return Array.isArray(keys) && keys.every((k) => typeof k === "string") ? keys : undefined;
    } catch {
      return undefined;
    }
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

  /** Ends this instance's connection; the snapshots stay for the other replicas. */
  async close(): Promise<void> {
    this.#closed = true;
    // Destroyed, not quit: a QUIT would wait for a Redis that may not answer.
    this.#disconnect();
  }

  // ------------------------------------------------------------------------------------------

  #owner(caller: string): string {
    return ownerOf(this.#settings.keys.data, caller);
  }

  /** How long Redis keeps a snapshot no replica has touched or swept. */
  #expiryMs(): number {
    return this.#ttlMs + Math.max(this.#ttlMs, SHARED_STORE_EXPIRY_GRACE_MS);
  }

  async #readBlocks(id: string, fields: string[]): Promise<Array<Buffer | null>> {
    return (await this.#run((client) => client.hmGet(this.#prefix + id, fields))) as Array<Buffer | null>;
  }

  /** A snapshot whose stored header fails its check is dropped, and its cursor reads as expired. */
  async #dropDamaged(caller: string, id: string): Promise<void> {
    await this.release(caller, id).catch(() => undefined);
    this.#logger?.warn("shared snapshot store: a stored snapshot failed its integrity check", {});
  }

  async #script(script: string, args: Array<string | Buffer>): Promise<unknown> {
    const sha = sha1(script);
    const options = {
      keys: [...this.#keys],
      arguments: [this.#prefix, String(this.#maxTombstones), String(this.#expiryMs()), ...args],
    };
    return this.#run(async (client) => {
      try {
        return await client.evalSha(sha, options);
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
        return client.eval(script, options);
      }
    });
  }

  /** Runs one exchange with Redis, turning any failure to reach it into `store_unavailable`. */
  /**
   * Runs one exchange with Redis, turning any failure to reach it into `store_unavailable`. A
   * Redis that does not answer within the bound (stopped, overloaded, a network black hole)
   * fails the call too, and its connection is dropped so the next call connects anew: the
   * client's own command timeouts do not cover a command already sent.
   */
  async #run<T>(exchange: (client: Client) => Promise<T>): Promise<T> {
    if (this.#closed) throw new EvidentError("cancelled", "code_search is shutting down.");
    const work = this.#connection().then(exchange);
    work.catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    const silence = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new NoAnswer(this.#timeoutMs)), this.#timeoutMs);
    });
    try {
      return await Promise.race([work, silence]);
    } catch (thrown) {
      if (thrown instanceof EvidentError) throw thrown;
      if (thrown instanceof NoAnswer) this.#disconnect();
      this.#report(thrown);
      throw this.#unavailable(thrown);
    } finally {
      clearTimeout(timer);
    }
  }

  #disconnect(): void {
    const pending = this.#client;
    this.#client = undefined;
    pending?.then(
      (client) => client.destroy(),
      () => {},
    );
  }

  /**
   * The connection, made on first use and made again after it is lost: a call while Redis is
   * down fails at once (no queue, no retry loop), and the first call once it is back succeeds.
   */
  async #connection(): Promise<Client> {
    const current = await this.#client?.catch(() => undefined);
    if (current?.isReady === true) return current;
    current?.destroy();
    const client = createClient({
      url: this.#settings.url,
      disableOfflineQueue: true,
      socket: { connectTimeout: SHARED_STORE_CONNECT_TIMEOUT_MS, reconnectStrategy: false },
    }).withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
    // Without a listener an error event would end the process; the failing call reports it.
    client.on("error", () => {});
    const connecting = client.connect().then(() => client);
    this.#client = connecting;
    try {
      await connecting;
    } catch (error) {
      if (this.#client === connecting) this.#client = undefined;
      client.destroy();
      throw error;
    }
    if (this.#outage)
      this.#logger?.info("shared snapshot store reachable again", { store: this.#settings.shownUrl });
    this.#outage = false;
    return client;
  }

  /** Logs the first failure of an outage (every call during it fails and says so itself). */
  #report(error: unknown): void {
    if (this.#outage) return;
    this.#outage = true;
    this.#logger?.warn("shared snapshot store unreachable", {
      store: this.#settings.shownUrl,
      error: this.#scrub(error instanceof Error ? error.message : String(error)),
    });
  }

  #scrub(text: string): string {
    const { password } = this.#settings;
    return password === undefined ? text : text.split(password).join("***");
  }

  #unavailable(thrown: unknown): EvidentError {
    const { shownUrl } = this.#settings;
    const reason = this.#scrub(thrown instanceof Error ? thrown.message : String(thrown));
    if (/^(WRONGPASS|NOAUTH|NOPERM)\b/.test(reason)) {
      return new EvidentError(
        "configuration_error",
        `The shared snapshot store at ${shownUrl} refused evident's credentials (${reason.split(" ")[0]}); ` +
          `check the user and password in ${STORE_VARIABLE}.`,
        { cause: thrown, details: { key: STORE_VARIABLE } },
      );
    }
    return new EvidentError(
      "store_unavailable",
      `The shared snapshot store (${STORE_VARIABLE}, ${shownUrl}) cannot be reached (${reason}), so code_search ` +
        "cannot keep or continue results; retry shortly. Operators: check that Redis is running and reachable.",
      { cause: thrown, details: { key: STORE_VARIABLE } },
    );
  }
}

class NoAnswer extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = "NoAnswer";
  }
}

function sha1(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}
