import assert from "node:assert/strict";
import { renameSync, statSync, writeFileSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { readRevisionSync } from "../../../src/code/revisions/scan.js";
import { remoteFilesystem, settledRecheck } from "../../../src/code/revisions/settled.js";
import { CHANGE_TIME_MARGIN_MS } from "../../../src/core/limits.js";
import { makeTree, removeTree } from "../helpers.js";
import { ctx, makeService } from "../service-helpers.js";

const trees: string[] = [];
after(async () => {
  await Promise.all(trees.map(removeTree));
});

async function tree(files: Record<string, string>): Promise<string> {
  const root = await makeTree(files);
  trees.push(root);
  return root;
}

/** This file, unchanged since long before any test runs: its change time precedes every search. */
const HERE = import.meta.dirname;
const MARKER = "settled-revisions-marker";

/** The revisions a search that began at `beganAtMs` trusts, through the recheck it uses. */
function settledRevisions(rgCwd: string, names: readonly string[], beganAtMs: number) {
  const recheck = settledRecheck(rgCwd, beganAtMs);
  for (const name of names) recheck.add(name);
  return recheck.done();
}

describe("one-shot revisions: a file unchanged since before the search began", () => {
  it("G08: trusts a file changed before the search began, not one changed after or just before", async () => {
    const root = await tree({ "a.txt": "needle\n" });
    const revision = readRevisionSync(join(root, "a.txt"));
    // The file's own change time, not the clock after the write: on a loaded machine more than
    // the margin may pass between the two.
    const now = Math.round(statSync(join(root, "a.txt")).ctimeMs);
    // A search that began well after the write: the file was settled.
    const later = await settledRevisions(root, ["./a.txt"], now + 10 * CHANGE_TIME_MARGIN_MS);
    assert.deepEqual([...later], [["./a.txt", revision]]);
    // One that began as the file was written (within the kernel clock's margin), or before it.
    assert.equal((await settledRevisions(root, ["./a.txt"], now)).size, 0);
    assert.equal((await settledRevisions(root, ["./a.txt"], now - 60_000)).size, 0);
    // A file changed after the search began is not trusted, whatever it held before.
    await appendFile(join(root, "a.txt"), "more\n");
    assert.equal((await settledRevisions(root, ["./a.txt"], now)).size, 0);
    // A file that is gone (or never was) has no revision to trust.
    assert.equal((await settledRevisions(root, ["./missing.txt"], now + 60_000)).size, 0);
  });

  it("tells a local filesystem from one that cannot be read", () => {
    assert.equal(remoteFilesystem(HERE), false);
    assert.equal(remoteFilesystem(join(HERE, "no such directory")), process.platform === "linux");
  });

  it("G22: a one-shot search starts no enumeration and trusts the files settled before it", async () => {
    let spawned = 0;
    const service = makeService(HERE, { oneShot: true, onProcessSpawn: () => spawned++ });
    try {
      const result = await service.run({ pattern: MARKER, literal: true, glob: ["settled.test.ts"] }, ctx());
      assert.equal(spawned, 1, "the content search only");
      assert.ok((result.data.totalMatches ?? 0) >= 1);
      assert.equal(result.data.sourceUnverifiedFileCount, 0);
    } finally {
      await service.close();
    }
  });

  it("G08: a one-shot search counts a file changed during it as unverified, and says so", async () => {
    const root = await tree({ "a.txt": "needle\n" });
    const service = makeService(root, {
      oneShot: true,
      onProcessSpawn: () => {
        // Replaced in one step as ripgrep starts: it reads the old text or the new (both match).
        writeFileSync(`${root}.a.txt`, "needle changed\n");
        renameSync(`${root}.a.txt`, join(root, "a.txt"));
      },
    });
    try {
      const result = await service.run({ pattern: "needle" }, ctx());
      assert.equal(result.data.totalMatches, 1);
      assert.equal(result.data.sourceUnverifiedFileCount, 1);
      assert.match(result.text, /1 file\(s\) could not be verified/);
    } finally {
      await service.close();
    }
  });
});
