/**
 * The shared (Redis) snapshot store against a real redis-server: the store contract, then what
 * only a store shared by replicas can get wrong (a second instance continuing cursors, bounds
 * across instances, page-by-page reads, stored callers, tampering, Redis going away).
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { RESP_TYPES } from "@redis/client";
import { loadMatches, parsedTable } from "../../../src/code/rg/match-table.js";
import { redisSnapshots, type SnapshotBounds } from "../../../src/code/snapshots/backends.js";
import {
  memorySnapshotStore,
  type SnapshotStore,
  searchSnapshot,
  selectionSignature,
  snapshotStore,
} from "../../../src/code/snapshots/store.js";
import { sharedStoreSettings } from "../../../src/config/settings.js";
import { KEPT_MIN_BYTES, SNAPSHOT_BLOCK_MATCHES } from "../../../src/core/limits.js";
import { deriveKeys } from "../../../src/core/redis/settings.js";
import { errorOf } from "../../fixtures/errors.js";
import { missing } from "../../fixtures/optional-tools.js";
import { type RedisServer, redisClient, startRedis } from "../../servers/services.js";
import { isRunning, treesRemovedAfter } from "../helpers.js";
import { ctx, errorCode, makeService, walk } from "../service-helpers.js";
import { errorCodeOf, snapshotData, snapshotStoreContract } from "./store.contract.js";

const skip = missing("redis-server");
let redis: RedisServer;
const stores: SnapshotStore[] = [];
const makeTree = treesRemovedAfter(after);

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

type Options = SnapshotBounds & { readonly timeoutMs?: number };

/** A store on the test's Redis; stores made with the same `key` are replicas of one deployment. */
function storeOn(url: string, key: string, options: Options = {}): SnapshotStore {
  const settings = sharedStoreSettings({ EVIDENT_SNAPSHOT_STORE: url, EVIDENT_CURSOR_KEY: key });
  assert.ok(settings !== undefined);
  const store = snapshotStore(redisSnapshots(settings, options));
  stores.push(store);
  return store;
}

function replica(key: string, options: Options = {}) {
  return storeOn(redis.url, key, options);
}

/** A raw client on the test's Redis, to look at (and damage) what the store keeps. */
const rawClient = () => redisClient(redis.url);

type RawClient = Awaited<ReturnType<typeof rawClient>>;

function binary(client: RawClient) {
  return client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
}

/** Bytes stored by one deployment (the sizes its bookkeeping counts). */
async function storedBytes(client: RawClient, key: string): Promise<number> {
  const meta = await client.hGetAll(`evident:${deriveKeys(key).namespace}:meta`);
  return Object.values(meta).reduce((sum, value) => sum + Number(value.split(" ")[1]), 0);
}

/** A snapshot of `count` parsed matches over `files` files, in path order. */
function snapshotOf(count: number, files = 1) {
  const per = Math.ceil(count / files);
  const list = Array.from({ length: count }, (_, i) => {
    const file = `src/f${String(Math.floor(i / per)).padStart(4, "0")}.ts`;
    const line = (i % per) + 1;
    const text = `const needle${i} = ${i};`;
    return {
      path: file,
      pathLossy: false,
      line,
      absoluteOffset: line * 30,
      text,
      textLossy: false,
      occurrences: [{ startByte: 6, endByte: 12, startColumn: 6, endColumn: 12 }],
    };
  });
  const fileRows = [...new Set(list.map((m) => m.path))].map((path) => {
    const n = list.filter((m) => m.path === path).length;
    return { path, key: path, matches: n, occurrences: n };
  });
  return { ...snapshotData(count * 40), matches: parsedTable(list), files: fileRows };
}

snapshotStoreContract("redis", (options) => replica(secret(), options), skip);

