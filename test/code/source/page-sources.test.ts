import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { appendFile, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type Revision, readRevisionSync } from "../../../src/code/revisions/scan.js";
import { PageSources } from "../../../src/code/source/page-sources.js";
import { treesRemovedAfter } from "../helpers.js";
import { ctx, makeService } from "../service-helpers.js";

const tree = treesRemovedAfter(after);

describe("page sources", () => {
  it("reports an untouched file as current, an edited or removed one as changed, an untrusted one as unverified", async () => {
    const root = await tree({
      "same.txt": "a\n",
      "edited.txt": "b\n",
      "removed.txt": "c\n",
      "new.txt": "d\n",
    });
    const trusted: Record<string, Revision> = {};
    for (const name of ["same.txt", "edited.txt", "removed.txt"])
      trusted[name] = readRevisionSync(join(root, name)) as Revision;
    await appendFile(join(root, "edited.txt"), "more\n");
    await rm(join(root, "removed.txt"));
    const sources = new PageSources(root, trusted);
    assert.equal(await sources.status("same.txt"), "current");
    assert.equal(await sources.status("edited.txt"), "changed");
    assert.equal(await sources.status("removed.txt"), "changed");
    assert.equal(await sources.status("new.txt"), "unverified");
    assert.deepEqual(await sources.lines("same.txt"), ["a"]);
    assert.equal(await sources.lines("edited.txt"), undefined);
  });

  it("right after the search's re-check, trusted files are current without another stat; context is still checked", async () => {
    const root = await tree({ "a.txt": "a\n", "b.txt": "b\n" });
    const trusted: Record<string, Revision> = {};
    for (const name of ["a.txt", "b.txt"]) trusted[name] = readRevisionSync(join(root, name)) as Revision;
    // Edited after the re-check: only reading it (for context) can tell.
    await appendFile(join(root, "b.txt"), "more\n");
    const sources = new PageSources(root, trusted, { justChecked: true });
    assert.equal(await sources.status("a.txt"), "current");
    assert.equal(await sources.status("new.txt"), "unverified");
    // As of the re-check, without a stat of its own.
    assert.equal(await sources.status("b.txt"), "current");
    assert.deepEqual(await sources.lines("a.txt"), ["a"]);
    assert.equal(await sources.lines("b.txt"), undefined);
    assert.equal(await sources.status("b.txt"), "changed");
    // A later page (a cursor) stats again.
    assert.equal(await new PageSources(root, trusted).status("b.txt"), "changed");
  });

  it("a FIFO put in a trusted file's place after the re-check gives no context and does not wait for a writer", async () => {
    const root = await tree({ "a.txt": "a\n" });
    const trusted = { "a.txt": readRevisionSync(join(root, "a.txt")) as Revision };
    await rm(join(root, "a.txt"));
    execFileSync("mkfifo", [join(root, "a.txt")]);
    const sources = new PageSources(root, trusted, { justChecked: true });
    assert.equal(await sources.lines("a.txt"), undefined);
  });

  it("a directory where a trusted file was reads as changed", async () => {
    const root = await tree({ "a.txt": "a\n" });
    const trusted = { "a.txt": readRevisionSync(join(root, "a.txt")) as Revision };
    await rm(join(root, "a.txt"));
    await mkdir(join(root, "a.txt"));
    await writeFile(join(root, "a.txt", "inner.txt"), "x\n");
    const sources = new PageSources(root, trusted);
    assert.equal(await sources.status("a.txt"), "changed");
  });

  it("a cursor page without context flags a file edited since the search", async () => {
    const lines = Array.from({ length: 30 }, (_, i) => (i % 10 === 5 ? `hit ${i + 1}` : `plain ${i + 1}`));
    const root = await tree({ "a.txt": `${lines.join("\n")}\n`, "b.txt": "hit b\n" });
    const service = makeService(root);
    const first = await service.run({ pattern: "hit", mode: "matches", limit: 1 }, ctx());
    assert.equal(first.data.changedFiles, undefined);
    await appendFile(join(root, "a.txt"), "hit appended\n");
    const second = await service.run({ cursor: first.data.cursor as string, limit: 10 }, ctx());
    assert.deepEqual(second.data.changedFiles, ["a.txt"]);
    assert.match(second.text, /changed since the search/);
  });
});
