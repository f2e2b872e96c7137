import assert from "node:assert/strict";
import { mkdtemp, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  readRevisionSync,
  revisionOf,
  revisionParts,
  revisionSize,
  sameRevision,
} from "../../../src/code/revisions/scan.js";

const dirs: string[] = [];
after(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function file(content: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "evident-revision-"));
  dirs.push(dir);
  const path = join(dir, "a.ts");
  await writeFile(path, content);
  return path;
}

describe("file revisions as one string", () => {
  it("carries the file's size, nanosecond times, inode and device, and gives them back", async () => {
    const path = await file("hello");
    const revision = readRevisionSync(path);
    assert.ok(revision !== undefined);
    assert.equal(typeof revision, "string");
    const s = await stat(path, { bigint: true });
    assert.deepEqual(revisionParts(revision), {
      size: "5",
      mtimeNs: s.mtimeNs.toString(),
      ctimeNs: s.ctimeNs.toString(),
      ino: s.ino.toString(),
      dev: s.dev.toString(),
    });
    assert.equal(revisionSize(revision), "5");
    assert.equal(revisionOf(revisionParts(revision)), revision);
    assert.ok(sameRevision(revision, readRevisionSync(path)));
  });

  it("tells a rewrite of the same size apart, and never equals a missing revision", async () => {
    const path = await file("aaaa");
    const before = readRevisionSync(path);
    const s = await stat(path, { bigint: true });
    // Same size, another content, and a modification time that surely differs.
    await writeFile(path, "bbbb");
    await utimes(path, new Date(Number(s.mtimeMs) + 5_000), new Date(Number(s.mtimeMs) + 5_000));
    const afterwards = readRevisionSync(path);
    assert.ok(before !== undefined && afterwards !== undefined);
    assert.equal(revisionSize(afterwards), revisionSize(before));
    assert.equal(sameRevision(before, afterwards), false);
    assert.equal(sameRevision(before, undefined), false);
    assert.equal(sameRevision(undefined, undefined), false);
  });

  it("refuses parts that are not decimal numbers (a stored or sealed form read back)", () => {
    const good = { size: "1", mtimeNs: "2", ctimeNs: "3", ino: "4", dev: "5" };
    assert.equal(revisionOf(good), "1:2:3:4:5");
    for (const bad of ["", "1:2", "-1", "1.5", "x", "1".repeat(21)]) {
      assert.equal(revisionOf({ ...good, ino: bad }), undefined, JSON.stringify(bad));
    }
    assert.equal(revisionOf({ ...good, dev: 5 }), undefined);
  });

  it("parts at their widest (20-digit numbers) still make one revision", () => {
    const wide = "18446744073709551615";
    const revision = revisionOf({ size: wide, mtimeNs: wide, ctimeNs: wide, ino: wide, dev: wide });
    assert.deepEqual(revisionParts(revision), {
      size: wide,
      mtimeNs: wide,
      ctimeNs: wide,
      ino: wide,
      dev: wide,
    });
  });
});
