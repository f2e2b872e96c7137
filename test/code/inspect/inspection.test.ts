/**
 * Inspection through the real service: whole symbols from real files, one byte budget per
 * answer, per-input outcomes, revisions bound to the search (G08), merged ranges (G24), and
 * source continuations that are exact, replayable and refuse anything forged or stale.
 */
import assert from "node:assert/strict";
import { appendFile, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { revisionOf } from "../../../src/code/revisions/scan.js";
import { codeSearchInputSchema } from "../../../src/code/schema.js";
import { memorySnapshotStore } from "../../../src/code/snapshots/store.js";
import { decodeSourceCursor, encodeSourceCursor } from "../../../src/code/source/source-cursor.js";
import { INSPECT_RESPONSE_MAX_BYTES, SOURCE_CURSOR_TTL_MS } from "../../../src/core/limits.js";
import { treesRemovedAfter } from "../helpers.js";
import { ctx, errorCode, makeService } from "../service-helpers.js";

const makeTree = treesRemovedAfter(after);

const SOURCE = `import { x } from "./x";

export class Shapes {
  area(r: number): number {
    const needle = r * r;
    return needle * 3.14;
  }

  perimeter(r: number): number {
    return 2 * r * 3.14; // needle
  }
}

export function helper(): number {
  return 1; // needle
}
`;

/** The shown line numbers of an answer's text (lines that start with a number and a tab). */
function shownLines(text: string): number[] {
  return [...text.matchAll(/^(\d+)\t/gm)].map((m) => Number(m[1]));
}

describe("inspection", () => {
  it("names a symbol that shares a line with another by its own name", async () => {
    const root = await makeTree({
      "src/one.ts":
        "export function alpha() { return 1 } export function beta() { return 2 }\nexport function gamma() {\n  return 3;\n} export function delta() { return 4 }\n",
    });
    const service = makeService(root);
    try {
      const named = async (input: { symbol: string } | { line: number }) =>
        (await service.run({ path: "src/one.ts", ...input }, ctx())).data.inspections?.[0]?.symbol
          ?.qualifiedName;
      assert.equal(await named({ symbol: "beta" }), "beta");
      assert.equal(await named({ symbol: "delta" }), "delta");
      assert.equal(await named({ line: 4 }), "delta");
      // A structure match's node: the symbol holding it, not the other one on its line.
      const found = await service.run({ structure: "return $A", path: "src/one.ts", limit: 1 }, ctx());
      const cursor = found.data.cursor as string;
      const ofMatch = async (inspect: number) =>
        (await service.run({ cursor, inspect }, ctx())).data.inspections?.[0]?.symbol?.qualifiedName;
      assert.deepEqual([await ofMatch(1), await ofMatch(2), await ofMatch(4)], ["alpha", "beta", "delta"]);
      assert.equal(
        await errorCode(service.run({ path: "src/one.ts", symbol: "alpha.beta" }, ctx())),
        "invalid_arguments",
      );
    } finally {
      await service.close();
    }
  });

  it("shows the whole enclosing symbol of a match, with original line numbers", async () => {
    const root = await makeTree({ "src/shapes.ts": SOURCE });
    const service = makeService(root);
    try {
      const found = await service.run({ pattern: "needle", mode: "summary" }, ctx());
      const answer = await service.run({ cursor: found.data.cursor as string, inspect: 1 }, ctx());
      assert.deepEqual(shownLines(answer.text), [4, 5, 6, 7]);
      assert.match(answer.text, /method Shapes\.area, lines 4-7 \(ast-grep\)/);
      const [outcome] = answer.data.inspections ?? [];
      assert.equal(outcome?.status, "complete");
      assert.deepEqual(outcome?.symbol, { name: "area", qualifiedName: "Shapes.area", kind: "method" });
      assert.equal(answer.data.fragments?.[0]?.text, `${SOURCE.split("\n").slice(3, 7).join("\n")}\n`);
    } finally {
      await service.close();
    }
  });

  it("G24: a batch with overlapping targets shows each same-revision line once, with one outcome per input", async () => {
    const root = await makeTree({ "src/shapes.ts": SOURCE });
    const service = makeService(root);
    try {
      const answer = await service.run(
        {
          targets: [
            { path: "src/shapes.ts", line: 5 },
            { path: "src/shapes.ts", symbol: "Shapes" },
            { path: "src/shapes.ts", line: 10 },
            { path: "src/shapes.ts", line: 15 },
          ],
        },
        ctx(),
      );
      const lines = shownLines(answer.text);
      assert.deepEqual(lines, [...new Set(lines)], "no line twice");
      // The class holds both methods; the function after the blank line 13 is its own range.
      assert.deepEqual(lines, [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16]);
      const outcomes = answer.data.inspections ?? [];
      assert.deepEqual(
        outcomes.map((o) => [o.input, o.status, o.symbol?.qualifiedName, o.fragment]),
        [
          [1, "complete", "Shapes.area", 0],
          [2, "complete", "Shapes", 0],
          [3, "complete", "Shapes.perimeter", 0],
          [4, "complete", "helper", 1],
        ],
      );
      assert.match(answer.text, /\[2\] .*shown once, with \[1\]/);
      assert.ok(Buffer.byteLength(answer.text) <= INSPECT_RESPONSE_MAX_BYTES);
    } finally {
      await service.close();
    }
  });

  it("G24: the batch shares one byte budget, and what does not fit is owed exactly", async () => {
    const body = Array.from({ length: 800 }, (_, i) => `  const v${i} = ${i}; // filler filler filler`).join(
      "\n",
    );
    const big = `function first() {\n${body}\n}\n\nfunction second() {\n${body}\n}\n`;
    const root = await makeTree({ "a.ts": big });
    const service = makeService(root);
    try {
      const answer = await service.run(
        {
          targets: [
            { path: "a.ts", symbol: "first" },
            { path: "a.ts", symbol: "second" },
          ],
        },
        ctx(),
      );
      assert.ok(Buffer.byteLength(answer.text) <= INSPECT_RESPONSE_MAX_BYTES);
      assert.equal(answer.data.status, "partial");
      assert.deepEqual(
        answer.data.inspections?.map((o) => o.status),
        ["partial", "partial"],
      );
      assert.ok(answer.data.sourceCursor !== undefined);
      assert.equal(answer.data.coverage?.retention?.status, "partial");
    } finally {
      await service.close();
    }
  });

  it("continues a symbol larger than the budget to its exact end, and a replay gives the same answer", async () => {
    const body = Array.from({ length: 3000 }, (_, i) => `  total += ${i}; // é ${"x".repeat(i % 40)}`).join(
      "\n",
    );
    const source = `// header\nexport function huge(): number {\n  let total = 0;\n${body}\n  return total;\n}\n// after\n`;
    const root = await makeTree({ "big.ts": source });
    const service = makeService(root);
    try {
      let answer = await service.run({ path: "big.ts", line: 3 }, ctx());
      const pieces: string[] = [];
      const seen: number[] = [];
      let pages = 0;
      for (;;) {
        pages++;
        assert.ok(Buffer.byteLength(answer.text) <= INSPECT_RESPONSE_MAX_BYTES);
        for (const f of answer.data.fragments ?? []) pieces.push(f.text);
        seen.push(...shownLines(answer.text));
        const cursor = answer.data.sourceCursor;
        if (cursor === undefined) break;
        const again = await service.run({ sourceCursor: cursor }, ctx());
        const replay = await service.run({ sourceCursor: cursor }, ctx());
        assert.equal(replay.text, again.text, "replay is idempotent");
        answer = again;
      }
      assert.ok(pages > 3);
      const lines = source.split("\n");
      assert.equal(
        pieces.join(""),
        `${lines.slice(1, lines.length - 2).join("\n")}\n`,
        "exactly the symbol's bytes",
      );
      assert.equal(seen[0], 2);
      assert.equal(seen[seen.length - 1], lines.length - 2);
    } finally {
      await service.close();
    }
  });

  it("refuses forged, foreign, changed and expired source cursors", async () => {
    const body = Array.from({ length: 2000 }, (_, i) => `  n += ${i};`).join("\n");
    const root = await makeTree({ "big.ts": `function big() {\n${body}\n}\n` });
    const service = makeService(root);
    try {
      const answer = await service.run({ path: "big.ts", symbol: "big" }, ctx());
      const cursor = answer.data.sourceCursor as string;
      assert.ok(cursor);
      const forged = `${cursor.slice(0, 10)}${cursor[10] === "A" ? "B" : "A"}${cursor.slice(11)}`;
      assert.equal(await errorCode(service.run({ sourceCursor: forged }, ctx())), "cursor_malformed");
      assert.equal(
        await errorCode(service.run({ sourceCursor: cursor }, ctx("someone-else"))),
        "cursor_malformed",
      );
      await appendFile(join(root, "big.ts"), "// edited\n");
      assert.equal(await errorCode(service.run({ sourceCursor: cursor }, ctx())), "source_changed");
      assert.equal(
        await errorCode(service.run({ sourceCursor: cursor, path: "big.ts" }, ctx())),
        "invalid_arguments",
      );
    } finally {
      await service.close();
    }
    const store = memorySnapshotStore();
    const token = encodeSourceCursor(store, "c", {
      issuedAt: 1_000,
      documents: [
        {
          path: "/x",
          display: "x",
          revision: revisionOf({ size: "1", mtimeNs: "1", ctimeNs: "1", ino: "1", dev: "1" }),
          hash: "h",
          ranges: [{ startByte: 0, endByte: 1 }],
        },
      ],
    });
    assert.equal(decodeSourceCursor(store, "c", token, 1_000 + SOURCE_CURSOR_TTL_MS).issuedAt, 1_000);
    assert.throws(() => decodeSourceCursor(store, "c", token, 1_001 + SOURCE_CURSOR_TTL_MS), {
      code: "cursor_expired",
    });
  });

  it("G08: a match's file that changed since the search, or was never verified, is source_changed", async () => {
    const root = await makeTree({ "a.ts": SOURCE, "b.ts": SOURCE });
    const service = makeService(root);
    try {
      const found = await service.run({ pattern: "needle", mode: "summary" }, ctx());
      const cursor = found.data.cursor as string;
      await writeFile(join(root, "a.ts"), SOURCE.replace("area", "size"));
      await utimes(join(root, "a.ts"), new Date(), new Date(Date.now() + 5_000));
      // a.ts holds matches 1-4; b.ts (5-8) is unchanged.
      await assert.rejects(service.run({ cursor, inspect: 2 }, ctx()), (error: Error & { code?: string }) => {
        assert.equal(error.code, "source_changed");
        assert.match(error.message, /a\.ts changed since the search/);
        return true;
      });
      const mixed = await service.run({ cursor, matchIndices: [1, 5] }, ctx());
      assert.deepEqual(
        mixed.data.inspections?.map((o) => [o.status, o.error?.code]),
        [
          ["error", "source_changed"],
          ["complete", undefined],
        ],
      );
    } finally {
      await service.close();
    }
  });

  it("G08: a match whose file had no verified revision at search time is refused, not read", async () => {
    const root = await makeTree({ "a.ts": SOURCE });
    const service = makeService(root);
    try {
      const found = await service.run({ pattern: "needle", mode: "summary" }, ctx());
      const id = service.store.decodeCursor(found.data.cursor as string).snapshotId;
      const snapshot = await service.store.get("caller-1", id);
      // The same result, as if the file had changed during the search (no trusted revision).
      const unverifiedId = await service.store.put("caller-1", { ...snapshot, trustedRevisions: {} });
      const cursor = service.store.encodeCursor({ snapshotId: unverifiedId, offset: 0, kind: "summary" });
      await assert.rejects(service.run({ cursor, inspect: 1 }, ctx()), (error: Error & { code?: string }) => {
        assert.equal(error.code, "source_changed");
        assert.match(error.message, /not verified unchanged during the search/);
        return true;
      });
    } finally {
      await service.close();
    }
  });

  it("checks the request form before reading anything", async () => {
    const root = await makeTree({ "a.ts": SOURCE });
    const service = makeService(root);
    try {
      const found = await service.run({ pattern: "needle", mode: "summary" }, ctx());
      const cursor = found.data.cursor as string;
      const invalid = [
        { path: "missing.ts", line: 1, symbol: "x" },
        { path: "missing.ts", line: 1, targets: [{ path: "missing.ts", line: 1 }] },
        { inspect: 1 },
        { cursor, inspect: 1, matchIndices: [1] },
        { cursor, inspect: 1, context: 3 },
        { cursor, inspect: 1, path: "a.ts" },
        { cursor, path: "a.ts", line: 2 },
        { line: 2 },
        { targets: [{ path: "missing.ts" }] },
        { cursor, inspect: 99 },
        { structure: "f($A)", literal: true },
        { pattern: "x", maxParseFiles: 3 },
      ];
      for (const input of invalid) {
        assert.equal(await errorCode(service.run(input, ctx())), "invalid_arguments", JSON.stringify(input));
      }
      assert.equal(await errorCode(service.run({ cursor: "bogus", inspect: 1 }, ctx())), "cursor_malformed");
      const tooMany = codeSearchInputSchema.safeParse({
        targets: Array.from({ length: 6 }, () => ({ path: "a.ts", line: 1 })),
      });
      assert.equal(tooMany.success, false);
    } finally {
      await service.close();
    }
  });

  it("gives each input its outcome: an error for one target does not hide the others", async () => {
    const root = await makeTree({ "a.ts": SOURCE });
    const service = makeService(root);
    try {
      const answer = await service.run(
        {
          targets: [
            { path: "gone.ts", line: 1 },
            { path: "a.ts", symbol: "nothing" },
            { path: "a.ts", symbol: "helper" },
            { path: ".git/config", line: 1 },
          ],
        },
        ctx(),
      );
      assert.deepEqual(
        answer.data.inspections?.map((o) => [o.status, o.error?.code]),
        [
          ["error", "invalid_arguments"],
          ["error", "invalid_arguments"],
          ["complete", undefined],
          ["error", "path_not_allowed"],
        ],
      );
      assert.match(answer.text, /no symbol named "nothing" in a\.ts \(it has Shapes, Shapes\.area/);
      assert.equal(await errorCode(service.run({ path: "gone.ts", line: 1 }, ctx())), "invalid_arguments");
    } finally {
      await service.close();
    }
  });

  it("shows an explicit excerpt when no symbol encloses the line, or no provider parses the file", async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join("\n");
    const root = await makeTree({ "a.ts": SOURCE, "notes.unknownext": `${lines}\n`, "a.rb": "puts 1\n" });
    const service = makeService(root, { env: { PATH: "" } });
    try {
      const top = await service.run({ path: "a.ts", line: 1 }, ctx());
      assert.equal(top.data.inspections?.[0]?.syntax?.status, "no_symbol");
      assert.match(top.text, /an excerpt: no symbol range \(no_symbol/);
      const notes = await service.run({ path: "notes.unknownext", line: 30 }, ctx());
      assert.equal(notes.data.inspections?.[0]?.syntax?.status, "no_provider");
      assert.deepEqual(
        shownLines(notes.text),
        Array.from({ length: 41 }, (_, i) => i + 10),
      );
      assert.equal(notes.data.coverage?.syntax?.status, "none");
      assert.equal(await errorCode(service.run({ path: "a.rb", symbol: "x" }, ctx())), "syntax_unavailable");
    } finally {
      await service.close();
    }
  });

  it("G04: shows content that is not UTF-8 as a lossy preview without a continuation, and points at no cursor", async () => {
    const bad = Buffer.concat([
      Buffer.from("function f() {\n"),
      Buffer.concat(Array.from({ length: 3000 }, () => Buffer.from([0x20, 0x78, 0xff, 0x0a]))),
      Buffer.from("}\n"),
    ]);
    const root = await makeTree({ "a.js": bad });
    const service = makeService(root);
    try {
      const answer = await service.run({ path: "a.js", line: 1 }, ctx());
      assert.equal(answer.data.sourceCursor, undefined);
      assert.equal(answer.data.fragments?.[0]?.lossy, true);
      assert.equal(answer.data.status, "partial");
      assert.match(answer.text, /not valid UTF-8: a lossy preview/);
      assert.match(answer.text, /not continued because the file is not valid UTF-8/);
      // The text points at no cursor it does not give.
      assert.doesNotMatch(answer.text, /sourceCursor/);
      assert.match(answer.text, /not all shown, and not continued \(not valid UTF-8\)/);
    } finally {
      await service.close();
    }
  });

  it("masks credential-like values when asked, in what is shown only", async () => {
    const root = await makeTree({
      "a.ts": 'function f() {\n  const apiKey = "sk-abcdefghijklmnopqrstuvwx";\n}\n',
    });
    const service = makeService(root);
    try {
      const answer = await service.run({ path: "a.ts", line: 2, redact: true }, ctx());
      assert.doesNotMatch(answer.text, /sk-abcdefghijklmnopqrstuvwx/);
      assert.match(answer.text, /\[redacted\]/);
    } finally {
      await service.close();
    }
  });
});
