import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fitJson, safePrefix } from "../../src/core/budget.js";

describe("fitJson", () => {
  const build = (content: string, truncated: boolean) => ({
    provenance: { url: "https://a.example/" },
    truncated,
    content,
  });

  it("keeps everything when it fits", () => {
    const fit = fitJson("hello", 1_000, build);
    assert.equal(fit.truncated, false);
    assert.equal(JSON.parse(fit.json).content, "hello");
  });

  it("keeps the longest prefix within the budget and says it clipped", () => {
    const text = 'é"\\\n'.repeat(5_000);
    for (const budget of [200, 1_000, 4_321]) {
      const fit = fitJson(text, budget, build);
      assert.ok(fit.json.length <= budget, `${fit.json.length} > ${budget}`);
      const parsed = JSON.parse(fit.json);
      assert.equal(parsed.truncated, true);
      assert.ok(text.startsWith(parsed.content));
      // One more character would not have fitted.
      const longer = JSON.stringify(build(text.slice(0, parsed.content.length + 1), true));
      assert.ok(longer.length > budget);
    }
  });

  it("reports a fixed part larger than the budget", () => {
    const fit = fitJson("abc", 10, build);
    assert.equal(fit.overBudget, true);
    assert.equal(JSON.parse(fit.json).content, "");
  });

  it("never splits a surrogate pair", () => {
    assert.equal(safePrefix("a😀b", 2), "a");
    assert.equal(safePrefix("a😀b", 3), "a😀");
  });
});
