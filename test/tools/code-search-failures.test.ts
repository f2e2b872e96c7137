/**
 * How code_search failures reach the agent and the operator: ripgrep refusing a pattern is the
 * caller's to fix (invalid_arguments with ripgrep's reason); any other ripgrep failure is an
 * internal_error whose cause (exit status, ripgrep's first line) is logged at error level with
 * secrets scrubbed. A stand-in executable named by EVIDENT_RG_PATH fails the way a broken
 * ripgrep installation would.
 */
import assert from "node:assert/strict";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { resolveSettings } from "../../src/config/settings.js";
import { createStderrLogger, silentLogger } from "../../src/core/logger.js";
import { createCodeSearchTool } from "../../src/tools/code-search.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { treesRemovedAfter } from "../code/helpers.js";

const tree = treesRemovedAfter(after);

function registryFor(root: string, env: Record<string, string | undefined>, logger = silentLogger) {
  return new ToolRegistry().register(
    createCodeSearchTool({ cwd: root, settings: resolveSettings(env), logger }),
  );
}

describe("code_search failures", () => {
  for (const [label, pattern, reason] of [
    ["a NUL escape", "\\x00", /impossible to match/],
    ["a regex over ripgrep's size limit", "(\\w{100}){100}", /exceeds size limit/],
    ["a line-break escape", "a\\nb", /not allowed in a regex/],
  ] as const) {
    it(`ripgrep refusing ${label} is invalid_arguments naming pattern, with ripgrep's reason`, async () => {
      const root = await tree({ "a.txt": "hello\n" });
      const registry = registryFor(root, { PATH: process.env.PATH });
      try {
        const result = await registry.call("code_search", { pattern }, { caller: "t" });
        assert.equal(result.isError, true);
        if (!result.isError) return;
        assert.equal(result.data.error.code, "invalid_arguments", result.text);
        assert.equal(result.data.error.field, "pattern");
        assert.match(result.data.error.message, reason);
        // ripgrep's advice names flags this tool does not take.
        assert.doesNotMatch(result.data.error.message, /--text|--multiline/);
      } finally {
        await registry.close();
      }
    });
  }

  it("an unusable EVIDENT_CODE_SEARCH_DEADLINE_MS is configuration_error naming it, on every call", async () => {
    const root = await tree({ "a.txt": "hello\n" });
    for (const value of ["soon", "0", "-5", "1.5"]) {
      const registry = registryFor(root, { PATH: process.env.PATH, EVIDENT_CODE_SEARCH_DEADLINE_MS: value });
      try {
        for (let i = 0; i < 2; i++) {
          const result = await registry.call("code_search", { pattern: "hello" }, { caller: "t" });
          assert.equal(result.isError && result.data.error.code, "configuration_error", value);
          assert.equal(result.isError && result.data.error.key, "EVIDENT_CODE_SEARCH_DEADLINE_MS");
        }
      } finally {
        await registry.close();
      }
    }
  });

  it("any other ripgrep failure is internal_error, logged with its exit status and first line, scrubbed", async () => {
    const secret = "s3cr3t-operator-token-value-0123456789";
    const root = await tree({ "a.txt": "hello\n" });
    const fake = join(root, "broken-rg");
    await writeFile(
      fake,
      `#!/bin/sh\necho "rg: cannot map memory (token ${secret}, key sk_live_4eC39HqLyjWDarjtT1zdp7dc)" >&2\necho "second line" >&2\nexit 3\n`,
    );
    await chmod(fake, 0o755);
    const lines: string[] = [];
    const logger = createStderrLogger({ level: "error", write: (l) => lines.push(l), secrets: [secret] });
    const registry = registryFor(root, { EVIDENT_RG_PATH: fake }, logger);
    try {
      const result = await registry.call(
        "code_search",
        { pattern: "hello", path: "a.txt" },
        { caller: "t", logger },
      );
      assert.equal(result.isError && result.data.error.code, "internal_error", result.text);
      assert.equal(lines.length, 1, lines.join(""));
      const line = lines[0] ?? "";
      assert.equal(JSON.parse(line).msg, "tool code_search failed", "one JSON object per line");
      assert.equal(JSON.parse(line).level, "error");
      assert.match(line, /"code":"internal_error"/);
      assert.match(line, /exit 3/);
      assert.match(line, /cannot map memory/);
      assert.doesNotMatch(line, /second line/);
      assert.doesNotMatch(line, new RegExp(secret));
    } finally {
      await registry.close();
    }
  });
});
