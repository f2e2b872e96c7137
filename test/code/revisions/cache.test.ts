import assert from "node:assert/strict";
import { appendFile, writeFile } from "node:fs/promises";
import { join, normalize, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { RevisionCache } from "../../../src/code/revisions/cache.js";
import {
  againstBefore,
  pathUnder,
  Recheck,
  type Revision,
  readRevisionSync,
  revisionOf,
} from "../../../src/code/revisions/scan.js";
import { STAT_SLICE_FILES } from "../../../src/core/limits.js";
import { isAlive, makeTree, processesIn, removeTree } from "../helpers.js";
import { ctx, makeService } from "../service-helpers.js";

const trees: string[] = [];
after(async () => {
  await Promise.all(trees.map(removeTree));
});

function revision(size: string): Revision {
  return revisionOf({ size, mtimeNs: "1", ctimeNs: "1", ino: "1", dev: "1" });
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

  it("a scope is fresh until its time to live passes, then stale, and unreadable files are forgotten", () => {
    let now = 0;
    const cache = new RevisionCache({ ttlMs: 100, now: () => now });
    assert.equal(cache.state("s"), "missing");
    cache.remember("s", new Map([["a", revision("1")]]));
    now = 100;
    assert.equal(cache.state("s"), "fresh");
    cache.observe("s", "a", undefined);
    assert.equal(cache.before("s", "a", cache.begin()), undefined);
    now = 201;
    assert.equal(cache.state("s"), "stale");
    // Stale observations still serve as "before": they were made before any later search.
    cache.observe("s", "a", revision("1"));
    assert.deepEqual(cache.before("s", "a", cache.begin()), revision("1"));
  });

  it("a new enumeration keeps unchanged observations for searches already running", () => {
    const cache = new RevisionCache();
    cache.remember(
      "s",
      new Map([
        ["same", revision("1")],
        ["edited", revision("1")],
        ["deleted", revision("1")],
      ]),
    );
    const running = cache.begin();
    cache.remember(
      "s",
      new Map([
        ["same", revision("1")],
        ["edited", revision("2")],
        ["created", revision("1")],
      ]),
    );
    // The running search keeps its "before" for the unchanged file; what changed or appeared
    // after it began is not its "before", and a file no longer listed is gone.
    assert.deepEqual(cache.before("s", "same", running), revision("1"));
    assert.equal(cache.before("s", "edited", running), undefined);
    assert.equal(cache.before("s", "created", running), undefined);
    assert.equal(cache.before("s", "deleted", running), undefined);
    const later = cache.begin();
    assert.deepEqual(cache.before("s", "edited", later), revision("2"));
    assert.deepEqual(cache.before("s", "created", later), revision("1"));
  });

  it("keeps at most the configured number of scopes", () => {
    const cache = new RevisionCache({ maxScopes: 2 });
    for (const scope of ["a", "b", "c"]) cache.remember(scope, new Map());
    assert.deepEqual(
      ["a", "b", "c"].map((s) => cache.state(s)),
      ["missing", "fresh", "fresh"],
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
    await service.run({ pattern: "needle", glob: ["a.*"] }, ctx());
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

  it("a stale scope is searched at once and enumerated again after the answer", async () => {
    const root = await makeTree({ "a.txt": "needle\n" });
    trees.push(root);
    let now = 0;
    let spawned = 0;
    const service = makeService(root, {
      revisionCache: { ttlMs: 1000, now: () => now },
      onProcessSpawn: () => spawned++,
    });
    await service.run({ pattern: "needle" }, ctx());
    assert.equal(spawned, 2);
    now = 500;
    await service.run({ pattern: "needle" }, ctx());
    assert.equal(spawned, 3);
    // Created after the enumeration: one matches the next search, one does not.
    await writeFile(join(root, "matching.txt"), "needle\n");
    await writeFile(join(root, "other.txt"), "haystack\n");
    now = 1600;
    const stale = await service.run({ pattern: "needle" }, ctx());
    // The search did not wait for a new enumeration: the new file has no earlier observation.
    assert.equal(stale.data.totalMatches, 2);
    assert.equal(stale.data.sourceUnverifiedFileCount, 1);
    assert.match(stale.text, /1 file\(s\) could not be verified/);
    await service.idle();
    assert.equal(spawned, 5, "one content search, then one enumeration in the background");
    // The background enumeration observed the file the stale search did not match.
    const found = await service.run({ pattern: "haystack" }, ctx());
    assert.equal(found.data.totalMatches, 1);
    assert.equal(found.data.sourceUnverifiedFileCount, 0);
    assert.equal(spawned, 6, "the scope is fresh again");
    await service.close();
  });

  it("G11: closing the service stops a background enumeration and leaves no ripgrep behind", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 2000; i++) files[`d${i % 20}/f${i}.txt`] = "needle\n";
    const root = await makeTree(files);
    trees.push(root);
    let now = 0;
    const pids: number[] = [];
    const service = makeService(root, {
      revisionCache: { ttlMs: 1000, now: () => now },
      onProcessSpawn: (pid) => pids.push(pid),
    });
    await service.run({ pattern: "needle", mode: "summary" }, ctx());
    now = 2000;
    await service.run({ pattern: "needle", mode: "summary" }, ctx());
    await service.close();
    await service.idle();
    for (const pid of pids) assert.equal(isAlive(pid), false, `ripgrep ${pid} outlived close()`);
    assert.deepEqual(await processesIn(root), []);
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

describe("the re-check after a search", () => {
  it("trusts exactly the files whose two observations agree, in one slice and across several", async () => {
    for (const count of [3, STAT_SLICE_FILES + 45]) {
      const files: Record<string, string> = {};
      for (let i = 0; i < count; i++) files[`f${i}.txt`] = "x\n";
      const root = await makeTree(files);
      trees.push(root);
      const names = Object.keys(files).map((name) => `./${name}`);
      const before = new Map<string, Revision>();
      for (const name of names) before.set(name, readRevisionSync(pathUnder(root, name)) as Revision);
      // Edited after the first observation: the first, one in the middle and the last file.
      const edited = new Set([names[0], names[Math.floor(count / 2)], names[count - 1]] as string[]);
      for (const name of edited) await appendFile(pathUnder(root, name), "edited\n");
      const observed = new Map<string, Revision | undefined>();
      const recheck = new Recheck(
        root,
        againstBefore(
          (name) => before.get(name),
          (name, revision) => observed.set(name, revision),
        ),
      );
      for (const name of [...names, "./missing.txt"]) recheck.add(name);
      const trusted = await recheck.done();
      assert.deepEqual(
        [...trusted.keys()].sort(),
        names.filter((name) => !edited.has(name)).sort(),
        `${count} files`,
      );
      // Every name was observed again, the missing one as unreadable.
      assert.equal(observed.size, count + 1);
      assert.equal(observed.get("./missing.txt"), undefined);
      assert.notDeepEqual(observed.get(names[0] as string), before.get(names[0] as string));
    }
  });
});
