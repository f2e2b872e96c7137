/**
 * Kept state behind cursors (web_read's long pages): bound to the caller, expiring, bounded, and
 * cursors that cannot be forged, in memory and on disk alike (the contract: kept.contract.ts).
 */
import assert from "node:assert/strict";
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { FileKeptStore, type FileKeptStoreOptions } from "../../src/core/file-kept-store.js";
import { CursorMac, type KeptOptions, keptBytes, keptPrefix, redoErrors } from "../../src/core/kept.js";
import { KeptPool, MemoryKeptStore } from "../../src/core/kept-memory.js";
import {
  ANALYSIS_MAX_BYTES,
  KEPT_ENTRY_MAX_SHARE,
  KEPT_MAX_BYTES,
  SNAPSHOT_MAX_BYTES,
} from "../../src/core/limits.js";
import { ReadPages } from "../../src/web/read-pages.js";
import { BOUNDS, keptStoreContract } from "./kept.contract.js";

const base = await mkdtemp(join(tmpdir(), "evident-kept-"));
after(() => rm(base, { recursive: true, force: true }));

let dirs = 0;

function onDisk(dir: string, options: KeptOptions = BOUNDS): FileKeptStoreOptions<string> {
  return { ...options, dir, tool: "web_read" };
}

keptStoreContract("memory", (options) => new MemoryKeptStore<string>(options));
keptStoreContract(
  "file",
  (options) => new FileKeptStore<string>(onDisk(join(base, `store-${dirs++}`), options)),
);

describe("memory stores sharing a pool (a surface's code_search and web_read)", () => {
  it("hold one byte bound together, each seeing and closing only its own values", async () => {
    const pool = new KeptPool();
    let now = Date.now();
    const options = { ...BOUNDS, maxBytes: 9_000, now: () => now, pool };
    const pages = new MemoryKeptStore<string>(options);
    const results = new MemoryKeptStore<string>({ ...options, errors: redoErrors("run the search again") });
    const page = await pages.put("alice", "p".repeat(2_000), 2_000);
    const kept: string[] = [];
    for (const c of "abc") {
      now += 10;
      kept.push(await results.put("alice", c.repeat(2_000), 2_000));
    }
    now += 10;
    // Over the one bound: the least recent of the pool goes, the other store's page.
    await results.put("alice", "d".repeat(2_000), 2_000);
    await assert.rejects(pages.get("alice", page), /evicted; read the URL again/);
    // Neither store sees the other's values, not even under the same owner.
    await assert.rejects(pages.get("alice", kept[0] as string), { code: "cursor_not_found" });
    assert.equal(await results.get("alice", kept[0] as string), "a".repeat(2_000));
    const next = await pages.put("alice", "q", 1);
    await pages.close();
    assert.equal(await results.get("alice", kept[1] as string), "b".repeat(2_000));
    await assert.rejects(pages.get("alice", next), { code: "cursor_not_found" });
    assert.equal(results.size, 4);
  });
});

describe("file kept store on disk", () => {
  it("keeps its directory private and refuses one writable by others", async () => {
    const dir = join(base, "private");
    const store = new FileKeptStore<string>(onDisk(dir));
    const id = await store.put("alice", "x", 1);
    const names = await readdir(dir);
    assert.ok(names.includes("cursor.key") && names.includes(`${id}.kept`));
    await chmod(dir, 0o777);
    const again = new FileKeptStore<string>(onDisk(dir));
    await assert.rejects(again.put("alice", "y", 1), (error: Error) => {
      assert.equal((error as { code?: string }).code, "configuration_error");
      assert.match(error.message, /EVIDENT_CACHE_DIR/);
      return true;
    });
  });

  it("an edited value file is an expired cursor, never other content; the next process shares the key", async () => {
    const dir = join(base, "edited");
    const store = new FileKeptStore<string>(onDisk(dir));
    const id = await store.put("alice", "the real text", 13);
    const next = new FileKeptStore<string>(onDisk(dir));
    assert.deepEqual(next.key(), store.key());
    assert.equal(await next.get("alice", id), "the real text");
    const path = join(dir, `${id}.kept`);
    await writeFile(path, (await readFile(path, "utf8")).replace("the real text", "forged words!"));
    await assert.rejects(next.get("alice", id), { code: "cursor_expired" });
  });
});

