/**
 * Differential tests: the retained snapshot must hold exactly the match set raw ripgrep reports
 * (paths, line numbers, byte ranges) on trees built to be awkward.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import type { ParsedMatch } from "../../src/code/rg/events.js";
import { allMatches } from "../../src/code/rg/match-table.js";
import { displayPath } from "../../src/code/snapshots/sequence.js";
import { memorySnapshotStore, searchSnapshot } from "../../src/code/snapshots/store.js";
import { asSet, makeTree, rawMatches, removeTree, type TreeEntry } from "./helpers.js";
import { ctx, makeService } from "./service-helpers.js";

const trees: string[] = [];
after(async () => {
  await Promise.all(trees.map(removeTree));
});

async function retained(
  root: string,
  pattern: string,
  input: Record<string, unknown> = {},
): Promise<{ matches: ParsedMatch[] }> {
  const store = memorySnapshotStore();
  const service = makeService(root, { store });
  const result = await service.run({ pattern, mode: "summary", ...input }, ctx());
  if (result.data.view === "empty") return { matches: [] };
  if (result.data.cursor === undefined) throw new Error(`no cursor: ${result.text}`);
  const state = store.decodeCursor(result.data.cursor);
  return { matches: allMatches((await searchSnapshot(store, "caller-1", state.snapshotId)).matches) };
}

/** Every column must be the UTF-16 length of the line's byte prefix. */
function checkColumns(snapshot: { matches: readonly ParsedMatch[] }): void {
  for (const m of snapshot.matches) {
    if (m.textLossy) continue;
    const bytes = Buffer.from(m.text, "utf8");
    for (const o of m.occurrences) {
      assert.equal(bytes.subarray(0, o.startByte).toString("utf8").length, o.startColumn);
      assert.equal(bytes.subarray(0, o.endByte).toString("utf8").length, o.endColumn);
    }
  }
}

describe("differential against raw ripgrep", () => {
  it("matches raw rg on CRLF, multi-byte UTF-8, long lines, binary, newline names, symlinks, ignored and hidden files", async () => {
    const long = `${"é".repeat(400)} needle ${"😀".repeat(300)} needle ${"x".repeat(2000)}`;
    const files: Record<string, TreeEntry> = {
      "crlf.txt": "needle one\r\ntwo needle\r\nneedle\r\n",
      "utf8/ünïcödé-ñame.txt": "ça needle ü 😀needle😀 needle\n日本語 needle 中文\n",
      "long.min.js": `${long}\n`,
      "binary.bin": Buffer.concat([
        Buffer.from("needle\n"),
        Buffer.from([0, 1, 2, 0]),
        Buffer.from("needle\n"),
      ]),
      "latin1.txt": Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x20, 0xe9, 0xff, 0x0a]),
      "new\nline.txt": "needle in a name with a newline\n",
      "tab\tname.txt": "needle\n",
      "link.txt": { symlink: "crlf.txt" },
      dirlink: { symlink: "utf8" },
      ".hidden/h.txt": "needle hidden\n",
      ".ignore": "ignored/\n",
      "ignored/i.txt": "needle ignored\n",
      ".git/objects/x": "needle git\n",
      "empty.txt": "",
      "no-newline.txt": "needle at eof",
    };
    const root = await makeTree(files);
    trees.push(root);
    for (const pattern of ["needle", "ne+dle", "(?i)NEEDLE", "😀", "\\bneedle\\b", "é+"]) {
      const snapshot = await retained(root, pattern);
      assert.deepEqual(asSet(snapshot), rawMatches(root, pattern), pattern);
      checkColumns(snapshot);
    }
    const snapshot = await retained(root, "needle");
    const paths = new Set(snapshot.matches.map((m) => displayPath(m.path)));
    assert.ok(paths.has("new\nline.txt"));
    assert.ok(paths.has(".hidden/h.txt"));
    assert.ok(!paths.has("ignored/i.txt"));
    assert.ok(![...paths].some((p) => p.startsWith(".git/")));
    const summary = await makeService(root).run({ pattern: "needle", mode: "summary" }, ctx());
    // Every name, also one with a newline, is observed before and after: nothing unverified.
    assert.equal(summary.data.sourceUnverifiedFileCount, 0);
    const shown = await makeService(root).run({ pattern: "newline", mode: "summary" }, ctx());
    assert.match(shown.text, /"new\\nline\.txt"/);
    assert.doesNotMatch(shown.text, /^line\.txt/m);
    const crlf = snapshot.matches.find((m) => displayPath(m.path) === "crlf.txt" && m.line === 2);
    assert.equal(crlf?.text, "two needle");
  });

  it("matches raw rg with hidden=false, globs, word and literal options", async () => {
    const root = await makeTree({
      "a.ts": "needle.x needles needle\n",
      "b.md": "needle.x\n",
      ".h/c.ts": "needle\n",
    });
    trees.push(root);
    const cases: [Record<string, unknown>, string, string[]][] = [
      [{ hidden: false }, "needle", ["--no-hidden"]],
      [{ glob: "*.ts" }, "needle", ["--glob", "*.ts"]],
      [{ exclude: ["*.md"] }, "needle", ["--glob", "!*.md"]],
      [{ wholeWord: true }, "needle", ["--word-regexp"]],
      [{ literal: true }, "needle.x", ["--fixed-strings"]],
      [{ ignoreCase: true }, "NEEDLE", ["--ignore-case"]],
    ];
    for (const [input, pattern, flags] of cases) {
      const snapshot = await retained(root, pattern, input);
      assert.deepEqual(asSet(snapshot), rawMatches(root, pattern, flags), JSON.stringify(input));
    }
  });

  it("matches raw rg on random file contents", async () => {
    const alphabet = ["a", "b", "é", "😀", "\r\n", "\n", " ", "ab", "日", "\u2028", "\t", '"', "\\"];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.constantFrom(...alphabet), { maxLength: 60 }), { minLength: 1, maxLength: 4 }),
        fc.constantFrom("a", "ab", "é", "b+", "😀|日", "a.b"),
        async (contents, pattern) => {
          const files: Record<string, string> = {};
          contents.forEach((parts, i) => {
            files[`f${i}.txt`] = `${parts.join("")}ab\n`;
          });
          const root = await makeTree(files);
          try {
            const snapshot = await retained(root, pattern);
            assert.deepEqual(asSet(snapshot), rawMatches(root, pattern));
            checkColumns(snapshot);
          } finally {
            await removeTree(root);
          }
        },
      ),
      { numRuns: 12 },
    );
  });
});
