import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { CodeSearchResponse } from "../../../src/code/service.js";
import { memoryKept, snapshotStore } from "../../../src/code/snapshots/store.js";
import {
  ANALYSIS_ITEMS_PER_PAGE,
  ANYOF_GROUP_TERMS,
  DETAIL_PAGE_MAX_BYTES,
  RG_MAX_PROTOCOL_LINE_BYTES,
} from "../../../src/core/limits.js";
import { isRunning, treesRemovedAfter } from "../helpers.js";
import { ctx, errorCode, makeService } from "../service-helpers.js";

const tree = treesRemovedAfter(after);

type Item = NonNullable<CodeSearchResponse["data"]["items"]>[number];

/** Follows analysis cursors to the end; returns every item and every answer. */
async function walk(
  service: ReturnType<typeof makeService>,
  first: CodeSearchResponse,
  extra: Record<string, unknown> = {},
  caller = "caller-1",
): Promise<{ items: Item[]; pages: CodeSearchResponse[] }> {
  const items = [...(first.data.items ?? [])];
  const pages = [first];
  let current = first;
  while (current.data.cursor !== undefined) {
    assert.equal(current.data.cursorKind, "analysis");
    current = await service.run({ cursor: current.data.cursor, ...extra }, ctx(caller));
    items.push(...(current.data.items ?? []));
    pages.push(current);
    if (pages.length > 10_000) throw new Error("cursor walk does not end");
  }
  return { items, pages };
}

/** Every occurrence of each term, found independently: term, then path, then byte offset. */
async function expected(root: string, files: readonly string[], terms: readonly string[]) {
  const out: string[] = [];
  for (const term of terms) {
    for (const file of [...files].sort()) {
      const bytes = await readFile(join(root, file));
      for (let at = bytes.indexOf(term); at !== -1; at = bytes.indexOf(term, at + Buffer.byteLength(term))) {
        out.push(`${term}\0${file}\0${at}`);
      }
    }
  }
  return out;
}

/** An item as `expected` spells it: term, path, absolute byte offset in its file. */
async function itemKeys(root: string, items: readonly Item[]) {
  const keys: string[] = [];
  for (const item of items) {
    const lines = (await readFile(join(root, item.path), "utf8")).split("\n");
    const lineStart =
      Buffer.byteLength(lines.slice(0, (item.line ?? 1) - 1).join("\n")) + (item.line === 1 ? 0 : 1);
    keys.push(`${item.term}\0${item.path}\0${lineStart + (item.startByte ?? 0)}`);
  }
  return keys;
}

