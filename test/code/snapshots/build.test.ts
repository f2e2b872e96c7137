import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ParsedMatch } from "../../../src/code/rg/events.js";
import { allMatches } from "../../../src/code/rg/match-table.js";
import { buildSnapshot } from "../../../src/code/snapshots/build.js";
import type { SnapshotData } from "../../../src/code/snapshots/store.js";
import { eventBytes, indexRun, rgOutput } from "../rg/rg-events.js";
import { query, target } from "./store.contract.js";

function match(path: string, line: number, occurrences = 1): ParsedMatch {
  return {
    path,
    pathLossy: false,
    line,
    absoluteOffset: 0,
    text: "x",
    textLossy: false,
    occurrences: Array.from({ length: occurrences }, () => ({
      startByte: 0,
      endByte: 1,
      startColumn: 0,
      endColumn: 1,
    })),
  };
}

function build(matches: ParsedMatch[]) {
  return buildSnapshot(query, target, target, false, { run: indexRun(matches), trusted: {} });
}

const lines = (snapshot: SnapshotData) => allMatches(snapshot.matches).map((m) => `${m.path}:${m.line}`);

describe("snapshot building", () => {
  it("G01: orders matches by path then line whatever order ripgrep's threads reported files in", () => {
    const snapshot = build([
      match("./b", 1),
      match("./b", 4),
      match("./a", 2),
      match("./c", 1),
      match("./a", 9),
    ]);
    assert.deepEqual(lines(snapshot), ["./a:2", "./a:9", "./b:1", "./b:4", "./c:1"]);
  });

  it("G01: a file reported in two out-of-order runs still ends in line order", () => {
    const snapshot = build([match("./a", 5), match("./b", 1), match("./a", 2)]);
    assert.deepEqual(lines(snapshot), ["./a:2", "./a:5", "./b:1"]);
  });

  it("keeps its matches as compact records in path order, not ripgrep's read chunks", () => {
    const matches = [match("./b", 4), match("./a", 2), match("./a", 9)];
    const run = indexRun(matches);
    const snapshot = buildSnapshot(query, target, target, false, { run, trusted: {} });
    const table = snapshot.matches;
    assert.equal(table.kind, "compact");
    if (table.kind !== "compact") return;
    // ripgrep's output also holds begin, end and summary events: none of them is kept, nor the
    // paths and key names each match event repeats.
    const events = eventBytes(rgOutput(matches));
    assert.ok(table.bytes.length * 2 < events, `${table.bytes.length} of ${events} bytes`);
    assert.equal(table.offsets[table.length], table.bytes.length);
    assert.deepEqual(table.runPaths, ['{"text":"./a"}', '{"text":"./b"}']);
    assert.deepEqual(lines(snapshot), ["./a:2", "./a:9", "./b:4"]);
    assert.deepEqual(
      allMatches(table),
      allMatches(run.table).sort((x, y) => x.path.localeCompare(y.path) || x.line - y.line),
    );
  });

  it("an empty result keeps no bytes", () => {
    const table = build([]).matches;
    assert.equal(table.length, 0);
    assert.equal(table.kind === "compact" ? table.bytes.length : -1, 0);
  });

  it("G03: ranks files by matching lines, ties by path, and counts occurrences separately", () => {
    const snapshot = build([
      match("./z", 1, 3),
      match("./y", 1),
      match("./y", 2),
      match("./x", 1),
      match("./x", 2),
    ]);
    assert.deepEqual(
      snapshot.files.map((f) => [f.path, f.matches, f.occurrences]),
      [
        ["x", 2, 2],
        ["y", 2, 2],
        ["z", 1, 3],
      ],
    );
  });
});
