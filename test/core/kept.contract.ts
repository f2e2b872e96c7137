/**
 * What every `KeptStore` promises (web_read's long pages), run against each store: memory and
 * file (kept.test.ts), Redis (redis-kept-store.test.ts). A factory makes a store with the given
 * bounds and clock; stores it makes are fresh (nothing kept yet).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KeptStore, KeptStoreBounds } from "../../src/core/kept.js";

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

    it("evicts the least recently used beyond its byte bound, never the value just kept", async () => {
      let now = Date.now();
      const store = make({ ...BOUNDS, maxCount: 10, maxBytes: 10_000, now: () => now });
      const big = (c: string) => c.repeat(4_000);
      const first = await store.put("alice", big("a"), 4_000);
      now += 10;
      const second = await store.put("alice", big("b"), 4_000);
      now += 10;
      assert.equal(await store.get("alice", first), big("a"));
      now += 10;
      const third = await store.put("alice", big("c"), 4_000);
      await assert.rejects(store.get("alice", second), { code: "cursor_expired" });
      assert.equal(await store.get("alice", first), big("a"));
      assert.equal(await store.get("alice", third), big("c"));
      // A value larger than the whole bound is still kept (its cursor must work once).
      now += 10;
      const huge = await store.put("alice", big("d").repeat(3), 12_000);
      assert.equal(await store.get("alice", huge), big("d").repeat(3));
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
