import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createSpinner } from "../../src/adapters/cli/spinner.js";

function stream(isTTY: boolean) {
  const writes: string[] = [];
  return { isTTY, writes, write: (s: string) => writes.push(s) > 0 };
}

describe("CLI spinner", () => {
  it("draws nothing when stderr is not a terminal", () => {
    const err = stream(false);
    const spinner = createSpinner(err);
    spinner.update({ progress: 1, message: "searching: 10 matching lines so far" });
    spinner.stop();
    assert.deepEqual(err.writes, []);
  });

  it("draws progress on a terminal and clears its line when stopped", () => {
    const err = stream(true);
    const spinner = createSpinner(err);
    spinner.update({ progress: 1, message: "searching: 10 matching lines so far" });
    assert.match(err.writes.at(-1) ?? "", /searching: 10 matching lines so far/);
    spinner.stop();
    assert.equal(err.writes.at(-1), "\r\x1b[2K");
  });
});
