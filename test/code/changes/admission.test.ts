import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { admitted, changedByteRanges } from "../../../src/code/changes/admission.js";

const content = Buffer.from("one\ntwo\nthree\nfour\nfive");
//                           0    4    8      14     19  (line starts)

describe("changed-line admission", () => {
  it("turns each side's changed lines into byte ranges, terminators included", () => {
    const hunks = [
      { oldStart: 2, oldCount: 1, newStart: 2, newCount: 2 },
      { oldStart: 5, oldCount: 0, newStart: 5, newCount: 1 },
    ];
    assert.deepEqual(changedByteRanges(content, hunks, "new"), [
      [4, 14],
      [19, 23],
    ]);
    // The old side has its own line numbers; a pure addition has no old lines.
    assert.deepEqual(changedByteRanges(content, hunks, "old"), [[4, 8]]);
  });

  it("merges adjacent runs and reads a last line without a terminator to the end", () => {
    const hunks = [
      { oldStart: 1, oldCount: 1, newStart: 1, newCount: 1 },
      { oldStart: 2, oldCount: 1, newStart: 2, newCount: 1 },
      { oldStart: 5, oldCount: 1, newStart: 5, newCount: 1 },
    ];
    assert.deepEqual(changedByteRanges(content, hunks, "new"), [
      [0, 8],
      [19, 23],
    ]);
  });

  it("admits an occurrence only when it lies wholly inside one changed range", () => {
    const ranges = [
      [4, 14],
      [19, 23],
    ] as const;
    assert.equal(admitted(ranges, 4, 7), true, "at the range's start");
    assert.equal(admitted(ranges, 8, 14), true, "up to the range's end");
    assert.equal(admitted(ranges, 2, 6), false, "straddling the range's start");
    assert.equal(admitted(ranges, 12, 16), false, "straddling the range's end");
    assert.equal(admitted(ranges, 10, 21), false, "spanning two ranges and the gap between");
    assert.equal(admitted(ranges, 0, 3), false, "before every range");
    assert.equal(admitted(ranges, 15, 18), false, "in the gap");
    assert.equal(admitted(ranges, 19, 23), true, "the whole last range");
    assert.equal(admitted([], 0, 1), false, "no changed line");
  });
});
