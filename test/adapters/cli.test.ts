/**
 * The CLI's contract, with the adapter tests' own tools (test/fixtures/test-tools.ts): what a
 * process exits with and writes to stdout and stderr, for a success, a tool error and bad
 * arguments, runs the test CLI as a process (test/fixtures/test-cli.ts, the executable's wiring
 * with these tools); the rest runs the same `runCli` in this process (test/adapters/run-evident.ts).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { TEST_CLI } from "../fixtures/spawned.js";
import { createTestRegistry, TEST_COMMANDS } from "../fixtures/test-tools.js";
import { evidentInProcess, type Run } from "./run-evident.js";

/** The test CLI as a process of its own. */
function cliProcess(args: string[], env: Record<string, string> = {}): Run {
  const run = spawnSync(process.execPath, [TEST_CLI, ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The test CLI's `runCli` in this process, with the environment a process of it would have. */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return evidentInProcess(args, {
    cwd: process.cwd(),
    env: { ...(process.env as Record<string, string>), ...env },
    tools: { createRegistry: () => createTestRegistry(), commands: TEST_COMMANDS },
  });
}

describe("CLI contract", async () => {
  it("A09: success prints one JSON document on stdout and exits 0", async () => {
    const run = cliProcess(["echo", "hi", "--times", "2", "--loud"]);
    assert.equal(run.code, 0, run.stderr);
    // The caller key names the OS user: CLI cursors outlive the process in a per-user cache.
    const caller = process.getuid === undefined ? JSON.parse(run.stdout).caller : `cli:${process.getuid()}`;
    assert.deepEqual(JSON.parse(run.stdout), { text: "hihi", caller });
  });

  it("--text prints the model-facing text", async () => {
    const run = await cli(["echo", "hi", "--loud", "--text"]);
    assert.equal(run.code, 0);
    assert.equal(run.stdout, "HI\n");
  });

  it("maps short aliases, --flag=value and repeated array flags onto the schema", async () => {
    const run = await cli(["echo", "ab", "-t=3", "--tags", "x", "--tags", "y"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).text, "ababab");
  });

  it("refuses a single-value flag given twice, naming it, where the last one used to win", async () => {
    for (const [args, message] of [
      [["echo", "ab", "-t", "1", "-t", "2"], "--times takes one value, and was given -t twice."],
      [["echo", "ab", "-t", "1", "--times=2"], "--times takes one value, and was given -t and --times."],
      [["echo", "ab", "--loud", "--no-loud"], "--loud takes one value, and was given --loud and --no-loud."],
    ] as const) {
      const run = await cli([...args]);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stdout, "");
      const { error } = JSON.parse(run.stderr);
      assert.deepEqual([error.code, error.message], ["invalid_arguments", `${message} Usage: echo TEXT`]);
    }
    // A list flag repeats as documented.
    assert.equal((await cli(["echo", "ab", "--tags", "x", "--tags", "y"])).code, 0);
  });

  it("A09: a tool error prints the shared payload on stderr and exits 1", async () => {
    const run = cliProcess(["fail", "q"]);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "");
    const payload = JSON.parse(run.stderr);
    assert.equal(payload.error.code, "all_providers_failed");
    assert.deepEqual(payload.error.provider_errors, { alpha: "alpha HTTP 429" });
  });

  for (const [label, args, field] of [
    ["empty value", ["echo", ""], "text"],
    ["wrong type", ["echo", "a", "--times", "many"], "times"],
    ["out of range", ["echo", "a", "--times", "9"], "times"],
    ["unknown flag", ["echo", "a", "--bogus", "1"], "bogus"],
    ["oversized string", ["echo", "x".repeat(101)], "text"],
    ["missing positional", ["echo"], "text"],
  ] as const) {
    it(`A07/A09: ${label} is invalid_arguments on stderr, exit 2`, async () => {
      const run = await cli([...args]);
      assert.equal(run.code, 2, run.stderr);
      const payload = JSON.parse(run.stderr);
      assert.equal(payload.error.code, "invalid_arguments");
      assert.equal(payload.error.field, field);
    });
  }

  it("A09: as a process, bad arguments exit 2 with nothing on stdout and the payload on stderr", () => {
    const run = cliProcess(["echo", "a", "--times", "many"]);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stdout, "");
    const { error } = JSON.parse(run.stderr);
    assert.deepEqual([error.code, error.field], ["invalid_arguments", "times"]);
  });

  it("an unknown command and an extra positional are usage errors", async () => {
    assert.equal((await cli(["frobnicate"])).code, 2);
    assert.equal((await cli(["echo", "a", "b"])).code, 2);
  });

  it("prints --version and per-command --help", async () => {
    const version = await cli(["--version"]);
    assert.equal(version.code, 0);
    assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
    const help = await cli(["echo", "--help"]);
    assert.equal(help.code, 0);
    // A short alias is shown with the option it stands for.
    assert.match(help.stdout, /^ {2}-t, --times N$/m);
    assert.match(help.stdout, /--text/);
    // An array flag takes one value and repeats, as the parser reads it (`--tags a b` is not two).
    assert.match(help.stdout, /^ {2}--tags VALUE \(repeatable: --tags A --tags B\)/m);
    assert.doesNotMatch(help.stdout, /VALUE\.\.\./);
    const mcpHelp = await cli(["mcp", "--help"]);
    assert.match(mcpHelp.stdout, /EVIDENT_AUTH_TOKEN/);
  });

  it("refuses an EVIDENT_MCP_STRUCTURED that is not true or false, naming it", async () => {
    const run = await cli(["mcp"], { EVIDENT_MCP_STRUCTURED: "yes" });
    assert.equal(run.code, 1);
    const { error } = JSON.parse(run.stderr);
    assert.equal(error.code, "configuration_error");
    assert.match(error.message, /EVIDENT_MCP_STRUCTURED must be true or false, got "yes"/);
    assert.match((await cli(["mcp", "--help"])).stdout, /--structured/);
  });

  it("refuses an EVIDENT_TRANSPORT holding only whitespace as a configuration_error naming it", async () => {
    const run = await cli(["mcp"], { EVIDENT_TRANSPORT: "  " });
    assert.equal(run.code, 1, run.stderr);
    const { error } = JSON.parse(run.stderr);
    assert.deepEqual([error.code, error.key], ["configuration_error", "EVIDENT_TRANSPORT"]);
  });

  it("refuses an EVIDENT_LOG_LEVEL that is not a level, naming it, instead of logging at warn", async () => {
    for (const value of ["verbose", "DEBUG", "toString"]) {
      for (const args of [["echo", "hi"], ["mcp"]]) {
        const run = await cli(args, { EVIDENT_LOG_LEVEL: value });
        assert.equal(run.code, 1, `${value}: ${run.stderr}`);
        const { error } = JSON.parse(run.stderr);
        assert.equal(error.code, "configuration_error");
        assert.equal(error.key, "EVIDENT_LOG_LEVEL");
        assert.match(error.message, /must be one of debug, info, warn, error, silent/);
      }
    }
    assert.equal((await cli(["echo", "hi"], { EVIDENT_LOG_LEVEL: "debug" })).code, 0);
    assert.equal((await cli(["echo", "hi"], { EVIDENT_LOG_LEVEL: "" })).code, 0);
  });

  it("refuses to start HTTP without a token, or with a short one, and says why", async () => {
    const none = await cli(["mcp", "--transport", "http"], {
      EVIDENT_AUTH_TOKEN: "",
      EVIDENT_HTTP_PORT: "0",
    });
    assert.equal(none.code, 1);
    assert.match(JSON.parse(none.stderr).error.message, /EVIDENT_AUTH_TOKEN/);
    const short = await cli(["mcp"], {
      EVIDENT_TRANSPORT: "http",
      EVIDENT_AUTH_TOKEN: "short",
      EVIDENT_HTTP_PORT: "0",
    });
    assert.equal(short.code, 1);
    assert.match(JSON.parse(short.stderr).error.message, /at least 32/);
    assert.doesNotMatch(short.stderr, /short"/, "the token itself is not echoed");
  });
});
