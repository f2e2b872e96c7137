/**
 * The shared (Redis) kept store against a real redis-server: the kept-store contract, then what
 * only a store shared by replicas can get wrong (a second instance continuing values, bounds
 * across instances, stored callers, tampering, living beside code_search's snapshots, Redis
 * going away).
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { RESP_TYPES } from "@redis/client";
import { sharedStoreSettings } from "../../src/config/settings.js";
import type { EvidentError } from "../../src/core/errors.js";
import { CursorMac, type KeptOptions } from "../../src/core/kept.js";
import { RedisKeptStore, type RedisKeptStoreOptions } from "../../src/core/redis/kept-store.js";
import { deriveKeys } from "../../src/core/redis/settings.js";
import { isRunning } from "../code/helpers.js";
import { errorCodeOf } from "../code/snapshots/store.contract.js";
import { errorOf } from "../fixtures/errors.js";
import { missing } from "../fixtures/optional-tools.js";
import { type RedisServer, redisClient, startRedis } from "../servers/services.js";
import { BOUNDS, keptStoreContract } from "./kept.contract.js";

const skip = missing("redis-server");
let redis: RedisServer;
const stores: RedisKeptStore<unknown>[] = [];

before(async () => {
  if (!skip) redis = await startRedis();
});
after(async () => {
  if (skip) return;
  await Promise.all(stores.map((store) => store.close()));
  await redis.stop();
  assert.equal(isRunning(redis.pid), false, "redis-server left running");
});

function secret(): string {
  return randomBytes(24).toString("base64url");
}

type Extra = Partial<Pick<RedisKeptStoreOptions<unknown>, "timeoutMs" | "scope">>;

/** A store on `url`; stores made with the same `key` are replicas of one deployment. */
function storeOn<T = string>(
  url: string,
  key: string,
  bounds: KeptOptions = BOUNDS,
  extra: Extra = {},
): RedisKeptStore<T> {
  const settings = sharedStoreSettings({ EVIDENT_SNAPSHOT_STORE: url, EVIDENT_CURSOR_KEY: key });
  assert.ok(settings !== undefined);
  const store = new RedisKeptStore<T>({
    ...bounds,
    settings,
    keys: { cursor: settings.keys.keptCursor, data: settings.keys.keptData },
    scope: "pages:",
    tool: "web_read",
    consequence: "web_read cannot keep or continue long pages",
    ...extra,
  });
  stores.push(store as RedisKeptStore<unknown>);
  return store;
}

function replica<T = string>(key: string, bounds: KeptOptions = BOUNDS): RedisKeptStore<T> {
  return storeOn<T>(redis.url, key, bounds);
}

/** A raw client on the test's Redis, to look at (and damage) what the store keeps. */
const rawClient = () => redisClient(redis.url);

keptStoreContract("redis", (bounds) => replica(secret(), bounds), skip);

