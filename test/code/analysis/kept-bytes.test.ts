import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { runHeldFixture } from "../../fixtures/spawned.js";
import { treesRemovedAfter } from "../helpers.js";

const tree = treesRemovedAfter(after);

describe("code_search: what a kept analysis holds", () => {
  it("an anyOf result of many items holds about what the store counts for it, not several times that", async () => {
    // Short lines with three terms each: the items, not their texts, are most of the result.
    const lines = Array.from({ length: 6_000 }, (_, i) => `alpha ${i} beta gamma`).join("\n");
    const root = await tree({ "src/a.ts": lines, "src/b.ts": lines });
    const { counted, held, items } = runHeldFixture<{ counted: number; held: number; items: number }>(
      "test/code/analysis/kept-bytes.fixture.ts",
      root,
    );
    assert.equal(items, 36_000);
    assert.ok(counted > 0);
    // It held 4.4 times the count when each item, made by a spread, had a hidden class of its own
    // and each line's text kept ripgrep's output it was cut from.
    assert.ok(held < counted * 1.25, `held ${held} bytes, counted ${counted}`);
  });
});
