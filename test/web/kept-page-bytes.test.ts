import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const fixture = fileURLToPath(new URL("./kept-page-bytes.fixture.ts", import.meta.url));
// The runner's loader: the fixture as the runner compiled it (tsx while the build is older).
const LOADER = new URL("../../scripts/test-loader.mjs", import.meta.url).href;

describe("web_read: what a kept page holds", () => {
  it("a page whose title and metadata were cut from its source holds about what the store counts, not its source", () => {
    const output = execFileSync(process.execPath, ["--expose-gc", "--import", LOADER, fixture], {
      encoding: "utf8",
    });
    const { counted, held, pages } = JSON.parse(output) as { counted: number; held: number; pages: number };
    assert.equal(pages, 40);
    assert.ok(counted > 0);
    // A kept title cut from the page's source held the whole source (200,000 characters here,
    // 25 times the text) until the page was let go of.
    assert.ok(held < counted * 1.25, `held ${held} bytes, counted ${counted}`);
  });
});