describe("redis kept store, shared by replicas", { skip }, () => {
  it("G12: a second replica continues the first one's values under the same cursor key; another caller gets cursor_not_found", async () => {
    const key = secret();
    const one = replica(key);
    const two = replica(key);
    const id = await one.put("http:alice", "the long page", 13);
    assert.deepEqual(two.key(), one.key());
    const cursor = new CursorMac(one.key(), 0x57, "x").encode({ id, offset: 7 });
    assert.deepEqual(new CursorMac(two.key(), 0x57, "x").decode(cursor), { id, offset: 7 });
    assert.equal(await two.get("http:alice", id), "the long page");
    assert.equal(await errorCodeOf(() => two.get("http:bob", id)), "cursor_not_found");
    // The key is not the snapshot cursors' key, nor any other deployment's.
    assert.notDeepEqual(one.key(), deriveKeys(key).cursor);
    const other = replica(secret());
    assert.notDeepEqual(other.key(), one.key());
    assert.throws(
      () => new CursorMac(other.key(), 0x57, other.foreign).decode(cursor),
      (error: Error) => {
        assert.equal((error as EvidentError).code, "cursor_malformed");
        assert.match(error.message, /another EVIDENT_CURSOR_KEY/);
        return true;
      },
    );
    // Another deployment's key names other Redis keys: the value is not found there.
    assert.equal(await errorCodeOf(() => other.get("http:alice", id)), "cursor_not_found");
  });

  it("G12: the byte bound and the time to live hold across replicas, least recently used evicted first", async () => {
    let now = Date.now();
    const key = secret();
    const bounds = { ...BOUNDS, maxBytes: 9_000, now: () => now };
    const one = replica(key, bounds);
    const two = replica(key, bounds);
    const value = (c: string) => c.repeat(2_100);
    const first = await one.put("a", value("1"), 2_100);
    now += 10;
    const second = await two.put("a", value("2"), 2_100);
    now += 10;
    assert.equal(await two.get("a", first), value("1"));
    now += 10;
    await one.put("a", value("3"), 2_100);
    await two.put("a", value("4"), 2_100);
    await one.put("a", value("5"), 2_100);
    assert.equal(await errorCodeOf(() => one.get("a", second)), "cursor_expired");
    assert.equal(await one.get("a", first), value("1"));
    now += BOUNDS.ttlMs + 1;
    assert.equal(await errorCodeOf(() => two.get("a", first)), "cursor_expired");
  });

  it("stores callers only as keyed digests and values under a MAC; an edited value is cursor_expired, never other content", async () => {
    const key = secret();
    const store = replica(key);
    const id = await store.put("http:carol-caller-key", "the real text", 13);
    const client = await rawClient();
    try {
      const binary = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
      const namespace = `evident:${deriveKeys(key).namespace}:pages:`;
      const everything: Buffer[] = [];
      for (const name of await client.keys(`${namespace}*`)) {
        const type = await client.type(name);
        if (type === "hash")
          for (const [f, v] of Object.entries(await binary.hGetAll(name))) everything.push(Buffer.from(f), v);
        if (type === "zset") everything.push(...(await binary.zRange(name, 0, -1)));
      }
      const all = Buffer.concat(everything);
      assert.ok(all.includes("the real text"));
      assert.equal(all.includes("carol-caller-key"), false);

      const entry = `${namespace}s:${id}`;
      const stored = (await binary.hGet(entry, "h")) as Buffer;
      await binary.hSet(
        entry,
        "h",
        Buffer.from(stored.toString("latin1").replace("the real text", "forged words!"), "latin1"),
      );
      const error = await errorOf(() => store.get("http:carol-caller-key", id));
      assert.equal(error.code, "cursor_expired");
      assert.match(error.message, /damaged/);

      // A value swapped in from another id fails its MAC too.
      const a = await store.put("x", "value a", 7);
      const b = await store.put("x", "value b", 7);
      await binary.hSet(`${namespace}s:${b}`, "h", (await binary.hGet(`${namespace}s:${a}`, "h")) as Buffer);
      assert.equal(await errorCodeOf(() => store.get("x", b)), "cursor_expired");
      assert.equal(await store.get("x", a), "value a");
    } finally {
      await client.close();
    }
  });

  it("keeps its bookkeeping apart from code_search's snapshots in the same deployment", async () => {
    const key = secret();
    const pages = replica(key, { ...BOUNDS, maxBytes: 400 });
    const other = storeOn(redis.url, key, { ...BOUNDS, maxBytes: 400 }, { scope: "other:" });
    const id = await pages.put("a", "page", 4);
    // Over its own bound several times, the other scope evicts only its own values.
    for (let i = 0; i < 8; i++) await other.put("a", `${i}`.repeat(40), 40);
    // Each scope has its own byte bound: neither evicted the other's value, nor sees it.
    assert.equal(await pages.get("a", id), "page");
    assert.equal(await errorCodeOf(() => other.get("a", id)), "cursor_not_found");
    const client = await rawClient();
    try {
      const namespace = `evident:${deriveKeys(key).namespace}:`;
      assert.equal(await client.zCard(`${namespace}pages:index`), 1);
      assert.equal(await client.exists(`${namespace}index`), 0);
    } finally {
      await client.close();
    }
  });
});

describe("redis kept store when Redis is unreachable", { skip }, () => {
  it("fails with store_unavailable naming EVIDENT_SNAPSHOT_STORE and web_read, shows no password, never falls back to memory, and recovers", async () => {
    const own = await startRedis();
    try {
      const key = secret();
      const store = storeOn(own.url, key);
      const id = await store.put("a", "kept", 4);
      await own.stop();
      for (const call of [() => store.get("a", id), () => store.put("a", "new", 3)]) {
        const error = await errorOf(call);
        assert.equal(error.code, "store_unavailable");
        assert.match(error.message, /EVIDENT_SNAPSHOT_STORE/);
        assert.match(error.message, /web_read cannot keep or continue long pages/);
        assert.equal(error.details.key, "EVIDENT_SNAPSHOT_STORE");
      }
      const password = `pw-${randomBytes(8).toString("hex")}`;
      const withPassword = storeOn(`redis://evident:${password}@127.0.0.1:${own.port}`, key);
      const refused = await errorOf(() => withPassword.put("a", "x", 1));
      assert.equal(refused.code, "store_unavailable");
      assert.equal(refused.message.includes(password), false);

      // Redis back on the same port (empty): the next call connects again; the value kept
      // before is gone with Redis's data (not found), and nothing was kept in memory meanwhile.
      const back = await startRedis(own.port);
      try {
        assert.equal(await errorCodeOf(() => store.get("a", id)), "cursor_not_found");
        const fresh = await store.put("a", "fresh", 5);
        assert.equal(
          await replica<string>(key)
            .get("a", fresh)
            .catch(() => "elsewhere"),
          "elsewhere",
        );
        assert.equal(await storeOn(back.url, key).get("a", fresh), "fresh");
      } finally {
        await back.stop();
      }
    } finally {
      await own.stop();
    }
  });

  it("a Redis that stops answering fails calls with store_unavailable within the bound", async () => {
    const own = await startRedis();
    try {
      const key = secret();
      // Written through a store with the default bound: on a loaded machine connecting and
      // writing can take longer than the short bound under test.
      const id = await storeOn(own.url, key).put("a", "kept", 4);
      const store = storeOn(own.url, key, BOUNDS, { timeoutMs: 1500 });
      // Connected before Redis stops, so the call below is sent on a live connection; if this
      // first call outlasts the bound, the store connects again, and Redis's silence is the same.
      await store.get("a", id).catch(() => undefined);
      process.kill(own.pid, "SIGSTOP");
      try {
        const error = await errorOf(() => store.get("a", id));
        assert.equal(error.code, "store_unavailable");
        assert.match(error.message, /no answer within 1500 ms/);
      } finally {
        process.kill(own.pid, "SIGCONT");
      }
      assert.equal(await store.get("a", id), "kept");
    } finally {
      await own.stop();
    }
  });
});
