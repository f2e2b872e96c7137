/**
 * Structure search through the real service: ast-grep patterns over the pattern search's file
 * scope, the node and enclosing symbol of each match, cursors and inspection on its snapshot,
 * every candidate status counted apart from matches and retention (G05, G13), and cancellation
 * of parsing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { allMatches } from "../../../src/code/rg/match-table.js";
import { fileSnapshots } from "../../../src/code/snapshots/backends.js";
import { searchSnapshot, snapshotStore } from "../../../src/code/snapshots/store.js";
import { literalWords } from "../../../src/code/structure/search.js";
import {
  PARSE_BYTES_MAX,
  PARSE_CONCURRENCY,
  SNAPSHOT_MAX_BYTES,
  SOURCE_DOCUMENT_MAX_BYTES,
} from "../../../src/core/limits.js";
import { rawMatches, treesRemovedAfter } from "../helpers.js";
import { ctx, errorCode, makeService } from "../service-helpers.js";

const makeTree = treesRemovedAfter(after);

const APP = `export function main(args: string[]) {
  console.log("start");
  for (const a of args) {
    console.log(a, args.length);
  }
}

class Logger {
  write(line: string) {
    console.log(line);
  }
}
`;

describe("structure search", () => {
  it("an empty subpath is widened to the project root, said on the first line and in the data", async () => {
    const root = await makeTree({ "src/app.ts": APP, "empty/none.ts": "export const x = 1;\n" });
    const service = makeService(root);
    for (const mode of [undefined, "summary", "matches"] as const) {
      const result = await service.run(
        { structure: "console.log($A)", path: "empty", ...(mode === undefined ? {} : { mode }) },
        ctx(),
      );
      assert.equal(result.data.requestedRoot, "empty");
      assert.equal(result.data.effectiveRoot, ".");
      assert.equal(result.data.expanded, true);
      assert.equal(result.data.totalMatches, 2);
      assert.match(
        result.text.split("\n")[0] ?? "",
        /^code_search structure "console\.log\(\$A\)" in the project root, widened from "empty" where nothing matched/,
        `mode ${mode}`,
      );
    }
    const strict = await service.run({ structure: "console.log($A)", path: "empty", scope: "strict" }, ctx());
    assert.equal(strict.data.expanded, false);
    assert.equal(strict.data.view, "empty");
    assert.match(
      strict.text.split("\n")[0] ?? "",
      /^No matches for structure .* in "empty"\. scope was strict/,
    );
    await service.close();
  });

  it("is partial when a parsed file has syntax errors, where matches may be missed", async () => {
    const root = await makeTree({
      "ok.ts": "function ok() {\n  call(1);\n}\n",
      "broken.ts": "function broken( {\n  call(2);\n",
    });
    const service = makeService(root);
    try {
      const answer = await service.run({ structure: "call($X)", mode: "matches" }, ctx());
      assert.deepEqual(answer.data.coverage?.syntax, {
        status: "partial",
        counts: { parsed: 2, parsed_with_syntax_errors: 1 },
      });
      assert.equal(answer.data.status, "partial");
      assert.match(
        answer.text,
        /syntax partial: 2 parsed \(1 with syntax errors, where matches may be missed\)/,
      );
      // Without the broken file: complete.
      const clean = await service.run({ structure: "call($X)", path: "ok.ts" }, ctx());
      assert.equal(clean.data.coverage?.syntax?.status, "complete");
      assert.equal(clean.data.status, "complete");
    } finally {
      await service.close();
    }
  });

  it("attributes a match to the symbol it is in when a line holds several", async () => {
    const root = await makeTree({
      "src/one.ts":
        "export function alpha() { return 1 } export function beta() { return 2 }\nexport function gamma() {\n  return 3;\n} export function delta() { return 4 }\n",
    });
    const service = makeService(root);
    try {
      const answer = await service.run({ structure: "return $A", mode: "matches" }, ctx());
      assert.deepEqual(
        (answer.data.matches ?? []).map((m) => [m.line, m.node?.startColumn, m.node?.symbol]),
        [
          [1, 27, "alpha"],
          [1, 63, "beta"],
          [3, 3, "gamma"],
          [4, 29, "delta"],
        ],
      );
      // Two matches on line 1: the summary counts matches, not matching lines.
      const summary = await service.run({ structure: "return $A", mode: "summary" }, ctx());
      assert.match(summary.text, /Files 1-1 of 1, ranked by matches:\n {2}4 {2}src\/one\.ts\n/);
    } finally {
      await service.close();
    }
  });

  it("finds nodes by pattern, with the node's range and the enclosing symbol", async () => {
    const root = await makeTree({
      "src/app.ts": APP,
      "src/other.js": "// console.log(commented)\nconst x = 'console.log(quoted)';\n",
      "README.md": "console.log(docs)\n",
    });
    const service = makeService(root);
    try {
      const answer = await service.run({ structure: "console.log($A)", mode: "matches" }, ctx());
      const shown = answer.data.matches ?? [];
      // Only real calls with one argument: not the two-argument call, comments, strings or prose.
      assert.deepEqual(
        shown.map((m) => [m.path, m.line, m.node?.symbol]),
        [
          ["src/app.ts", 2, "main"],
          ["src/app.ts", 10, "Logger.write"],
        ],
      );
      assert.deepEqual(shown[0]?.node, {
        startLine: 2,
        startColumn: 3,
        endLine: 2,
        endColumn: 23,
        symbol: "main",
      });
      assert.deepEqual(shown[0]?.ranges, [{ startByte: 2, endByte: 22, startColumn: 3, endColumn: 23 }]);
      assert.match(
        answer.text,
        /\[2\] 10:5 {2}\s+console\.log\(line\);\s+\(node to column 22, in Logger\.write\)/,
      );
      const all = await service.run({ structure: "console.log($$$A)", mode: "matches" }, ctx());
      assert.equal(all.data.totalMatches, 3);
      assert.equal(all.data.structure, "console.log($$$A)");
      assert.equal(all.data.pattern, undefined);
    } finally {
      await service.close();
    }
  });

  it("says a matching line is not valid UTF-8 only when that line is not", async () => {
    const root = await makeTree({
      "latin1.js": Buffer.from('// caf\xe9\nconsole.log("plain");\nconsole.log("\xe9t\xe9");\n', "latin1"),
    });
    const service = makeService(root);
    try {
      const answer = await service.run({ structure: "console.log($A)", mode: "matches" }, ctx());
      assert.match(answer.text, /^\[1\] 2:1 {2}console\.log\("plain"\); {2}\(node to column \d+\)$/m);
      assert.match(answer.text, /^\[2\] 3:1 {2}.*\(line not valid UTF-8; node to column \d+\)$/m);
    } finally {
      await service.close();
    }
  });

  it("keeps multi-line nodes whole, pages with cursors, and inspects a match by index", async () => {
    const calls = Array.from({ length: 60 }, (_, i) => `  track(\n    "event-${i}",\n  );`).join("\n");
    const root = await makeTree({ "a.ts": `export function events() {\n${calls}\n}\n` });
    const service = makeService(root);
    try {
      const summary = await service.run({ structure: "track($E)", mode: "summary" }, ctx());
      assert.equal(summary.data.totalMatches, 60);
      const page = await service.run({ cursor: summary.data.cursor as string, limit: 2 }, ctx());
      assert.deepEqual(page.data.matches?.[1]?.node, {
        startLine: 5,
        startColumn: 3,
        endLine: 7,
        endColumn: 4,
        symbol: "events",
      });
      const inspected = await service.run({ cursor: summary.data.cursor as string, inspect: 60 }, ctx());
      assert.equal(inspected.data.inspections?.[0]?.symbol?.qualifiedName, "events");
    } finally {
      await service.close();
    }
  });

  it("keeps nodes and coverage in a snapshot stored on disk (the CLI's store)", async () => {
    const calls = Array.from({ length: 60 }, (_, i) => `  track(${i});`).join("\n");
    const root = await makeTree({ "a.ts": `function events() {\n${calls}\n}\n` });
    const store = snapshotStore(fileSnapshots(join(root, ".cache-evident")));
    const service = makeService(root, { store });
    try {
      const summary = await service.run({ structure: "track($E)", mode: "summary", path: "a.ts" }, ctx());
      const page = await service.run({ cursor: summary.data.cursor as string, limit: 1 }, ctx());
      assert.deepEqual(page.data.matches?.[0]?.node, {
        startLine: 2,
        startColumn: 3,
        endLine: 2,
        endColumn: 11,
        symbol: "events",
      });
      assert.equal(page.data.coverage?.syntax?.counts?.parsed, 1);
    } finally {
      await service.close();
    }
  });

  it("G05: files past the parse budget's bytes are counted over it, not parsed; the first file always parses", async () => {
    // Three files of 3/8 of the budget each, then a small one: the third would pass the bound.
    const filler = (n: number) =>
      `// ${"x".repeat(76)}\n`.repeat(Math.ceil((PARSE_BYTES_MAX * 3) / 8 / 80) + n);
    const files: Record<string, string> = {};
    for (const name of ["a", "b", "c"])
      files[`set/${name}.ts`] = `function ${name}() {\n  audit(1);\n}\n${filler(0)}`;
    files["set/d.ts"] = "function d() {\n  audit(2);\n}\n";
    files["big/huge.ts"] = `function h() {\n  audit(3);\n}\n${filler(0)}${filler(0)}${filler(0)}`;
    const root = await makeTree(files);
    const service = makeService(root);
    try {
      const answer = await service.run({ structure: "audit($X)", path: "set", mode: "matches" }, ctx());
      assert.deepEqual(answer.data.coverage?.syntax?.counts, { parsed: 3, over_budget: 1 });
      assert.equal(answer.data.coverage?.syntax.status, "partial");
      assert.deepEqual(
        answer.data.matches?.map((m) => m.path),
        ["set/a.ts", "set/b.ts", "set/d.ts"],
      );
      assert.match(answer.text, /not searched: 1 over the parse budget/);
      // A document larger than the whole byte bound, alone, still parses.
      const alone = await service.run({ structure: "audit($X)", path: "big/huge.ts" }, ctx());
      assert.deepEqual(alone.data.coverage?.syntax?.counts, { parsed: 1 });
      assert.equal(alone.data.totalMatches, 1);
    } finally {
      await service.close();
    }
  });

  it("G05: occurrence, syntax and retention coverage are separate fields, in text and data", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 5; i++) files[`m${i}.ts`] = `function f${i}() {\n  audit(${i});\n}\n`;
    files["broken.ts"] = "function broken( {\n  audit(1);\n";
    files["notes.txt"] = "audit(9)\n";
    files["x.py"] = "def g():\n    audit(2)\n";
    const root = await makeTree(files);
    const service = makeService(root);
    try {
      const answer = await service.run({ structure: "audit($X)", maxParseFiles: 4 }, ctx());
      const coverage = answer.data.coverage;
      assert.deepEqual(coverage?.occurrences, { status: "complete", counts: { candidateFiles: 8 } });
      assert.equal(coverage?.syntax?.status, "partial");
      assert.deepEqual(coverage?.syntax.counts, { parsed: 4, over_budget: 3, parsed_with_syntax_errors: 1 });
      assert.deepEqual(coverage?.retention, {
        status: "complete",
        counts: { matches: answer.data.totalMatches },
      });
      // Counts are of matches found; the parse budget is said apart, never folded into them.
      assert.equal(answer.data.status, "partial");
      assert.match(answer.text, /Coverage: occurrences complete: 8 files in scope contain "audit"/);
      assert.match(
        answer.text,
        /syntax partial: 4 parsed \(1 with syntax errors, where matches may be missed\); not searched: 3 over the parse budget \(maxParseFiles files and 4 MiB of source a call/,
      );
      assert.match(answer.text, /retention complete: \d+ matches kept/);
    } finally {
      await service.close();
    }
  });

  it("G05: nodes on one long line of nested calls: retention stops at the text a snapshot may keep, and says so", async () => {
    // Every match keeps its line: 20,000 nested calls on one 60 KB line would keep 1.2 GB of it
    // (50,000 took the process past 4 GB of heap and ended it).
    const depth = 20_000;
    const root = await makeTree({
      "deep.ts": `export const v = ${"g(".repeat(depth)}x${")".repeat(depth)};\n`,
    });
    const service = makeService(root);
    try {
      const answer = await service.run({ structure: "g($A)" }, ctx());
      const kept = answer.data.totalMatches ?? 0;
      assert.equal(answer.data.status, "partial");
      assert.equal(answer.data.coverage?.retention?.status, "partial");
      assert.ok(kept > 0 && kept < depth, `${kept} kept`);
      assert.ok(kept * 2 * 3 * depth <= SNAPSHOT_MAX_BYTES, "the kept lines fit the snapshot's bound");
      const mib = SNAPSHOT_MAX_BYTES / (1024 * 1024);
      assert.match(answer.text, new RegExp(`retention stopped at ${mib} MiB of retained text`));
    } finally {
      await service.close();
    }
  });

  it("G13: every candidate status is explicit, and ordinary search of the same files is unchanged", async () => {
    const padding = `  // ${"x".repeat(96)}\n`.repeat(Math.ceil(SOURCE_DOCUMENT_MAX_BYTES / 100) + 10);
    const big = `function big() {\n  call(1);\n${padding}}\n`;
    const root = await makeTree({
      "ok.ts": "function ok() {\n  call(1);\n}\n",
      "broken.ts": "function broken( {\n  call(2);\n",
      "big.ts": big,
      "script.py": "def function():\n    call(3)\n",
    });
    const service = makeService(root);
    try {
      // A pattern that is JavaScript but not Python: Python files are said to be skipped for it.
      const answer = await service.run({ structure: "function $F() { call($X); }", mode: "matches" }, ctx());
      assert.deepEqual(answer.data.coverage?.syntax?.counts, {
        parsed: 2,
        parsed_with_syntax_errors: 1,
        oversized: 1,
        pattern_not_valid_here: 1,
      });
      assert.match(answer.text, /1 over the 5 MiB document bound/);
      assert.match(answer.text, /1 in a language the pattern is not valid code in/);
      assert.deepEqual(
        answer.data.matches?.map((m) => m.path),
        ["ok.ts"],
      );
      // The same tree, searched as text: ripgrep's exact match set, parse statuses or not.
      const plain = await service.run({ pattern: "call\\(", mode: "summary" }, ctx());
      const id = service.store.decodeCursor(plain.data.cursor as string).snapshotId;
      const snapshot = await searchSnapshot(service.store, "caller-1", id);
      assert.deepEqual(
        allMatches(snapshot.matches)
          .map(
            (m) =>
              `${m.path}\u0000${m.line}\u0000${m.occurrences.map((o) => `${o.startByte}-${o.endByte}`).join(",")}`,
          )
          .sort(),
        rawMatches(root, "call\\("),
      );
      assert.equal(plain.data.coverage, undefined);
      // Only Python candidates, and the pattern is not Python: that is the agent's to fix.
      assert.equal(
        await errorCode(service.run({ structure: "function $F() { call($X); }", glob: ["*.py"] }, ctx())),
        "invalid_arguments",
      );
    } finally {
      await service.close();
    }
  });

  it("a pattern ast-grep refuses only when matching (blank, several statements, a lone $$$; found by fuzzing) is invalid_arguments", async () => {
    const root = await makeTree({ "src/app.ts": APP });
    const service = makeService(root);
    try {
      for (const structure of ["\r\n\r\n", " ", "a; b", "$$$"]) {
        const failure = await service.run({ structure, mode: "matches" }, ctx()).then(
          () => undefined,
          (error: unknown) => error as { code?: string; message?: string },
        );
        assert.equal(failure?.code, "invalid_arguments", JSON.stringify(structure));
        assert.match(failure?.message ?? "", /structure: ast-grep cannot use this pattern/);
      }
    } finally {
      await service.close();
    }
  });

  it("refuses what it would otherwise drop: anyOf and a change scope", async () => {
    const root = await makeTree({ "src/app.ts": APP });
    const service = makeService(root);
    try {
      const cases: [Record<string, unknown>, string][] = [
        [{ anyOf: ["a", "b"] }, "anyOf"],
        [{ changes: "worktree" }, "changes"],
        [{ changeSide: "old" }, "changeSide"],
        [{ changeScope: "files" }, "changeScope"],
      ];
      for (const [input, field] of cases) {
        const failure = await service.run({ structure: "console.log($A)", ...input }, ctx()).then(
          () => undefined,
          (error: unknown) => error as { code?: string; message?: string },
        );
        assert.equal(failure?.code, "invalid_arguments", field);
        assert.match(failure?.message ?? "", new RegExp(`^Invalid arguments: ${field}: `), field);
      }
    } finally {
      await service.close();
    }
  });

  it("prefilters candidates with the pattern's longest literal word", () => {
    assert.deepEqual(literalWords("console.log($A, $$$REST)"), ["console", "log"]);
    assert.deepEqual(literalWords("$A($$$)"), []);
  });

  it("cancelling a structure search stops parsing and rejects", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`f${i}.ts`] = `function f${i}() {\n  target(${i});\n}\n`.repeat(200);
    const root = await makeTree(files);
    const controller = new AbortController();
    let parses = 0;
    const service = makeService(root, {
      onParse: () => {
        parses++;
        if (parses === 1) controller.abort();
      },
    });
    try {
      const code = await errorCode(
        service.run({ structure: "target($X)" }, ctx("caller-1", { signal: controller.signal })),
      );
      assert.equal(code, "cancelled");
      assert.ok(parses <= PARSE_CONCURRENCY, `${parses} parses after cancellation`);
    } finally {
      await service.close();
    }
  });
});