describe("file kept store, large values", () => {
  it("an evicted value of several MiB still reads as cursor_expired for its owner", async () => {
    const dir = join(base, "large");
    let now = Date.now();
    const store = new FileKeptStore<string>(
      onDisk(dir, { ...BOUNDS, maxBytes: 16 * 1024 * 1024, now: () => now }),
    );
    const size = 3.5 * 1024 * 1024;
    const large = await store.put("alice", "x".repeat(size), size);
    // Five of them are over the bound: the least recently used goes.
    for (const c of "abcd") {
      now += 10;
      await store.put("alice", c.repeat(size), size);
    }
    await assert.rejects(store.get("alice", large), { code: "cursor_expired" });
    await assert.rejects(store.get("bob", large), { code: "cursor_not_found" });
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

describe("what a kept value weighs, and the prefix that fits", () => {
  // Every kind of UTF-16 unit: ASCII, escapes, control characters, 2- and 3-byte UTF-8, a pair, lone surrogates.
  const text = 'ab"\\\n\t\u0001\u00e9\u65e5\ud83d\ude00\ud800x\udc00y\u2028';

  it("counts at least what every store holds: JSON in UTF-8, and two bytes per UTF-16 unit", () => {
    for (const value of [text, { text, n: 1 }, [text, text]]) {
      const json = JSON.stringify(value);
      assert.ok(keptBytes(value) >= Buffer.byteLength(json));
      assert.ok(keptBytes(value) >= 2 * json.length);
    }
  });

  it("gives the longest prefix within a byte budget, never splitting a surrogate pair", () => {
    let last = -1;
    for (let budget = 0; budget <= keptBytes(text) + 4; budget++) {
      const { length, bytes } = keptPrefix(text, budget);
      assert.ok(bytes <= budget, `budget ${budget}`);
      assert.ok(length >= last, "longer budgets never give shorter prefixes");
      last = length;
      const prefix = text.slice(0, length);
      // The prefix weighs what was counted (less the two quotes of its JSON string) ...
      assert.equal(bytes, keptBytes(prefix) - 4);
      // ... it never ends inside a pair, and one more character would not fit.
      const high = (at: number) => text.charCodeAt(at) >= 0xd800 && text.charCodeAt(at) <= 0xdbff;
      const low = (at: number) => text.charCodeAt(at) >= 0xdc00 && text.charCodeAt(at) <= 0xdfff;
      assert.ok(!(high(length - 1) && low(length)), `budget ${budget} splits a pair`);
      if (length < text.length) {
        const next = length + (high(length) && low(length + 1) ? 2 : 1);
        assert.ok(keptBytes(text.slice(0, next)) - 4 > budget, `budget ${budget}: one more would fit`);
      }
    }
    assert.equal(keptPrefix(text, keptBytes(text)).length, text.length);
  });
});

describe("web_read's kept pages over their share", () => {
  const provenance = {
    tool: "web_read",
    url: "http://example.test/huge",
    mode: "route",
    attempted: ["direct"],
    succeeded: ["direct"],
    anonymous: [],
    retrievedAt: "2026-01-01T00:00:00.000Z",
  } as never;

  it("keeps the longest prefix that fits its share, says so, and its cursors end there", async () => {
    const store = new MemoryKeptStore<never>({ ...BOUNDS, maxBytes: 400_000 });
    const pages = new ReadPages(store as never);
    const other = await pages.keep("bob", { provenance, warnings: [], text: "b".repeat(20_000) });
    const huge = "x".repeat(300_000);
    const keeping = await pages.keep("alice", { provenance, warnings: [], text: huge });
    assert.match(
      keeping.warning ?? "",
      /^only the first \d+ of the page's 300000 characters are kept for cursors/,
    );
    const first = keeping.cursor(1_000);
    assert.ok(first !== undefined);
    const { page, cursor } = await pages.resume("alice", first);
    assert.ok(page.text.length < huge.length && page.text.length > 0);
    assert.equal(page.total, huge.length);
    assert.ok(keptBytes(page) <= store.entryMaxBytes);
    assert.ok(page.warnings.includes(keeping.warning as string), "every part repeats the cut");
    assert.equal(cursor(page.text.length), undefined, "no cursor past what is kept");
    // The other caller's page was not evicted for it.
    const bobs = other.cursor(0);
    assert.equal((await pages.resume("bob", bobs as string)).page.text.length, 20_000);
  });

  it("keeps the prefix exactly, whatever its characters (Latin-1, wider, lone surrogates)", async () => {
    const store = new MemoryKeptStore<never>({ ...BOUNDS, maxBytes: 400_000 });
    const pages = new ReadPages(store as never);
    for (const unit of ["aé\n", "é日😀\ud800x"]) {
      const text = unit.repeat(60_000);
      const keeping = await pages.keep("alice", { provenance, warnings: [], text });
      const { page } = await pages.resume("alice", keeping.cursor(0) as string);
      assert.ok(page.text.length > 0 && page.text.length < text.length);
      assert.equal(page.text, text.slice(0, page.text.length));
    }
  });

  it("keeps nothing when not even the frame fits, and says the rest cannot be continued", async () => {
    const store = new MemoryKeptStore<never>({ ...BOUNDS, maxBytes: 4_000 });
    const pages = new ReadPages(store as never);
    const keeping = await pages.keep("alice", { provenance, warnings: [], text: "x".repeat(10_000) });
    assert.equal(keeping.cursor(0), undefined);
    assert.match(keeping.warning ?? "", /only the first 0 of the page's 10000 characters/);
  });
});

describe("code_search's stores", () => {
  it("keep every snapshot and analysis result within its share of the store by construction", () => {
    // Their stores do not refuse: retention stops at these bounds, so no result can evict everyone.
    const share = Math.floor(KEPT_MAX_BYTES * KEPT_ENTRY_MAX_SHARE);
    assert.ok(SNAPSHOT_MAX_BYTES <= share);
    assert.ok(ANALYSIS_MAX_BYTES <= share);
  });
});
