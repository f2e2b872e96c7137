/** Verified source reads: bounded, bound to one revision, with one mapping of lines to bytes. */
import assert from "node:assert/strict";
import { utimes } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { readRevisionSync } from "../../../src/code/revisions/scan.js";
import {
  lineAt,
  lineCount,
  lineEnd,
  lineStart,
  readSourceDocument,
} from "../../../src/code/source/document.js";
import { mergeLineRanges, utf8Boundary } from "../../../src/code/source/ranges.js";
import { treesRemovedAfter } from "../helpers.js";

const makeTree = treesRemovedAfter(after);

describe("source documents", () => {
  it("maps lines to bytes, a final line feed ending the last line", async () => {
    const root = await makeTree({ "a.txt": "ab\nc\n\ndé\n" });
    const read = await readSourceDocument(join(root, "a.txt"));
    assert.ok(read.ok);
    const d = read.document;
    assert.equal(lineCount(d), 4);
    assert.deepEqual([lineStart(d, 1), lineEnd(d, 1), lineStart(d, 4), lineEnd(d, 4)], [0, 3, 6, 10]);
    assert.deepEqual([lineAt(d, 0), lineAt(d, 3), lineAt(d, 5), lineAt(d, 9)], [1, 2, 3, 4]);
    assert.equal(d.utf8, true);
  });

  it("says why a document cannot be read: missing, not a file, too large, changed", async () => {
    const root = await makeTree({ "a.txt": "x".repeat(100), "dir/b.txt": "b" });
    assert.equal((await readSourceDocument(join(root, "nope"))).ok, false);
    assert.deepEqual(await readSourceDocument(join(root, "nope")), { ok: false, reason: "missing" });
    assert.deepEqual(await readSourceDocument(join(root, "dir")), { ok: false, reason: "not_a_file" });
    assert.deepEqual(await readSourceDocument(join(root, "a.txt"), { maxBytes: 99 }), {
      ok: false,
      reason: "too_large",
      size: 100,
    });
    const revision = readRevisionSync(join(root, "a.txt"));
    assert.ok(revision !== undefined);
    assert.equal((await readSourceDocument(join(root, "a.txt"), { expected: revision })).ok, true);
    await utimes(join(root, "a.txt"), new Date(), new Date(Date.now() - 60_000));
    assert.deepEqual(await readSourceDocument(join(root, "a.txt"), { expected: revision }), {
      ok: false,
      reason: "changed",
    });
  });

  it("holds the file's bytes in a buffer of its own, no larger than the file plus one byte", async () => {
    // A document outlives its read (syntax, inspections): its bytes must not pin a shared pool
    // slab or a read buffer sized for the largest document.
    const root = await makeTree({ "small.txt": "tiny\n", "large.txt": "y".repeat(100_000) });
    for (const [name, size] of [
      ["small.txt", 5],
      ["large.txt", 100_000],
    ] as const) {
      const read = await readSourceDocument(join(root, name));
      assert.ok(read.ok);
      assert.equal(read.document.bytes.length, size);
      assert.ok(
        read.document.bytes.buffer.byteLength <= size + 1,
        `${name}: ${read.document.bytes.buffer.byteLength} bytes held for ${size}`,
      );
    }
  });

  it("flags content that is not UTF-8", async () => {
    const root = await makeTree({ "bin.txt": Buffer.from([0x61, 0xff, 0x0a, 0x62]), "ok.txt": "\uFFFD\n" });
    const bad = await readSourceDocument(join(root, "bin.txt"));
    const good = await readSourceDocument(join(root, "ok.txt"));
    assert.ok(bad.ok && good.ok);
    assert.equal(bad.document.utf8, false);
    assert.equal(good.document.utf8, true);
  });
});

describe("source ranges", () => {
  it("merges overlapping and touching line ranges", () => {
    assert.deepEqual(
      mergeLineRanges([
        { startLine: 10, endLine: 20 },
        { startLine: 1, endLine: 3 },
        { startLine: 4, endLine: 5 },
        { startLine: 12, endLine: 14 },
      ]),
      [
        { startLine: 1, endLine: 5 },
        { startLine: 10, endLine: 20 },
      ],
    );
  });

  it("never cuts inside a UTF-8 sequence", () => {
    const bytes = Buffer.from("aé€b");
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((o) => utf8Boundary(bytes, o)),
      [1, 1, 3, 3, 3, 6],
    );
  });
});
