/**
 * Kept state behind cursors (web_read's long pages): bound to the caller, expiring, bounded, and
 * cursors that cannot be forged, in memory and on disk alike (the contract: kept.contract.ts).
 */
import assert from "node:assert/strict";
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { FileKeptStore } from "../../src/core/file-kept-store.js";
import { CursorMac, MemoryKeptStore } from "../../src/core/kept.js";
import { BOUNDS, keptStoreContract } from "./kept.contract.js";

const base = await mkdtemp(join(tmpdir(), "evident-kept-"));
after(() => rm(base, { recursive: true, force: true }));

let dirs = 0;

keptStoreContract("memory", (bounds) => new MemoryKeptStore<string>(bounds));
keptStoreContract(
  "file",
  (bounds) => new FileKeptStore<string>({ ...bounds, dir: join(base, `store-${dirs++}`) }),
);

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
