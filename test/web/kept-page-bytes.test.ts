import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runHeldFixture } from "../fixtures/spawned.js";

describe("web_read: what a kept page holds", () => {
  it("a page whose title and metadata were cut from its source holds about what the store counts, not its source", () => {
    const { counted, held, pages } = runHeldFixture<{ counted: number; held: number; pages: number }>(
      "test/web/kept-page-bytes.fixture.ts",
    );
    assert.equal(pages, 40);
    assert.ok(counted > 0);
    // A kept title cut from the page's source held the whole source (200,000 characters here,
    // 25 times the text) until the page was let go of.
    assert.ok(held < counted * 1.25, `held ${held} bytes, counted ${counted}`);
  });
});
