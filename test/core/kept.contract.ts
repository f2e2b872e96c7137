/**
 * What every `KeptStore` promises (web_read's long pages), run against each store: memory and
 * file (kept.test.ts), Redis (redis-kept-store.test.ts). A factory makes a store with the given
 * bounds and clock; stores it makes are fresh (nothing kept yet).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type KeptStore, type KeptStoreBounds, KeptValueTooLarge } from "../../src/core/kept.js";
import { KEPT_ENTRY_MAX_SHARE } from "../../src/core/limits.js";

// A time to live far beyond any test's run on a loaded machine: tests that cross it move an
// injected clock; the others use the real one and must not see a value expire meanwhile.
export const BOUNDS = { ttlMs: 10 * 60_000, maxCount: 2, maxBytes: 1_000_000, redo: "read the URL again" };

export type KeptStoreFactory = (bounds: KeptStoreBounds) => KeptStore<string>;

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

    it("G12: evicts the least recently used beyond its count bound; the evicted id reads as cursor_expired", async () => {
      let now = Date.now();
      const store = make({ ...BOUNDS, now: () => now });
      const first = await store.put("alice", "1", 1);
      now += 10;
      const second = await store.put("alice", "2", 1);
      now += 10;
      assert.equal(await store.get("alice", first), "1");
      now += 10;
      const third = await store.put("alice", "3", 1);
      await assert.rejects(store.get("alice", second), (error: Error) => {
        assert.equal((error as { code?: string }).code, "cursor_expired");
        assert.match(error.message, /evicted; read the URL again/);
        return true;
      });
      assert.equal(await store.get("alice", first), "1");
      assert.equal(await store.get("alice", third), "3");
    });

    it("evicts the least recently used beyond its byte bound, only as many as it must", async () => {
      let now = Date.now();
      // Each value is within its share (a quarter of 9,000 bytes); five together are not.
      const store = make({ ...BOUNDS, maxCount: 10, maxBytes: 9_000, now: () => now });
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
      const store = make({ ...BOUNDS, maxCount: 10, maxBytes: 9_000, now: () => now });
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
      const store = make({ ...BOUNDS, maxCount: 10, maxBytes: 9_000, now: () => now });
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
  });
}
