import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { readBytes } from "../../../src/code/changes/worktree.js";
import { type Revision, readRevisionSync } from "../../../src/code/revisions/scan.js";
import { treesRemovedAfter } from "../helpers.js";

const tree = treesRemovedAfter(after);

describe("working-tree reads for change scopes", () => {
  it("a FIFO swapped in for a listed file is refused at once, never waited on", async () => {
    const root = await tree({ "a.txt": "needle\n" });
    const path = join(root, "a.txt");
    const revision = readRevisionSync(path) as Revision;
    // After the file was checked and before it is read: a FIFO with no writer would hold the
    // read (and a thread-pool thread) until one came.
    await rm(path);
    execFileSync("mkfifo", [path]);
    assert.equal(await readBytes(path, revision), "it is not a regular file any more");
  });
});
