/**
 * What every `KeptStore` backend promises, the one contract suite run against each: memory and
 * file (kept.test.ts), Redis (redis-kept-store.test.ts). A factory makes a store with the given
 * options; stores it makes are fresh (nothing kept yet). code_search's view of the same stores
 * has its own contract on top (test/code/snapshots/store.contract.ts).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type KeptOptions, type KeptStore, KeptValueTooLarge, redoErrors } from "../../src/core/kept.js";
import { KEPT_ENTRY_MAX_SHARE } from "../../src/core/limits.js";

// A time to live far beyond any test's run on a loaded machine: tests that cross it move an
// injected clock; the others use the real one and must not see a value expire meanwhile.
export const BOUNDS: KeptOptions = {
  ttlMs: 10 * 60_000,
  maxBytes: 1_000_000,
  errors: redoErrors("read the URL again"),
};

export type KeptStoreFactory = (options: KeptOptions) => KeptStore<string>;

/** `skip`: a store on a server that may be absent passes the test's `missing(...)`. */
export function keptStoreContract(kind: string, make: KeptStoreFactory, skip: string | false = false): void {
  describe(`${kind} kept store`, { skip }, () => {
    it("G12: gives a value back to its caller only; another caller and an unknown id get cursor_not_found", async () => {
      const now = Date.now();
      const store = make({ ...BOUNDS, now: () => now });
      const id = await store.put("alice", "page text", 9);
      assert.equal(await store.get("alice", id), "page text");
      await assert.rejects(store.get("bob", id), { code: "cursor_not_found" });
      await assert.rejects(store.get("alice", "0".repeat(32)), { code: "cursor_not_found" });
      await assert.rejects(store.get("alice", "not an id"), { code: "cursor_not_found" });
      assert.equal(await store.get("alice", id), "page text");
    });

    it("G12: expires a value unused for its time to live as cursor_expired, and says so", async () => {
      let now = Date.now();
      const store = make({ ...BOUNDS, now: () => now });
      const id = await store.put("alice", "old", 3);
      now += BOUNDS.ttlMs * 0.9;
      assert.equal(await store.get("alice", id), "old");
      now += BOUNDS.ttlMs * 0.9;
      // The time to live runs from the last use, not from the put.
      assert.equal(await store.get("alice", id), "old");
      now += BOUNDS.ttlMs + 1;
      await assert.rejects(store.get("alice", id), (error: Error) => {
        assert.equal((error as { code?: string }).code, "cursor_expired");
        assert.match(error.message, /timed out; read the URL again/);
        return true;
      });
      // Another caller still learns nothing about it.
      await assert.rejects(store.get("bob", id), { code: "cursor_not_found" });
    });

    it("G12: evicts the least recently used beyond its byte bound; the evicted id reads as cursor_expired", async () => {
      let now = Date.now();
      // Each value within its share (a quarter of 9,000 bytes); five together are not.
      const store = make({ ...BOUNDS, maxBytes: 9_000, now: () => now });
      const value = (c: string) => c.repeat(2_100);
      const first = await store.put("alice", value("1"), 2_100);
      now += 10;
      const second = await store.put("alice", value("2"), 2_100);
      for (const c of "34") {
        now += 10;
        await store.put("alice", value(c), 2_100);
      }
      now += 10;
      assert.equal(await store.get("alice", first), value("1"));
      now += 10;
      const fifth = await store.put("alice", value("5"), 2_100);
      await assert.rejects(store.get("alice", second), (error: Error) => {
        assert.equal((error as { code?: string }).code, "cursor_expired");
        assert.match(error.message, /evicted; read the URL again/);
        return true;
      });
      assert.equal(await store.get("alice", first), value("1"));
      assert.equal(await store.get("alice", fifth), value("5"));
    });

    it("evicts the least recently used beyond its byte bound, only as many as it must", async () => {
      let now = Date.now();
      // Each value is within its share (a quarter of 9,000 bytes); five together are not.
      const store = make({ ...BOUNDS, maxBytes: 9_000, now: () => now });
      const big = (c: string) => c.repeat(2_000);
      const ids: string[] = [];
      for (const c of "abcd") {
        ids.push(await store.put("alice", big(c), 2_000));
        now += 10;
      }
      assert.equal(await store.get("alice", ids[0] as string), big("a"));
      now += 10;
      const fifth = await store.put("alice", big("e"), 2_000);
      await assert.rejects(store.get("alice", ids[1] as string), { code: "cursor_expired" });
      for (const index of [0, 2, 3])
        assert.equal(await store.get("alice", ids[index] as string), big("abcd"[index] as string));
      assert.equal(await store.get("alice", fifth), big("e"));
    });

    it("makes room from the caller's own values first, then from the least recently used of everyone's", async () => {
      let now = Date.now();
      const store = make({ ...BOUNDS, maxBytes: 9_000, now: () => now });
      const value = (c: string) => c.repeat(2_000);
      const bobs = await store.put("bob", value("b"), 2_000);
      const alices: string[] = [];
      for (const c of "1234") {
        now += 10;
        alices.push(await store.put("alice", value(c), 2_000));
      }
      // Bob's value is the least recently used, yet Alice's oldest made the room.
      assert.equal(await store.get("bob", bobs), value("b"));
      await assert.rejects(store.get("alice", alices[0] as string), { code: "cursor_expired" });
      for (const [index, id] of alices.entries()) {
        now += 10; // so the file store's modification times order the uses too
        if (index > 0) assert.equal(await store.get("alice", id), value("1234"[index] as string));
      }
      // A caller with nothing of its own kept evicts the least recently used of everyone's.
      now += 10;
      const carols = await store.put("carol", value("c"), 2_000);
      await assert.rejects(store.get("bob", bobs), { code: "cursor_expired" });
      assert.equal(await store.get("carol", carols), value("c"));
    });

    it("refuses a value over its share of the byte bound (KEPT_ENTRY_MAX_SHARE), evicting nothing for it", async () => {
      let now = Date.now();
      const store = make({ ...BOUNDS, maxBytes: 9_000, now: () => now });
      assert.equal(store.entryMaxBytes, Math.floor(9_000 * KEPT_ENTRY_MAX_SHARE));
      const other = await store.put("bob", "b".repeat(1_000), 1_000);
      now += 10;
      // Over the share, yet within the whole bound: before, it evicted bob's value to make room.
      const huge = "h".repeat(8_000);
      await assert.rejects(store.put("alice", huge, 8_000), (error: unknown) => {
        assert.ok(error instanceof KeptValueTooLarge);
        assert.equal(error.maxBytes, store.entryMaxBytes);
        assert.ok(error.bytes > store.entryMaxBytes);
        return true;
      });
      // Larger than the whole bound: refused as well, not kept while everyone else goes.
      await assert.rejects(store.put("alice", huge.repeat(3), 24_000), KeptValueTooLarge);
      assert.equal(await store.get("bob", other), "b".repeat(1_000));
      // A value within its share is kept as before.
      const fits = await store.put("alice", "f".repeat(2_000), 2_000);
      assert.equal(await store.get("alice", fits), "f".repeat(2_000));
      assert.equal(await store.get("bob", other), "b".repeat(1_000));
    });

    it("keeps structured values whole, text of any kind included", async () => {
      const now = Date.now();
      const store = make({ ...BOUNDS, now: () => now }) as unknown as KeptStore<unknown>;
      const value = { text: 'naïve 日本語 \u2028 "quoted" \\ 😀', warnings: ["w"], n: 3 };
      const id = await store.put("alice", value, 64);
      assert.deepEqual(await store.get("alice", id), value);
      assert.equal(store.key().length, 32);
    });

    it("G12: a released value reads as cursor_expired for its owner; another caller can release nothing", async () => {
      const store = make(BOUNDS);
      const id = await store.put("alice", "page", 4);
      await store.release("bob", id);
      assert.equal(await store.get("alice", id), "page");
      await store.release("alice", id);
      await assert.rejects(store.get("alice", id), (error: Error) => {
        assert.equal((error as { code?: string }).code, "cursor_expired");
        assert.match(error.message, /released; read the URL again/);
        return true;
      });
      await assert.rejects(store.get("bob", id), { code: "cursor_not_found" });
      await store.release("alice", "not an id");
    });

    it("adds a part to its owner's value once, gives it to that owner only, and drops it with the value", async () => {
      const store = make(BOUNDS);
      const id = await store.put("alice", "page", 4);
      await store.addPart("bob", id, "s1", Buffer.from("bob's"));
      assert.equal(await store.part("alice", id, "s1"), undefined);
      await store.addPart("alice", id, "s1", Buffer.from("first"));
      await store.addPart("alice", id, "s1", Buffer.from("second"));
      assert.deepEqual(await store.part("alice", id, "s1"), Buffer.from("first"));
      assert.equal(await store.part("bob", id, "s1"), undefined);
      assert.equal(await store.part("alice", id, "s2"), undefined);
      assert.equal(await store.part("alice", id, "not a name!"), undefined);
      assert.equal(await store.get("alice", id), "page");
      await store.release("alice", id);
      assert.equal(await store.part("alice", id, "s1"), undefined);
    });

    it("counts a value's parts toward its byte bound", async () => {
      let now = Date.now();
      const store = make({ ...BOUNDS, maxBytes: 20_000, now: () => now });
      const first = await store.put("alice", "1", 2);
      now += 10;
      const second = await store.put("alice", "2", 2);
      await store.addPart("alice", second, "p", Buffer.alloc(11_100, 1));
      now += 10;
      assert.equal(await store.get("alice", first), "1");
      // Two values of 4,500 bytes fit beside the two small ones, not beside the second's part.
      for (const c of "xy") {
        now += 10;
        await store.put("alice", c.repeat(4_500), 4_500);
      }
      await assert.rejects(store.get("alice", second), { code: "cursor_expired" });
      assert.equal(await store.get("alice", first), "1");
    });

    it("remembers a bounded number of ids it let go of; older ones read as cursor_not_found", async () => {
      let now = Date.now();
      const store = make({ ...BOUNDS, maxTombstones: 3, now: () => (now += 10) });
      const first = await store.put("alice", "1", 1);
      await store.release("alice", first);
      await assert.rejects(store.get("alice", first), { code: "cursor_expired" });
      for (let i = 0; i < 5; i++) await store.release("alice", await store.put("alice", String(i), 1));
      await store.put("alice", "last", 4);
      await assert.rejects(store.get("alice", first), { code: "cursor_not_found" });
    });

    it("serves nothing after close", async () => {
      const store = make(BOUNDS);
      const id = await store.put("alice", "page", 4);
      await store.close();
      await assert.rejects(store.get("alice", id));
    });
  });
}
