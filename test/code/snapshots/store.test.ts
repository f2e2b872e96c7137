import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { memoryKept, memorySnapshotStore, snapshotStore } from "../../../src/code/snapshots/store.js";
import { errorCodeOf, snapshotData, snapshotStoreContract } from "./store.contract.js";

snapshotStoreContract("memory", (options) => memorySnapshotStore(options));
snapshotStoreContract("memory, one root's view", (options) =>
  snapshotStore(memoryKept(options), "/some/root"),
);

describe("code_search's results in memory", () => {
  it("G12: a cursor of another store (another process) is cursor_malformed", async () => {
    const store = memorySnapshotStore();
    const other = memorySnapshotStore();
    const id = await store.put("a", snapshotData());
    const foreign = other.encodeCursor({ snapshotId: id, offset: 3, kind: "matches" });
    assert.equal(await errorCodeOf(() => store.decodeCursor(foreign)), "cursor_malformed");
  });

  it("evicts the least recently used snapshot beyond the byte bound", async () => {
    const byBytes = memorySnapshotStore({ maxBytes: 900 });
    const old = await byBytes.put("a", snapshotData(200));
    const used = await byBytes.put("a", snapshotData(200));
    await byBytes.put("a", snapshotData(200));
    await byBytes.get("a", old);
    await byBytes.put("a", snapshotData(200));
    await byBytes.put("a", snapshotData(200));
    assert.equal(await errorCodeOf(() => byBytes.get("a", used)), "cursor_expired");
    assert.equal(await errorCodeOf(() => byBytes.get("a", old)), "no error");
  });

  it("the views of several roots share one bound, see only their own, and close only their own", async () => {
    const kept = memoryKept({ maxBytes: 900 });
    const a = snapshotStore(kept, "/a");
    const b = snapshotStore(kept, "/b");
    const first = await a.put("caller", snapshotData(200));
    const second = await a.put("caller", snapshotData(200));
    await b.put("caller", snapshotData(200));
    await b.put("caller", snapshotData(200));
    const last = await b.put("caller", snapshotData(200));
    // Five across the two roots, four fit: the least recent of all goes, whichever root.
    assert.equal(kept.size, 4);
    assert.equal(await errorCodeOf(() => a.get("caller", first)), "cursor_expired");
    assert.equal(await errorCodeOf(() => a.get("caller", second)), "no error");
    // Another root's result is not found through this one, as if it were another store.
    assert.equal(await errorCodeOf(() => a.get("caller", last)), "cursor_not_found");
    await a.close();
    assert.equal(await errorCodeOf(() => a.get("caller", second)), "cursor_expired");
    assert.equal(await errorCodeOf(() => b.get("caller", last)), "no error");
    assert.equal(kept.size, 3);
  });

  it("close releases everything", async () => {
    const kept = memoryKept();
    const store = snapshotStore(kept);
    await store.put("a", snapshotData());
    await store.close();
    assert.equal(kept.size, 0);
  });

  it("a result over its share of a store bounded lower is not kept, and says so naming EVIDENT_KEPT_MAX_BYTES", async () => {
    const kept = memoryKept({ maxBytes: 4_000 });
    const store = snapshotStore(kept);
    const other = await store.put("b", snapshotData(900));
    const error = await store.put("a", snapshotData(1_001)).catch((thrown: unknown) => thrown);
    assert.equal((error as { code?: string }).code, "configuration_error");
    assert.match(
      String((error as Error).message),
      /larger than one kept result may be here .*EVIDENT_KEPT_MAX_BYTES/,
    );
    // Nothing was evicted for it.
    assert.equal(await errorCodeOf(() => store.get("b", other)), "no error");
    assert.equal(kept.size, 1);
  });
});
