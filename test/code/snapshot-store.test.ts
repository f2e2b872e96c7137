import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SearchQuery } from "../../src/code/request.js";
import { MemorySnapshotStore, type SnapshotData, selectionSignature } from "../../src/code/snapshot-store.js";
import { EvidentError } from "../../src/core/errors.js";
import { CURSOR_RANDOM_BITS } from "../../src/core/limits.js";

const query: SearchQuery = {
  pattern: "x",
  literal: false,
  caseMode: "smart",
  wholeWord: false,
  hidden: true,
  globs: [],
  excludes: [],
};

function data(bytes = 100): SnapshotData {
  return {
    query,
    requestedRoot: ".",
    effectiveRoot: ".",
    expanded: false,
    rgCwd: "/",
    matches: [],
    files: [],
    totalOccurrences: 0,
    trustedRevisions: {},
    partialReason: undefined,
    searchErrors: 0,
    bytes,
    reusable: true,
  };
}

function code(fn: () => unknown): Promise<string> {
  return Promise.resolve()
    .then(fn)
    .then(
      () => "no error",
      (error: unknown) => (error instanceof EvidentError ? error.code : String(error)),
    );
}

describe("MemorySnapshotStore", () => {
  it("G12: cursors round-trip and carry only id, offset, kind and selection", async () => {
    const store = new MemorySnapshotStore();
    const id = await store.put("a", data());
    assert.equal(id.length, CURSOR_RANDOM_BITS / 4);
    const sig = selectionSignature(["b", "a", "a"]);
    assert.equal(sig, selectionSignature(["a", "b"]));
    for (const state of [
      { snapshotId: id, offset: 0, kind: "summary" as const, selection: undefined },
      { snapshotId: id, offset: 4_000_000, kind: "matches" as const, selection: sig },
    ]) {
      assert.deepEqual(store.decodeCursor(store.encodeCursor(state)), state);
    }
  });

  it("G12: ids are random and distinct", async () => {
    const store = new MemorySnapshotStore();
    const ids = new Set<string>();
    for (let i = 0; i < 50; i++) ids.add(await store.put("a", data(1)));
    assert.equal(ids.size, 50);
  });

  it("G12: anything not issued by this store is cursor_malformed", async () => {
    const store = new MemorySnapshotStore();
    const other = new MemorySnapshotStore();
    const id = await store.put("a", data());
    const good = store.encodeCursor({ snapshotId: id, offset: 3, kind: "matches" });
    const raw = Buffer.from(good, "base64url");
    const flipped = Buffer.from(raw);
    flipped[22] = (flipped[22] ?? 0) ^ 1; // the offset, edited
    for (const bad of [
      "",
      "not a cursor!",
      "AAAA",
      good.slice(0, -2),
      `${good}AA`,
      flipped.toString("base64url"),
      other.encodeCursor({ snapshotId: id, offset: 3, kind: "matches" }),
      good.replace(/^./, good[0] === "A" ? "B" : "A"),
    ]) {
      assert.equal(await code(() => store.decodeCursor(bad)), "cursor_malformed", bad);
    }
  });

  it("G12: another caller's snapshot is cursor_not_found, exactly like an unknown id", async () => {
    const store = new MemorySnapshotStore();
    const id = await store.put("alice", data());
    assert.equal(await code(() => store.get("mallory", id)), "cursor_not_found");
    assert.equal(await code(() => store.get("alice", "00".repeat(16))), "cursor_not_found");
    await store.release("mallory", id);
    assert.equal(await code(() => store.get("alice", id)), "no error");
    await store.release("alice", id);
    assert.equal(await code(() => store.get("alice", id)), "cursor_expired");
    assert.equal(await code(() => store.get("mallory", id)), "cursor_not_found");
  });

  it("G12: a snapshot past its time to live is cursor_expired; use keeps it alive", async () => {
    let now = 0;
    const store = new MemorySnapshotStore({ ttlMs: 1000, now: () => now });
    const kept = await store.put("a", data());
    const idle = await store.put("a", data());
    now = 900;
    await store.get("a", kept);
    now = 1500;
    assert.equal(await code(() => store.get("a", kept)), "no error");
    assert.equal(await code(() => store.get("a", idle)), "cursor_expired");
  });

  it("evicts the least recently used snapshot beyond the count or byte bound", async () => {
    const byCount = new MemorySnapshotStore({ maxCount: 2 });
    const first = await byCount.put("a", data());
    const second = await byCount.put("a", data());
    await byCount.get("a", first);
    await byCount.put("a", data());
    assert.equal(byCount.size, 2);
    assert.equal(await code(() => byCount.get("a", second)), "cursor_expired");
    assert.equal(await code(() => byCount.get("a", first)), "no error");

    const byBytes = new MemorySnapshotStore({ maxBytes: 250 });
    const old = await byBytes.put("a", data(100));
    await byBytes.put("a", data(100));
    await byBytes.put("a", data(100));
    assert.equal(await code(() => byBytes.get("a", old)), "cursor_expired");
  });

  it("close releases everything", async () => {
    const store = new MemorySnapshotStore();
    await store.put("a", data());
    await store.close();
    assert.equal(store.size, 0);
  });
});
