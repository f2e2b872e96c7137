import assert from "node:assert/strict";
import { appendFile, writeFile } from "node:fs/promises";
import { join, normalize, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { RevisionCache } from "../../src/code/revision-cache.js";
import { pathUnder, type Revision } from "../../src/code/scan-revisions.js";
import { makeTree, removeTree } from "./helpers.js";
import { ctx, makeService } from "./service-helpers.js";

const trees: string[] = [];
after(async () => {
  await Promise.all(trees.map(removeTree));
});

function revision(size: string): Revision {
  return { size, mtimeNs: "1", ctimeNs: "1", ino: "1", dev: "1" };
}

describe("revision cache", () => {
  it("a search only uses observations made before it began; concurrency errs toward unverified", () => {
    const cache = new RevisionCache();
    cache.remember("s", new Map([["a", revision("1")]]));
    const first = cache.begin();
    const second = cache.begin();
    assert.deepEqual(cache.before("s", "a", first), revision("1"));
    // The first search ends and observes again after the second began: that observation is
    // too late for the second, which then cannot verify the file (never a wrong trust).
    cache.observe("s", "a", revision("2"));
    assert.equal(cache.before("s", "a", second), undefined);
    assert.deepEqual(cache.before("s", "a", cache.begin()), revision("2"));
  });

  it("a scope is fresh until its time to live passes, and unreadable files are forgotten", () => {
    let now = 0;
    const cache = new RevisionCache({ ttlMs: 100, now: () => now });
    assert.equal(cache.fresh("s"), false);
    cache.remember("s", new Map([["a", revision("1")]]));
    now = 100;
    assert.equal(cache.fresh("s"), true);
    cache.observe("s", "a", undefined);
    assert.equal(cache.before("s", "a", cache.begin()), undefined);
    now = 201;
    assert.equal(cache.fresh("s"), false);
  });

  it("keeps at most the configured number of scopes", () => {
    const cache = new RevisionCache({ maxScopes: 2 });
    for (const scope of ["a", "b", "c"]) cache.remember(scope, new Map());
    assert.deepEqual(
      ["a", "b", "c"].map((s) => cache.fresh(s)),
      [false, true, true],
    );
  });

  it("G22: warm searches skip the enumeration and keep the same match set", async () => {
    const root = await makeTree({ "a.txt": "needle\n", "b.txt": "needle needle\n" });
    trees.push(root);
    let spawned = 0;
    const service = makeService(root, { onProcessSpawn: () => spawned++ });
    const cold = await service.run({ pattern: "needle" }, ctx());
    assert.equal(spawned, 2);
    const warm = await service.run({ pattern: "needle" }, ctx());
    assert.equal(spawned, 3);
    assert.deepEqual(warm.data.matches, cold.data.matches);
    assert.equal(warm.data.sourceUnverifiedFileCount, 0);
    // Another file scope is another candidate set: it is enumerated.
    await service.run({ pattern: "needle", glob: "a.*" }, ctx());
    assert.equal(spawned, 5);
  });

  it("a file edited between warm searches is unverified once, then trusted again", async () => {
    const root = await makeTree({ "a.txt": "needle\n", "b.txt": "needle\n" });
    trees.push(root);
    const service = makeService(root);
    await service.run({ pattern: "needle" }, ctx());
    await appendFile(join(root, "a.txt"), "needle again\n");
    const edited = await service.run({ pattern: "needle", context: 1 }, ctx());
    assert.equal(edited.data.totalMatches, 3);
    assert.equal(edited.data.sourceUnverifiedFileCount, 1);
    assert.deepEqual(edited.data.contextUnavailableFiles, ["a.txt"]);
    const settled = await service.run({ pattern: "needle" }, ctx());
    assert.equal(settled.data.sourceUnverifiedFileCount, 0);
  });

  it("a file created after the enumeration is found, unverified until it has been observed", async () => {
    const root = await makeTree({ "a.txt": "needle\n" });
    trees.push(root);
    let now = 0;
    const service = makeService(root, { revisionCache: { ttlMs: 1000, now: () => now } });
    await service.run({ pattern: "needle" }, ctx());
    await writeFile(join(root, "new.txt"), "needle\n");
    const found = await service.run({ pattern: "needle" }, ctx());
    assert.equal(found.data.totalMatches, 2);
    assert.equal(found.data.sourceUnverifiedFileCount, 1);
    assert.match(found.text, /1 file\(s\) could not be verified/);
    assert.equal((await service.run({ pattern: "needle" }, ctx())).data.sourceUnverifiedFileCount, 0);
    now = 2000;
    let spawned = 0;
    const later = makeService(root, {
      revisionCache: { ttlMs: 1000, now: () => now },
      onProcessSpawn: () => spawned++,
    });
    await later.run({ pattern: "needle" }, ctx());
    assert.equal(spawned, 2);
  });

  it("an expired scope is enumerated again", async () => {
    const root = await makeTree({ "a.txt": "needle\n" });
    trees.push(root);
    let now = 0;
    let spawned = 0;
    const service = makeService(root, {
      revisionCache: { ttlMs: 1000, now: () => now },
      onProcessSpawn: () => spawned++,
    });
    await service.run({ pattern: "needle" }, ctx());
    now = 500;
    await service.run({ pattern: "needle" }, ctx());
    assert.equal(spawned, 3);
    now = 1600;
    await service.run({ pattern: "needle" }, ctx());
    assert.equal(spawned, 5);
  });
});

describe("paths of ripgrep's names", () => {
  it("pathUnder reaches the file resolve reaches", () => {
    const cwd = "/work/project";
    for (const name of [
      "./a.ts",
      "./dir/b c.ts",
      "./.hidden/x",
      "/abs/file",
      "./a/../b",
      "plain/name",
      "./é/ü",
    ]) {
      assert.equal(normalize(pathUnder(cwd, name)), resolve(cwd, name), name);
    }
  });
});
