import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { changedLines, onChangedLine } from "../../../src/code/changes/admission.js";

describe("changed-line admission", () => {
  it("turns each side's hunks into runs of changed lines", () => {
    const hunks = [
      { oldStart: 2, oldCount: 1, newStart: 2, newCount: 2 },
      { oldStart: 5, oldCount: 0, newStart: 5, newCount: 1 },
    ];
    assert.deepEqual(changedLines(hunks, "new"), [
      [2, 4],
      [5, 6],
    ]);
    // The old side has its own line numbers; a pure addition has no old lines.
    assert.deepEqual(changedLines(hunks, "old"), [[2, 3]]);
  });

  it("merges adjacent and overlapping runs, in line order", () => {
    const hunks = [
      { oldStart: 9, oldCount: 1, newStart: 9, newCount: 2 },
      { oldStart: 1, oldCount: 1, newStart: 1, newCount: 1 },
      { oldStart: 2, oldCount: 1, newStart: 2, newCount: 1 },
      { oldStart: 10, oldCount: 1, newStart: 10, newCount: 1 },
    ];
    assert.deepEqual(changedLines(hunks, "new"), [
      [1, 3],
      [9, 11],
    ]);
  });

  it("admits a line only inside a changed run, never the lines around a hunk", () => {
    const runs = [
      [2, 4],
      [7, 8],
    ] as const;
    assert.equal(onChangedLine(runs, 2), true, "a run's first line");
    assert.equal(onChangedLine(runs, 3), true, "a run's last line");
    assert.equal(onChangedLine(runs, 1), false, "the line before a hunk");
    assert.equal(onChangedLine(runs, 4), false, "the line after a hunk");
    assert.equal(onChangedLine(runs, 6), false, "the line before the next one");
    assert.equal(onChangedLine(runs, 7), true, "a one-line run");
    assert.equal(onChangedLine(runs, 8), false, "past every run");
    assert.equal(onChangedLine(runs, 0), false, "no line number");
    assert.equal(onChangedLine([], 1), false, "no changed line");
  });
});
