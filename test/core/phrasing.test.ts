/**
 * The one phraser: how each surface writes a call and an argument. A CLI command it writes is
 * read back by a real shell word for word, whatever the values hold.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { TOOL_COMMANDS } from "../../src/adapters/cli/commands.js";
import { CLI_TOOL_COMMANDS, cliFlag, phrasingFor, shellWord } from "../../src/core/phrasing.js";

describe("phrasing", () => {
  it("MCP, HTTP, the SDK and Pi write tool calls and fields; the CLI writes commands and flags", () => {
    for (const surface of ["mcp", "http", "sdk", "pi"] as const) {
      const p = phrasingFor(surface);
      assert.equal(p.call("code_search", { cursor: "C1" }), 'call code_search with {"cursor":"C1"}');
      assert.equal(p.arg("code_search", "literal", true), "literal=true");
      assert.equal(p.arg("code_search", "maxParseFiles"), "maxParseFiles");
    }
    const cli = phrasingFor("cli");
    assert.equal(
      cli.call("code_search", { cursor: "C1", mode: "summary" }),
      "`evident grep --cursor C1 --mode summary`",
    );
    assert.equal(cli.call("code_search", { sourceCursor: "S1" }), "`evident inspect --source-cursor S1`");
    assert.equal(cli.call("web_read", { cursor: "R1" }), "`evident read --cursor R1`");
    assert.equal(
      cli.call("web_search", { query: "a b", providers: ["x", "y"] }),
      "`evident search --query 'a b' --provider x --provider y`",
    );
    assert.equal(cli.arg("code_search", "literal", true), "-F");
    assert.equal(cli.arg("code_search", "hidden", false), "--no-hidden");
    assert.equal(cli.arg("code_search", "literal", false), "--no-literal");
    assert.equal(cli.arg("code_search", "maxParseFiles"), "--max-parse-files");
  });

  it("the CLI's commands take their names and short flags from the phraser", () => {
    for (const [tool, { command, aliases }] of Object.entries(CLI_TOOL_COMMANDS)) {
      assert.equal(TOOL_COMMANDS[command]?.tool, tool);
      assert.deepEqual(TOOL_COMMANDS[command]?.aliases, aliases);
      for (const [flag, field] of Object.entries(aliases)) assert.equal(cliFlag(tool as never, field), flag);
    }
  });

  it("a shell reads every written word back as it was", () => {
    const words = [
      "plain",
      "with space",
      "it's",
      "$HOME",
      "`x`",
      "a\\b",
      "new\nline",
      "*.ts",
      "-dash",
      "ünï",
      '"q"',
      "",
    ];
    const line = words.map((word) => `printf '%s\\0' ${shellWord(word)}`).join("; ");
    const run = spawnSync("sh", ["-c", line], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.split("\0").slice(0, -1), words);
  });
});
