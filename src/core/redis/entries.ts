/**
 * Entries kept in the shared store (Redis) behind cursors, for every replica at once: the
 * connection, the bookkeeping scripts (scripts.ts) and the keys of one scope. code_search's
 * results and web_read's long pages each have a scope of their own, with their own bound, under
 * the deployment's namespace (settings.ts).
 *
 * When Redis cannot be reached, every exchange fails with `store_unavailable`: there is no
 * silent fallback to a per-process store, whose cursors the other replicas could not continue.
 * The client module loads on the first exchange, so a server without a shared store never
 * pays for it.
 */
import { createHash, createHmac } from "node:crypto";
import { EvidentError } from "../errors.js";
import { type KeptOptions, keptParty } from "../kept.js";
import {
  KEPT_TOMBSTONES_MAX,
  SHARED_STORE_COMMAND_TIMEOUT_MS,
  SHARED_STORE_CONNECT_TIMEOUT_MS,
  SHARED_STORE_EXPIRY_GRACE_MS,
} from "../limits.js";
import type { Logger } from "../logger.js";
import { ADMIT, FIELD, RELEASE, TOUCH } from "./scripts.js";
import { type RedisStoreSettings, STORE_VARIABLE } from "./settings.js";

/** What the entries need of their store's options (`RedisKeptStoreOptions`, which documents them). */
export interface SharedEntriesOptions extends Omit<KeptOptions, "errors"> {
  readonly settings: RedisStoreSettings;
  /** Key prefix inside the deployment's namespace: "" for snapshots, "pages:" for kept pages. */
  readonly scope: string;
  /** What fails while Redis is away, for messages ("code_search cannot keep or continue results"). */
  readonly consequence: string;
  /** Which tool is shutting down when called after close ("code_search"). */
  readonly tool: string;
  /** How long one exchange with Redis may take (SHARED_STORE_COMMAND_TIMEOUT_MS). */
  readonly timeoutMs?: number;
  readonly logger?: Logger;
}

/** An entry as its owner asked for it: its first field ("h"), or why it is not there. */
export type Touched =
  | { readonly status: "ok"; readonly header: Buffer }
  | { readonly status: "expired"; readonly reason: string }
  | { readonly status: "missing" };

type RedisModule = typeof import("@redis/client");
type Client = ReturnType<ReturnType<RedisModule["createClient"]>["withTypeMapping"]>;

let loading: Promise<RedisModule> | undefined;

/** The client module, loaded once, on the first exchange. */
function clientModule(): Promise<RedisModule> {
  loading ??= import("@redis/client");
  return loading;
}

export class SharedEntries {
  readonly #options: SharedEntriesOptions;
  readonly #now: () => number;
  readonly #timeoutMs: number;
  readonly #keys: readonly string[];
  readonly #prefix: string;
  #client: Promise<Client> | undefined;
  #closed = false;
  #outage = false;

  constructor(options: SharedEntriesOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#timeoutMs = options.timeoutMs ?? SHARED_STORE_COMMAND_TIMEOUT_MS;
    const namespace = `evident:${options.settings.keys.namespace}:${options.scope}`;
    this.#keys = ["index", "meta", "seq", "gone", "gone-order"].map((name) => namespace + name);
    this.#prefix = `${namespace}s:`;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Connects (if not yet) and checks that Redis answers: startup uses it to fail early. */
  async check(): Promise<void> {
    await this.#run((client) => client.ping());
  }

  /**
   * Writes an entry of about `bytes` bytes for `owner`, then sweeps timed-out entries and evicts
   * the least recently used beyond the byte bound (never the new one; the owner's own first).
   */
  async admit(id: string, owner: string, bytes: number, fields: Iterable<[string, Buffer]>): Promise<void> {
    const pairs: Array<string | Buffer> = [];
    for (const [field, value] of fields) pairs.push(field, value);
    const { ttlMs, maxBytes } = this.#options;
    await this.#script(ADMIT, [
      id,
      owner,
      String(this.#now()),
      String(ttlMs),
      String(maxBytes),
      String(bytes),
      ...pairs,
    ]);
  }

  /** Marks the owner's entry used and returns its header; another owner's entry is "missing". */
  async touch(id: string, owner: string): Promise<Touched> {
    const reply = (await this.#script(TOUCH, [
      id,
      owner,
      String(this.#now()),
      String(this.#options.ttlMs),
    ])) as Buffer[];
    const status = String(reply[0]);
    if (status === "ok") return { status, header: reply[1] as Buffer };
    if (status === "expired") return { status, reason: String(reply[1]) };
    return { status: "missing" };
  }

  async release(id: string, owner: string): Promise<void> {
    await this.#script(RELEASE, [id, owner]);
  }