describe("code_search's results in Redis", { skip }, () => {
  it("G06: a second replica continues the first one's cursors, selections and releases", async () => {
    const key = secret();
    const one = replica(key);
    const two = replica(key);
    const data = snapshotOf(600, 3);
    const id = await one.put("http:alice", data);
    const sig = selectionSignature(["src/f0001.ts"]);
    await one.rememberSelection("http:alice", id, sig, ["src/f0001.ts"]);
    const cursor = one.encodeCursor({ snapshotId: id, offset: 5, kind: "matches", selection: sig });

    const state = two.decodeCursor(cursor);
    assert.deepEqual(state, { snapshotId: id, offset: 5, kind: "matches", selection: sig });
    const read = await searchSnapshot(two, "http:alice", id);
    assert.equal(read.matches.length, 600);
    assert.deepEqual(read.files, data.files);
    assert.deepEqual(await two.selection("http:alice", id, sig), ["src/f0001.ts"]);
    assert.equal(await errorCodeOf(() => two.get("http:bob", id)), "cursor_not_found");
    await two.release("http:alice", id);
    assert.equal(await errorCodeOf(() => one.get("http:alice", id)), "cursor_expired");
    assert.equal(await errorCodeOf(() => one.get("http:bob", id)), "cursor_not_found");
  });

  it("G12: a cursor signed under another EVIDENT_CURSOR_KEY (or by a memory store) is cursor_malformed", async () => {
    const store = replica(secret());
    const other = replica(secret());
    const id = await store.put("a", snapshotData());
    for (const foreign of [
      other.encodeCursor({ snapshotId: id, offset: 0, kind: "summary" }),
      memorySnapshotStore().encodeCursor({ snapshotId: id, offset: 0, kind: "summary" }),
    ]) {
      assert.equal(await errorCodeOf(() => store.decodeCursor(foreign)), "cursor_malformed");
    }
    // Another deployment's key also names other Redis keys: its snapshots are not found here.
    assert.equal(await errorCodeOf(() => other.get("a", id)), "cursor_not_found");
  });

  it("G12: the byte bound holds across replicas, counting what is stored; the newest is always kept", async () => {
    const key = secret();
    const probeKey = secret();
    await replica(probeKey).put("a", snapshotOf(300));
    const client = await rawClient();
    try {
      const stored = await storedBytes(client, probeKey);
      assert.ok(stored > 0);
      // Four fit, five do not.
      const one = replica(key, { maxBytes: Math.floor(stored * 4.5) });
      const two = replica(key, { maxBytes: Math.floor(stored * 4.5) });
      const old = await one.put("a", snapshotOf(300));
      await two.put("a", snapshotOf(300));
      await one.put("a", snapshotOf(300));
      await two.put("a", snapshotOf(300));
      const newest = await one.put("a", snapshotOf(300));
      assert.equal(await errorCodeOf(() => two.get("a", old)), "cursor_expired");
      assert.equal(await errorCodeOf(() => two.get("a", newest)), "no error");
      // The newest is kept within its share; over it, nothing is kept and it says so.
      const tiny = replica(secret(), { maxBytes: KEPT_MIN_BYTES });
      const kept = await tiny.put("a", snapshotOf(10));
      assert.equal(await errorCodeOf(() => tiny.get("a", kept)), "no error");
      assert.equal(await errorCodeOf(() => tiny.put("a", snapshotOf(300))), "configuration_error");
      assert.equal(await errorCodeOf(() => tiny.get("a", kept)), "no error");
    } finally {
      await client.close();
    }
  });

  it("G12: timed-out snapshots are swept on put and read as expired; tombstones are bounded", async () => {
    let now = 1_000_000;
    const key = secret();
    const store = replica(key, { ttlMs: 1000, now: () => now, maxTombstones: 3 });
    const idle = await store.put("a", snapshotData());
    now += 5000;
    await store.put("a", snapshotData());
    assert.equal(await errorCodeOf(() => store.get("a", idle)), "cursor_expired");
    for (let i = 0; i < 5; i++) await store.release("a", await store.put("a", snapshotData()));
    assert.equal(await errorCodeOf(() => store.get("a", idle)), "cursor_not_found");
    const client = await rawClient();
    try {
      const tombstones = await client.hLen(`evident:${deriveKeys(key).namespace}:gone`);
      assert.equal(tombstones, 3);
      // Nothing stays forever: Redis drops what no replica touches, the bookkeeping included.
      const namespace = `evident:${deriveKeys(key).namespace}:`;
      for (const name of await client.keys(`${namespace}*`)) {
        assert.ok((await client.pTTL(name)) > 0, name);
      }
    } finally {
      await client.close();
    }
  });

  it("keeps callers only as keyed digests: neither the caller key nor any credential is in Redis", async () => {
    const token = `tok-${randomBytes(16).toString("hex")}`;
    const caller = `http:${token}`;
    const store = replica(secret());
    const id = await store.put(caller, snapshotOf(10));
    await store.rememberSelection(caller, id, selectionSignature(["src/f0000.ts"]), ["src/f0000.ts"]);
    const client = await rawClient();
    try {
      const dump: Buffer[] = [];
      for (const name of await client.keys("evident:*")) {
        dump.push(Buffer.from(name));
        const type = await client.type(name);
        if (type === "hash") {
          const all = await binary(client).hGetAll(name);
          for (const [field, value] of Object.entries(all)) dump.push(Buffer.from(field), value);
        } else if (type === "zset") {
          dump.push(...(await binary(client).zRange(name, 0, -1)));
        }
      }
      const everything = Buffer.concat(dump);
      assert.ok(everything.length > 0);
      assert.equal(everything.includes(token), false);
      assert.equal(everything.includes(caller), false);
    } finally {
      await client.close();
    }
  });

  it("G12: an altered or swapped stored value reads as cursor_expired, never as other evidence", async () => {
    const key = secret();
    const store = replica(key);
    const client = await rawClient();
    try {
      for (const what of ["header", "block", "swapped block"] as const) {
        const id = await store.put("a", snapshotOf(SNAPSHOT_BLOCK_MATCHES * 2));
        const name = `evident:${deriveKeys(key).namespace}:s:${id}`;
        const raw = binary(client);
        if (what === "header") {
          const value = (await raw.hGet(name, "h")) as Buffer;
          value[value.length - 1] = (value[value.length - 1] ?? 0) ^ 1;
          await client.hSet(name, "h", value);
          const error = await errorOf(() => store.get("a", id));
          assert.equal(error.code, "cursor_expired", what);
          assert.match(error.message, /integrity check/);
          assert.equal(await errorCodeOf(() => store.get("a", id)), "cursor_expired", what);
          continue;
        }
        const b0 = (await raw.hGet(name, "b0")) as Buffer;
        const b1 = (await raw.hGet(name, "b1")) as Buffer;
        if (what === "block") b1[20] = (b1[20] ?? 0) ^ 1;
        await client.hSet(name, "b1", what === "block" ? b1 : b0);
        const data = await searchSnapshot(store, "a", id);
        const error = await errorOf(() => loadMatches(data.matches, [SNAPSHOT_BLOCK_MATCHES]));
        assert.equal(error.code, "cursor_expired", what);
      }
    } finally {
      await client.close();
    }
  });

  it("G01: a real search pages to the end across replicas, every match exactly once, reading page by page", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 100; i++) {
      files[`src/f${String(i).padStart(3, "0")}.ts`] = Array.from(
        { length: 40 },
        (_, j) => `export const needle${j} = "${randomBytes(30).toString("hex")}";`,
      ).join("\n");
    }
    const root = await makeTree(files);
    const key = secret();
    const one = makeService(root, { store: replica(key) });
    const two = makeService(root, { store: replica(key) });
    try {
      const summary = await one.run({ pattern: "needle" }, ctx("http:1"));
      assert.equal(summary.data.view, "summary");
      assert.equal(summary.data.totalMatches, 4000);
      const cursor = summary.data.cursor as string;

      const client = await rawClient();
      let stored = 0;
      let pageBytes = 0;
      try {
        stored = await storedBytes(client, key);
        const before = await netOutput(client);
        const first = await two.run({ cursor, limit: 50 }, ctx("http:1"));
        pageBytes = (await netOutput(client)) - before;
        const indices = await walk(two, first, { limit: 50 }, "http:1");
        assert.deepEqual(
          indices,
          Array.from({ length: 4000 }, (_, i) => i + 1),
        );
      } finally {
        await client.close();
      }
      // One page reads the header and a block or two, not the snapshot.
      assert.ok(pageBytes * 5 < stored, `a page read ${pageBytes} bytes of ${stored} stored`);

      const chosen = await one.run({ cursor, paths: ["src/f004.ts"], limit: 7 }, ctx("http:1"));
      const rest = await walk(two, chosen, {}, "http:1");
      assert.equal(rest.length, 40);
      assert.equal(await errorCode(two.run({ cursor }, ctx("http:2"))), "cursor_not_found");
    } finally {
      await one.close();
      await two.close();
    }
  });

  it("context lines around paged matches are the same as from memory", async () => {
    const lines = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? `hit ${i}` : `plain ${i}`));
    const root = await makeTree({ "a.txt": lines.join("\n"), "b.txt": "hit b\n" });
    const memory = makeService(root);
    const shared = makeService(root, { store: replica(secret()) });
    try {
      const pages: string[][] = [];
      for (const service of [memory, shared]) {
        const summary = await service.run({ pattern: "hit", mode: "summary" }, ctx("http:1"));
        const texts: string[] = [];
        let cursor = summary.data.cursor;
        while (cursor !== undefined) {
          const page = await service.run({ cursor, limit: 30, context: 4 }, ctx("http:1"));
          // Cursors differ by store key; everything else must be the same.
          texts.push(page.text.replace(/"cursor":"[^"]+"/g, ""));
          cursor = page.data.cursorKind === "matches" ? page.data.cursor : undefined;
        }
        pages.push(texts);
      }
      assert.ok((pages[0]?.length ?? 0) > 2);
      assert.deepEqual(pages[1], pages[0]);
    } finally {
      await memory.close();
      await shared.close();
    }
  });
});

