import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { resolveSettings } from "../../../src/config/settings.js";
import { ANYOF_TERM_MAX_BYTES, ANYOF_TERMS_MAX, GIT_REVISION_MAX_CHARS } from "../../../src/core/limits.js";
import { silentLogger } from "../../../src/core/logger.js";
import { createCodeSearchTool } from "../../../src/tools/code-search.js";
import { ToolRegistry } from "../../../src/tools/registry.js";
import { makeTree, removeTree } from "../helpers.js";

describe("code_search analysis input", () => {
  let root: string;
  let registry: ToolRegistry;
  before(async () => {
    root = await makeTree({ "a.ts": "alpha beta\n" });
    registry = new ToolRegistry().register(
      createCodeSearchTool({ cwd: root, settings: resolveSettings(process.env), logger: silentLogger }),
    );
  });
  after(async () => {
    await registry.close();
    await removeTree(root);
  });

  it("keeps the input schema one flat object the major model APIs accept", () => {
    const schema = registry.list()[0]?.inputSchema as Record<string, unknown>;
    assert.equal(schema.type, "object");
    for (const key of ["oneOf", "anyOf", "allOf", "$ref", "$defs", "definitions"]) {
      assert.equal(key in schema, false, `no top-level ${key}`);
    }
    assert.doesNotMatch(JSON.stringify(schema), /"\$ref"/);
    const properties = schema.properties as Record<string, { type?: string }>;
    for (const field of ["anyOf", "changes", "changeScope", "changeSide"])
      assert.ok(field in properties, field);
  });

  it("answers anyOf through the registry with per-term counts in text and data", async () => {
    const result = await registry.call("code_search", { anyOf: ["alpha", "beta"] }, { caller: "t" });
    assert.equal(result.isError, false, result.text);
    const data = result.data as { terms: { term: string; occurrences: number }[]; operation: string };
    assert.equal(data.operation, "anyOf");
    assert.deepEqual(
      data.terms.map((t) => [t.term, t.occurrences]),
      [
        ["alpha", 1],
        ["beta", 1],
      ],
    );
    assert.match(result.text, /#1 "alpha" 1 in 1 file; #2 "beta" 1 in 1 file/);
  });

  const cases: [string, Record<string, unknown>, string][] = [
    ["one term", { anyOf: ["a"] }, "anyOf"],
    ["too many terms", { anyOf: Array.from({ length: ANYOF_TERMS_MAX + 1 }, (_, i) => `t${i}`) }, "anyOf"],
    ["an empty term", { anyOf: ["a", ""] }, "anyOf[1]"],
    ["a term too long", { anyOf: ["a", "x".repeat(ANYOF_TERM_MAX_BYTES + 1)] }, "anyOf[1]"],
    ["a term not a string", { anyOf: ["a", 1] }, "anyOf[1]"],
    ["changes empty", { pattern: "a", changes: "" }, "changes"],
    ["changes too long", { pattern: "a", changes: "x".repeat(GIT_REVISION_MAX_CHARS + 1) }, "changes"],
    ["changes unknown", { pattern: "a", changes: "everything" }, "changes"],
    ["changeScope unknown", { pattern: "a", changes: "worktree", changeScope: "hunks" }, "changeScope"],
    ["changeSide unknown", { pattern: "a", changes: "worktree", changeSide: "both" }, "changeSide"],
    ["changeSide without changes", { pattern: "a", changeSide: "old" }, "changeSide"],
    ["impact false", { impact: false, path: "a.ts", line: 1 }, "impact"],
    ["impact not boolean", { impact: "yes", path: "a.ts", line: 1 }, "impact"],
    ["impact without a target", { impact: true }, "path"],
    ["impact with both line and symbol", { impact: true, path: "a.ts", line: 1, symbol: "x" }, "line"],
    ["impact with a pattern", { impact: true, path: "a.ts", line: 1, pattern: "x" }, "pattern"],
    ["impact with several targets", { impact: true, matchIndices: [1, 2], cursor: "c" }, "matchIndices"],
    ["impact by match without cursor", { impact: true, inspect: 1 }, "inspect"],
    ["impact by match with a path", { impact: true, inspect: 1, cursor: "c", path: "a.ts" }, "path"],
    ["navigate unknown", { navigate: "callers", path: "a.ts" }, "navigate"],
    ["navigate without path", { navigate: "imports" }, "path"],
    ["navigate with anyOf", { navigate: "tests", path: "a.ts", anyOf: ["a", "b"] }, "anyOf"],
  ];
  for (const [label, args, field] of cases) {
    it(`A07: ${label} is invalid_arguments naming ${field}`, async () => {
      const result = await registry.call("code_search", args, { caller: "t" });
      assert.equal(result.isError, true, label);
      if (!result.isError) return;
      assert.equal(result.data.error.code, "invalid_arguments", result.text);
      assert.equal(result.data.error.field, field, result.text);
    });
  }
});