  /** Adds a field to the owner's entry once (its bytes count toward the bound). */
  async addField(id: string, owner: string, field: string, value: Buffer): Promise<void> {
    await this.#script(FIELD, [id, owner, field, value]);
  }

  /** A field of the owner's entry, or undefined. */
  async field(id: string, owner: string, field: string): Promise<Buffer | undefined> {
    const value = await this.#script(FIELD, [id, owner, field, ""]);
    return Buffer.isBuffer(value) ? value : undefined;
  }

  /** Fields of an entry already touched, read without bookkeeping (a page's blocks). */
  async readFields(id: string, fields: string[]): Promise<Array<Buffer | null>> {
    return (await this.#run((client) => client.hmGet(this.#prefix + id, fields))) as Array<Buffer | null>;
  }

  /** Ends this instance's connection; the entries stay for the other replicas. */
  async close(): Promise<void> {
    this.#closed = true;
    // Destroyed, not quit: a QUIT would wait for a Redis that may not answer.
    this.#disconnect();
  }

  // ------------------------------------------------------------------------------------------

  /** How long Redis keeps an entry no replica has touched or swept. */
  #expiryMs(): number {
    const { ttlMs } = this.#options;
    return ttlMs + Math.max(ttlMs, SHARED_STORE_EXPIRY_GRACE_MS);
  }

  async #script(script: string, args: Array<string | Buffer>): Promise<unknown> {
    const sha = createHash("sha1").update(script).digest("hex");
    const options = {
      keys: [...this.#keys],
      arguments: [
        this.#prefix,
        String(this.#options.maxTombstones ?? KEPT_TOMBSTONES_MAX),
        String(this.#expiryMs()),
        ...args,
      ],
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

  /**
   * Runs one exchange with Redis, turning any failure to reach it into `store_unavailable`. A
   * Redis that does not answer within the bound (stopped, overloaded, a network black hole)
   * fails the call too, and its connection is dropped so the next call connects anew: the
   * client's own command timeouts do not cover a command already sent.
   */
  async #run<T>(exchange: (client: Client) => Promise<T>): Promise<T> {
    if (this.#closed) throw new EvidentError("cancelled", `${this.#options.tool} is shutting down.`);
    // Loaded before the bound starts: a slow module load on a busy machine is not Redis's silence.
    const redis = await clientModule();
    const work = this.#connection(redis).then(exchange);
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
  async #connection({ createClient, RESP_TYPES }: RedisModule): Promise<Client> {
    const current = await this.#client?.catch(() => undefined);
    if (current?.isReady === true) return current;
    current?.destroy();
    const client = createClient({
      url: this.#options.settings.url,
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
      this.#options.logger?.info("shared store reachable again", { store: this.#options.settings.shownUrl });
    this.#outage = false;
    return client;
  }

  /** Logs the first failure of an outage (every call during it fails and says so itself). */
  #report(error: unknown): void {
    if (this.#outage) return;
    this.#outage = true;
    this.#options.logger?.warn("shared store unreachable", {
      store: this.#options.settings.shownUrl,
      error: this.#scrub(error instanceof Error ? error.message : String(error)),
    });
  }

  #scrub(text: string): string {
    const { password } = this.#options.settings;
    return password === undefined ? text : text.split(password).join("***");
  }

  #unavailable(thrown: unknown): EvidentError {
    const { shownUrl } = this.#options.settings;
    const reason = this.#scrub(thrown instanceof Error ? thrown.message : String(thrown));
    if (/^(WRONGPASS|NOAUTH|NOPERM)\b/.test(reason)) {
      return new EvidentError(
        "configuration_error",
        `The shared store at ${shownUrl} refused evident's credentials (${reason.split(" ")[0]}); ` +
          `check the user and password in ${STORE_VARIABLE}.`,
        { cause: thrown, details: { key: STORE_VARIABLE } },
      );
    }
    return new EvidentError(
      "store_unavailable",
      `The shared store (${STORE_VARIABLE}, ${shownUrl}) cannot be reached (${reason}), so ` +
        `${this.#options.consequence}; retry shortly. Operators: check that Redis is running and reachable.`,
      { cause: thrown, details: { key: STORE_VARIABLE } },
    );
  }
}

/**
 * An owner as stored: keyed digests, so Redis never holds the caller key (or a credential); the
 * first 32 digits are its caller's (`keptParty`), so the scripts find a caller's own entries.
 */
export function ownerOf(key: Buffer, owner: string): string {
  const digest = (text: string) =>
    createHmac("sha256", key).update(`caller\0${text}`).digest().subarray(0, 16).toString("hex");
  return digest(keptParty(owner)) + digest(owner);
}

class NoAnswer extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = "NoAnswer";
  }
}