describe("code_search's results in Redis when Redis is unreachable", { skip }, () => {
  it("fails with store_unavailable naming EVIDENT_SNAPSHOT_STORE, shows no password, and recovers when Redis is back", async () => {
    const own = await startRedis();
    try {
      const password = `pw-${randomBytes(8).toString("hex")}`;
      const key = secret();
      const store = storeOn(own.url, key);
      const id = await store.put("a", snapshotData());
      await own.stop();
      for (const call of [() => store.get("a", id), () => store.put("a", snapshotData())]) {
        const error = await errorOf(call);
        assert.equal(error.code, "store_unavailable");
        assert.match(error.message, /EVIDENT_SNAPSHOT_STORE/);
        assert.equal(error.details.key, "EVIDENT_SNAPSHOT_STORE");
      }
      const withPassword = storeOn(`redis://evident:${password}@127.0.0.1:${own.port}`, key);
      const refused = await errorOf(() => withPassword.put("a", snapshotData()));
      assert.equal(refused.code, "store_unavailable");
      assert.equal(refused.message.includes(password), false);
      assert.match(refused.message, /redis:\/\/127\.0\.0\.1:\d+/);

      // Redis back on the same port (empty): the next call connects again; nothing fell back to memory.
      const back = await startRedis(own.port);
      try {
        assert.equal(await errorCodeOf(() => store.get("a", id)), "cursor_not_found");
        const fresh = await store.put("a", snapshotData());
        assert.equal(await errorCodeOf(() => store.get("a", fresh)), "no error");
      } finally {
        await back.stop();
      }
    } finally {
      await own.stop();
    }
  });

  it("a Redis that stops answering fails calls with store_unavailable within the bound; the next call once it answers succeeds", async () => {
    const own = await startRedis();
    try {
      const store = storeOn(own.url, secret(), { timeoutMs: 2000 });
      const id = await store.put("a", snapshotData());
      process.kill(own.pid, "SIGSTOP");
      try {
        for (const call of [() => store.get("a", id), () => store.put("a", snapshotData())]) {
          const error = await errorOf(call);
          assert.equal(error.code, "store_unavailable");
          assert.match(error.message, /no answer within 2000 ms/);
        }
      } finally {
        process.kill(own.pid, "SIGCONT");
      }
      assert.equal(await errorCodeOf(() => store.get("a", id)), "no error");
      // Closing never waits for Redis.
      process.kill(own.pid, "SIGSTOP");
      try {
        await store.close();
      } finally {
        process.kill(own.pid, "SIGCONT");
      }
    } finally {
      await own.stop();
    }
  });

  it("a wrong password is configuration_error naming EVIDENT_SNAPSHOT_STORE, without the password", async () => {
    const password = `right-${randomBytes(8).toString("hex")}`;
    const guarded = await startRedis(undefined, ["--requirepass", password]);
    try {
      const wrong = `wrong-${randomBytes(8).toString("hex")}`;
      const store = storeOn(`redis://default:${wrong}@127.0.0.1:${guarded.port}`, secret());
      const error = await errorOf(() => store.put("a", snapshotData()));
      assert.equal(error.code, "configuration_error", error.message);
      assert.equal(error.details.key, "EVIDENT_SNAPSHOT_STORE");
      assert.equal(error.message.includes(wrong), false);
      const right = storeOn(`redis://default:${password}@127.0.0.1:${guarded.port}`, secret());
      const id = await right.put("a", snapshotData());
      assert.equal(await errorCodeOf(() => right.get("a", id)), "no error");
      await right.close();
    } finally {
      await guarded.stop();
    }
  });
});

async function netOutput(client: RawClient): Promise<number> {
  const info = String(await client.info("stats"));
  return Number(/total_net_output_bytes:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}