describe("anyOf", () => {
  it("G16: more than eight terms scan in bounded groups and keep term, path, byte order across pages", async () => {
    const terms = Array.from({ length: 21 }, (_, i) => `t${String(i).padStart(2, "0")}x`);
    const files: Record<string, string> = {};
    for (let f = 0; f < 6; f++) {
      // Terms in descending order inside each file, several per line, so neither file order
      // nor line order alone gives the expected order.
      const lines = Array.from({ length: 5 }, (_, l) =>
        terms
          .filter((_, t) => (t + f + l) % 3 === 0)
          .reverse()
          .join(" "),
      );
      files[`src/${String.fromCharCode(102 - f)}.ts`] = `${lines.join("\n")}\n`;
    }
    const root = await tree(files);
    const spawned: number[] = [];
    const service = makeService(root, { onProcessSpawn: (pid) => spawned.push(pid) });
    const first = await service.run({ anyOf: terms, limit: 7 }, ctx());
    // One names-only listing shared by the groups, then one content scan per group of eight.
    assert.equal(spawned.length, 1 + Math.ceil(terms.length / ANYOF_GROUP_TERMS));
    const { items, pages } = await walk(service, first, { limit: 7 });
    const want = await expected(root, Object.keys(files), terms);
    assert.ok(want.length > 60, "enough occurrences to span many pages");
    assert.deepEqual(await itemKeys(root, items), want);
    assert.deepEqual(
      items.map((item) => item.index),
      want.map((_, i) => i + 1),
    );
    for (const page of pages) {
      assert.ok((page.data.items?.length ?? 0) <= 7);
      assert.ok(Buffer.byteLength(page.text) <= DETAIL_PAGE_MAX_BYTES);
    }
    // The same request again gives the same order, whichever group finished first.
    const again = await walk(service, await service.run({ anyOf: terms, limit: 7 }, ctx()), { limit: 7 });
    assert.deepEqual(again.items, items);
    await service.close();
    assert.ok(
      spawned.every((pid) => !isRunning(pid)),
      "no ripgrep outlives the calls",
    );
  });

  it("keeps overlapping occurrences of different terms, each attributed to its term", async () => {
    const root = await tree({ "a.ts": "abcd\n" });
    const service = makeService(root);
    const result = await service.run({ anyOf: ["abcd", "bc", "abc", "cd"] }, ctx());
    assert.deepEqual(
      result.data.items?.map((i) => [i.term, i.startByte, i.endByte]),
      [
        ["abcd", 0, 4],
        ["bc", 1, 3],
        ["abc", 0, 3],
        ["cd", 2, 4],
      ],
    );
    assert.match(
      result.text,
      /#1 "abcd" 1 in 1 file; #2 "bc" 1 in 1 file; #3 "abc" 1 in 1 file; #4 "cd" 1 in 1 file/,
    );
    await service.close();
  });

  it("gives exact-case terms byte offsets and UTF-16 columns on non-ASCII lines, next to ASCII ones", async () => {
    const root = await tree({ "a.ts": "x bé\n😀 bé x\n" });
    const service = makeService(root);
    const result = await service.run({ anyOf: ["bé", "x"], ignoreCase: false }, ctx());
    assert.deepEqual(
      result.data.items?.map((i) => [i.term, i.line, i.startByte, i.endByte, i.startColumn, i.endColumn]),
      // Columns count UTF-16 units from 1; "😀" is 4 bytes and 2 units.
      [
        ["bé", 1, 2, 5, 3, 5],
        ["bé", 2, 5, 8, 4, 6],
        ["x", 1, 0, 1, 1, 2],
        ["x", 2, 9, 10, 7, 8],
      ],
    );
    await service.close();
  });

  it("G15: counts come from stored items; a cut term reads at least, never as a total", async () => {
    const root = await tree({ "a.ts": "alpha alpha alpha\nbeta beta\nbeta gamma\n" });
    const service = makeService(root, { analysisBounds: { maxItems: 4, maxBytes: 1 << 20 } });
    const result = await service.run({ anyOf: ["alpha", "beta", "gamma"] }, ctx());
    assert.equal(result.data.status, "partial");
    assert.deepEqual(result.data.terms, [
      { term: "alpha", occurrences: 3, files: 1, complete: true },
      { term: "beta", occurrences: 1, files: 1, complete: false },
      { term: "gamma", occurrences: 0, files: 0, complete: false },
    ]);
    assert.equal(result.data.totalItems, 4);
    assert.equal(result.data.totalOccurrences, 4);
    assert.match(result.text, /at least 4 occurrences/);
    assert.match(result.text, /#2 "beta" at least 1 \(partial\)/);
    assert.match(result.text, /#3 "gamma" at least 0 \(partial\)/);
    assert.doesNotMatch(result.text, /"beta" 3/);
    await service.close();
  });

  it("G15: a candidate scan cut by its retention bound leaves its group's terms partial", async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i} needle`).join("\n");
    const root = await tree({ "a.ts": `${lines}\n`, "b.ts": "other\n" });
    const service = makeService(root, {
      retention: { maxMatches: 10, maxOccurrences: 1_000, maxBytes: 1 << 20 },
    });
    const terms = [...Array.from({ length: ANYOF_GROUP_TERMS }, (_, i) => `needle${i}x`), "needle", "other"];
    // The first group has nothing; the second (needle, other) stops at 10 lines.
    const result = await service.run({ anyOf: terms }, ctx());
    assert.equal(result.data.status, "partial");
    const byTerm = Object.fromEntries((result.data.terms ?? []).map((t) => [t.term, t]));
    assert.equal(byTerm.needle0x?.complete, true);
    assert.equal(byTerm.needle?.complete, false);
    assert.equal(byTerm.other?.complete, false);
    assert.ok((byTerm.needle?.occurrences ?? 0) <= 10);
    assert.equal(result.data.coverage?.occurrences?.status, "partial");
    assert.equal(result.data.coverage?.retention?.status, "complete");
    assert.match(result.text, /PARTIAL occurrences: .*terms #9-#10/);
    await service.close();
  });

  it("G05: top-level counts are the stored items; occurrence and retention coverage are separate facts", async () => {
    const root = await tree({ "a.ts": "one two\none\n" });
    const complete = makeService(root);
    const whole = await complete.run({ anyOf: ["one", "two"] }, ctx());
    assert.deepEqual(whole.data.coverage, {
      occurrences: { status: "complete" },
      retention: { status: "complete" },
    });
    assert.equal(whole.data.totalItems, whole.data.items?.length);
    const cut = makeService(root, { analysisBounds: { maxItems: 2, maxBytes: 1 << 20 } });
    const partial = await cut.run({ anyOf: ["one", "two"] }, ctx());
    assert.equal(partial.data.coverage?.occurrences?.status, "complete");
    assert.equal(partial.data.coverage?.retention?.status, "partial");
    assert.equal(partial.data.totalItems, 2);
    assert.equal(partial.data.totalOccurrences, 2);
    assert.equal(partial.data.totalFiles, 1);
    await complete.close();
    await cut.close();
  });

  it("a group finding more occurrences than a call can take as arguments is merged, then cut by retention", async () => {
    // 120,000 of "a" and 60,000 of "aa" in one line: 180,000 items from one candidate scan
    // (within its 200,000-occurrence bound), more than a spread into push() accepts.
    const root = await tree({ "a.ts": `${"a".repeat(120_000)}\n` });
    const service = makeService(root);
    const result = await service.run({ anyOf: ["a", "aa"] }, ctx());
    assert.equal(result.data.coverage?.occurrences?.status, "complete");
    assert.equal(result.data.coverage?.retention?.status, "partial");
    assert.equal(result.data.totalItems, 50_000);
    assert.deepEqual(
      result.data.terms?.map((t) => [t.term, t.occurrences, t.complete]),
      [
        ["a", 50_000, false],
        ["aa", 0, false],
      ],
    );
    await service.close();
  });

  it("pages hold at most thirty items, and the last page lets the stored result go", async () => {
    const root = await tree({ "a.ts": "x y\n".repeat(40) });
    const kept = memoryKept();
    const store = snapshotStore(kept);
    const service = makeService(root, { store });
    const first = await service.run({ anyOf: ["x", "y"] }, ctx());
    assert.equal(first.data.items?.length, ANALYSIS_ITEMS_PER_PAGE);
    assert.equal(kept.size, 1);
    const { items } = await walk(service, first);
    assert.equal(items.length, 80);
    assert.equal(kept.size, 0);
    assert.equal(
      await errorCode(service.run({ cursor: first.data.cursor as string }, ctx())),
      "cursor_expired",
    );
    await service.close();
  });

  it("a result that fits one page is answered whole and never stored", async () => {
    const root = await tree({ "a.ts": "x y\n" });
    const kept = memoryKept();
    const store = snapshotStore(kept);
    const service = makeService(root, { store });
    const result = await service.run({ anyOf: ["x", "y"] }, ctx());
    assert.equal(result.data.cursor, undefined);
    assert.equal(result.data.items?.length, 2);
    assert.equal(kept.size, 0);
    await service.close();
  });

  it("analysis cursors are bound to their caller and refuse what would change them", async () => {
    const root = await tree({ "a.ts": "x y\n".repeat(40) });
    const service = makeService(root);
    const first = await service.run({ anyOf: ["x", "y"] }, ctx());
    const cursor = first.data.cursor as string;
    assert.equal(await errorCode(service.run({ cursor }, ctx("someone-else"))), "cursor_not_found");
    assert.equal(await errorCode(service.run({ cursor, mode: "summary" }, ctx())), "cursor_wrong_kind");
    // Its items are inspected by path and line, and the refusal says so.
    for (const input of [{ inspect: 1 }, { impact: true, inspect: 1 }]) {
      const error = await service.run({ cursor, ...input }, ctx()).catch((e: unknown) => e);
      assert.equal((error as { code?: string }).code, "cursor_wrong_kind");
      assert.match((error as Error).message, /inspect an item by its path and line/);
    }
    assert.equal(
      await errorCode(service.run({ cursor, anyOf: ["z", "w"] }, ctx())),
      "cursor_option_conflict",
    );
    assert.equal(await errorCode(service.run({ cursor, paths: ["a.ts"] }, ctx())), "cursor_option_conflict");
    assert.equal(
      await errorCode(service.run({ cursor: `${cursor.slice(0, -2)}AA` }, ctx())),
      "cursor_malformed",
    );
    await service.close();
  });

  it("an empty subpath is searched again from the project root, and said so", async () => {
    const root = await tree({ "src/a.ts": "nothing\n", "lib/b.ts": "needle haystack\n" });
    const service = makeService(root);
    const result = await service.run({ anyOf: ["needle", "haystack"], path: "src" }, ctx());
    assert.equal(result.data.expanded, true);
    assert.equal(result.data.totalItems, 2);
    assert.match(
      result.text.split("\n")[0] ?? "",
      /^code_search anyOf 2 terms .* in the project root, widened from "src" where nothing matched/,
    );
    const strict = await service.run({ anyOf: ["needle", "haystack"], path: "src", scope: "strict" }, ctx());
    assert.equal(strict.data.view, "empty");
    assert.equal(strict.data.totalItems, 0);
    await service.close();
  });

  it("a subpath whose scan was cut before it found anything is not widened, nor called empty", async () => {
    const huge = `needle ${"z".repeat(RG_MAX_PROTOCOL_LINE_BYTES)}`;
    const root = await tree({ "src/a.txt": `${huge}\n`, "lib/b.ts": "needle haystack\n" });
    const service = makeService(root);
    const result = await service.run({ anyOf: ["needle", "haystack"], path: "src" }, ctx());
    assert.equal(result.data.expanded, false);
    assert.equal(result.data.totalItems, 0);
    assert.doesNotMatch(result.text, /Nothing matched|No matches/);
    assert.match(
      result.text,
      /PARTIAL occurrences: a candidate scan stopped .*protocol_line_limit in src\/a\.txt/,
    );
    await service.close();
  });

  it("a failing group stops the others and leaves no ripgrep running", async () => {
    const root = await tree({ "a.ts": "x\n" });
    const spawned: number[] = [];
    const service = makeService(root, { onProcessSpawn: (pid) => spawned.push(pid) });
    const terms = Array.from({ length: 30 }, (_, i) => `term${i}`);
    assert.equal(await errorCode(service.run({ anyOf: terms, glob: ["{a"] }, ctx())), "invalid_arguments");
    assert.ok(spawned.every((pid) => !isRunning(pid)));
    await service.close();
  });

  for (const [label, input, field] of [
    ["a duplicate term", { anyOf: ["a", "b", "a"] }, "anyOf[2]"],
    ["a term with a line break", { anyOf: ["a", "b\nc"] }, "anyOf[1]"],
    ["a term over 256 UTF-8 bytes", { anyOf: ["a", "é".repeat(129)] }, "anyOf[1]"],
    ["pattern and anyOf", { anyOf: ["a", "b"], pattern: "c" }, "pattern"],
    ["literal with anyOf", { anyOf: ["a", "b"], literal: false }, "literal"],
    ["mode with anyOf", { anyOf: ["a", "b"], mode: "summary" }, "mode"],
    ["context with anyOf", { anyOf: ["a", "b"], context: 2 }, "context"],
  ] as const) {
    it(`refuses ${label} as invalid_arguments naming ${field}`, async () => {
      const root = await tree({ "a.ts": "a b\n" });
      const service = makeService(root);
      const error = await service.run(input as never, ctx()).catch((e: unknown) => e);
      assert.equal((error as { code?: string }).code, "invalid_arguments");
      assert.equal((error as { details?: { field?: string } }).details?.field, field);
      await service.close();
    });
  }
});
