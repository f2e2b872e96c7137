/**
 * Kept state behind cursors (web_read's long pages): bound to the caller, expiring, bounded, and
 * cursors that cannot be forged, in memory and on disk alike.
 */
import assert from "node:assert/strict";
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { FileKeptStore } from "../../src/core/file-kept-store.js";
import { CursorMac, type KeptStore, MemoryKeptStore } from "../../src/core/kept.js";

const base = await mkdtemp(join(tmpdir(), "evident-kept-"));
after(() => rm(base, { recursive: true, force: true }));

const BOUNDS = { ttlMs: 1_000, maxCount: 2, maxBytes: 1_000_000, redo: "read the URL again" };
let dirs = 0;

const kinds: Array<[string, (now: () => number) => KeptStore<string>]> = [
  ["memory", (now) => new MemoryKeptStore<string>({ ...BOUNDS, now })],
  [
    "file",
    (now) =>
      new FileKeptStore<string>({
        ...BOUNDS,
        now,
        dir: join(base, `store-${dirs++}`),
      }),
  ],
];

for (const [kind, make] of kinds) {
  describe(`${kind} kept store`, () => {
    it("gives a value back to its caller only; another caller learns nothing", async () => {
      const store = make(Date.now);
      const id = await store.put("alice", "page text", 9);
      assert.equal(await store.get("alice", id), "page text");
      await assert.rejects(store.get("bob", id), { code: "cursor_not_found" });
      await assert.rejects(store.get("alice", "0".repeat(32)), { code: "cursor_not_found" });
    });

    it("G12: expires a value unused for its time to live as cursor_expired, and says so", async () => {
      let now = Date.now();
      const store = make(() => now);
      const id = await store.put("alice", "old", 3);
      now += 900;
      assert.equal(await store.get("alice", id), "old");
      now += 1_001;
      await assert.rejects(store.get("alice", id), (error: Error) => {
        assert.equal((error as { code?: string }).code, "cursor_expired");
        assert.match(error.message, /timed out; read the URL again/);
        return true;
      });
    });

    it("evicts the least recently used beyond its count bound", async () => {
      let now = Date.now();
      const store = make(() => now);
      const first = await store.put("alice", "1", 1);
      now += 10;
      const second = await store.put("alice", "2", 1);
      now += 10;
      assert.equal(await store.get("alice", first), "1");
      now += 10;
      await store.put("alice", "3", 1);
      await assert.rejects(store.get("alice", second), { code: "cursor_expired" });
      assert.equal(await store.get("alice", first), "1");
    });
  });
}

describe("file kept store on disk", () => {
  it("keeps its directory private and refuses one writable by others", async () => {
    const dir = join(base, "private");
    const store = new FileKeptStore<string>({ ...BOUNDS, dir });
    const id = await store.put("alice", "x", 1);
    const names = await readdir(dir);
    assert.ok(names.includes("cursor.key") && names.includes(`${id}.kept`));
    await chmod(dir, 0o777);
    const again = new FileKeptStore<string>({ ...BOUNDS, dir });
    await assert.rejects(again.put("alice", "y", 1), (error: Error) => {
      assert.equal((error as { code?: string }).code, "configuration_error");
      assert.match(error.message, /EVIDENT_CACHE_DIR/);
      return true;
    });
  });

  it("an edited value file is an expired cursor, never other content; the next process shares the key", async () => {
    const dir = join(base, "edited");
    const store = new FileKeptStore<string>({ ...BOUNDS, dir });
    const id = await store.put("alice", "the real text", 13);
    const next = new FileKeptStore<string>({ ...BOUNDS, dir });
    assert.deepEqual(next.key(), store.key());
    assert.equal(await next.get("alice", id), "the real text");
    const path = join(dir, `${id}.kept`);
    await writeFile(path, (await readFile(path, "utf8")).replace("the real text", "forged words!"));
    await assert.rejects(next.get("alice", id), { code: "cursor_expired" });
  });
});

describe("cursor MAC", () => {
  const key = Buffer.alloc(32, 7);
  const mac = new CursorMac(key, 1, "elsewhere");

  it("G12: round-trips an id and offset, and refuses edited, truncated, foreign-key or other-kind tokens as cursor_malformed", () => {
    const token = mac.encode({ id: "ab".repeat(16), offset: 12_345 });
    assert.deepEqual(mac.decode(token), { id: "ab".repeat(16), offset: 12_345 });
    const flipped = `${token.slice(0, 5)}${token[5] === "A" ? "B" : "A"}${token.slice(6)}`;
    for (const bad of [flipped, token.slice(0, -1), "not a cursor!", ""]) {
      assert.throws(() => mac.decode(bad), { code: "cursor_malformed" });
    }
    assert.throws(() => new CursorMac(Buffer.alloc(32, 8), 1, "x").decode(token), {
      code: "cursor_malformed",
    });
    assert.throws(() => new CursorMac(key, 2, "x").decode(token), { code: "cursor_malformed" });
  });
});
