import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runHeldFixture } from "../../fixtures/spawned.js";

describe("syntax layer: what its cache of facts holds", () => {
  it("files' symbols and specifiers hold about what the cache counts for them, not twice", () => {
    const { counted, held, entries } = runHeldFixture<{ counted: number; held: number; entries: number }>(
      "test/code/syntax/facts-bytes.fixture.ts",
    );
    // 61 files, each with its facts and its specifiers.
    assert.equal(entries, 122);
    assert.ok(counted > 0);
    // The bound is honest both ways: what it lets go frees about what it counted.
    assert.ok(held < counted * 1.25, `held ${held} bytes, counted ${counted}`);
    assert.ok(held > counted * 0.5, `held ${held} bytes, counted ${counted}`);
  });
});
