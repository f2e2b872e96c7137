import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemorySnapshotStore } from "../../../src/code/snapshots/store.js";
import { errorCodeOf, snapshotData, snapshotStoreContract } from "./store.contract.js";

snapshotStoreContract("MemorySnapshotStore", (options) => new MemorySnapshotStore(options));
snapshotStoreContract("MemorySnapshotStore, one root's view", (options) =>
  new MemorySnapshotStore(options).view("/some/root"),
);

describe("MemorySnapshotStore", () => {
  it("G12: a cursor of another store (another process) is cursor_malformed", async () => {
    const store = new MemorySnapshotStore();
    const other = new MemorySnapshotStore();
    const id = await store.put("a", snapshotData());
    const foreign = other.encodeCursor({ snapshotId: id, offset: 3, kind: "matches" });
    assert.equal(await errorCodeOf(() => store.decodeCursor(foreign)), "cursor_malformed");
  });

  it("evicts the least recently used snapshot beyond the count or byte bound", async () => {
    const byCount = new MemorySnapshotStore({ maxCount: 2 });
    const first = await byCount.put("a", snapshotData());
    const second = await byCount.put("a", snapshotData());
    await byCount.get("a", first);
    await byCount.put("a", snapshotData());
    assert.equal(byCount.size, 2);
    assert.equal(await errorCodeOf(() => byCount.get("a", second)), "cursor_expired");
    assert.equal(await errorCodeOf(() => byCount.get("a", first)), "no error");

    const byBytes = new MemorySnapshotStore({ maxBytes: 250 });
    const old = await byBytes.put("a", snapshotData(100));
    await byBytes.put("a", snapshotData(100));
    await byBytes.put("a", snapshotData(100));
    assert.equal(await errorCodeOf(() => byBytes.get("a", old)), "cursor_expired");
  });

  it("the views of several roots share one bound, see only their own, and close only their own", async () => {
    const store = new MemorySnapshotStore({ maxCount: 3 });
    const a = store.view("/a");
    const b = store.view("/b");
    const first = await a.put("caller", snapshotData());
    const kept = await a.put("caller", snapshotData());
    await b.put("caller", snapshotData());
    const last = await b.put("caller", snapshotData());
    // Four across the two roots, three allowed: the least recent of all goes, whichever root.
    assert.equal(store.size, 3);
    assert.equal(await errorCodeOf(() => a.get("caller", first)), "cursor_expired");
    assert.equal(await errorCodeOf(() => a.get("caller", kept)), "no error");
    // Another root's result is not found through this one, as if it were another store.
    assert.equal(await errorCodeOf(() => a.get("caller", last)), "cursor_not_found");
    await a.close();
    assert.equal(await errorCodeOf(() => a.get("caller", kept)), "cursor_expired");
    assert.equal(await errorCodeOf(() => b.get("caller", last)), "no error");
    assert.equal(store.size, 2);
  });

  it("close releases everything", async () => {
    const store = new MemorySnapshotStore();
    await store.put("a", snapshotData());
    await store.close();
    assert.equal(store.size, 0);
  });
});
