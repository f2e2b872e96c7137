/**
 * The config file as an adversary or a careless operator leaves it, through the built CLI (and
 * the SDK for what a thrown error carries): what it says must not quote saved keys, and what is
 * not a small regular file is refused instead of read. Commands run in this process
 * (test/adapters/run-evident.ts) where their answer is the subject; a path that could block
 * or flood a read (a FIFO, a device) runs the built executable, bounded by a timeout.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { CONFIG_FILE_MAX_BYTES } from "../../src/core/limits.js";
import { createEvident } from "../../src/sdk.js";
import { evidentInProcess, withStatus } from "../adapters/run-evident.js";

const ROOT = resolve(import.meta.dirname, "../..");
const CLI = join(ROOT, "dist/adapters/cli/main.js");
const dir = mkdtempSync(join(tmpdir(), "evident-config-file-"));
after(() => rmSync(dir, { recursive: true, force: true }));

let homes = 0;
/** A config home whose config.json holds `content` (raw text), and its path. */
function home(content?: string): { xdg: string; file: string } {
  const xdg = join(dir, `home-${homes++}`);
  const file = join(xdg, "evident", "config.json");
  mkdirSync(join(xdg, "evident"), { recursive: true, mode: 0o700 });
  if (content !== undefined) writeFileSync(file, content, { mode: 0o600 });
  return { xdg, file };
}

/** `evident ARGS` in this process. */
function cli(args: string[], env: Record<string, string>, cwd = dir) {
  return withStatus(
    evidentInProcess(args, { env: { PATH: process.env.PATH ?? "", HOME: dir, ...env }, cwd }),
  );
}

/** `evident ARGS` as a process of the built executable. */
function cliProcess(args: string[], env: Record<string, string>, input = "", cwd = dir) {
  return spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: dir, ...env },
    input,
    // A bound for a hung process (what a FIFO did), never the thing measured.
    timeout: 60_000,
    killSignal: "SIGKILL",
  });
}

const KEY = "tvly-SECRETKEY0123456789abcdef";
/** The key's characters as a JSON parser's message would quote them: any 6 in a row. */
function quotesKey(text: string): boolean {
  for (let i = 5; i + 6 <= KEY.length; i += 1) if (text.includes(KEY.slice(i, i + 6))) return true;
  return false;
}

describe("a config file that is not JSON", () => {
  // A key in single quotes, unquoted, or followed by a missing comma: V8's message quotes the
  // characters around the error, which is the key itself.
  const broken = [
    `{"providers":{"tavily":{"type":"tavily","apiKey":'${KEY}'}}}`,
    `{"providers":{"tavily":{"type":"tavily","apiKey":${KEY}}}}`,
    `{"providers":{"tavily":{"type":"tavily","apiKey":"${KEY}" "searchDepth":"basic"}}}`,
  ];

  it("is reported on every surface without quoting the file, so a saved key stays out", async () => {
    for (const content of broken) {
      const { xdg, file } = home(content);
      const env = { XDG_CONFIG_HOME: xdg };
      const search = await cli(["search", "hello"], env);
      assert.equal(search.status, 1, search.stderr);
      assert.match(search.stderr, /not valid JSON/);
      assert.ok(search.stderr.includes(file), search.stderr);
      const show = await cli(["config", "show"], env);
      const doctor = await cli(["doctor", "--json"], env);
      const setup = await cli(["setup", "--locale", "en"], env);
      assert.equal(setup.status, 1, setup.stderr);
      for (const run of [search, show, doctor, setup]) {
        assert.ok(
          !quotesKey(run.stdout + run.stderr),
          `a key fragment was shown: ${run.stdout}${run.stderr}`,
        );
      }
      const evident = createEvident({ env: { ...env, HOME: dir }, logger: silent });
      try {
        await assert.rejects(evident.webSearch({ query: "hello" }), (error: Error) => {
          assert.equal((error as { code?: string }).code, "configuration_error");
          assert.ok(!quotesKey(everything(error)), everything(error));
          return true;
        });
      } finally {
        await evident.close();
      }
    }
  });

  it("says where the error is when the parser knows", async () => {
    const { xdg } = home(`{\n  "locale": "en"\n  "providers": {}\n}`);
    const run = await cli(["config", "show"], { XDG_CONFIG_HOME: xdg });
    assert.match(
      run.stdout,
      /not valid JSON \(Expected ',' or '\}' after property value at line 3, column 3\)/,
    );
  });
});

describe("a config path that is not a small regular file", () => {
  it("a FIFO is refused at once, not waited on (a read would block every call and the signals)", () => {
    const { xdg, file } = home();
    execFileSync("mkfifo", [file]);
    const env = { XDG_CONFIG_HOME: xdg };
    const search = cliProcess(["search", "hello"], env);
    assert.equal(search.status, 1, `status ${search.status} signal ${search.signal}`);
    assert.match(search.stderr, /is not a regular file/);
    const setup = cliProcess(["setup", "--locale", "en"], env);
    assert.equal(setup.status, 1);
    assert.match(setup.stderr, /is not a regular file; nothing was changed/);
  });

  it("a device named by EVIDENT_CONFIG is refused, naming the variable", () => {
    const run = cliProcess(["config", "show"], { EVIDENT_CONFIG: "/dev/zero" });
    assert.equal(run.status, 1);
    const view = JSON.parse(run.stdout);
    assert.equal(view.error.key, "EVIDENT_CONFIG");
    assert.match(view.error.message, /\/dev\/zero is not a regular file/);
  });

  it("a file over CONFIG_FILE_MAX_BYTES is refused; one at the bound is read", async () => {
    const body = '{"locale":"en"}';
    const { xdg: atBound } = home(body + " ".repeat(CONFIG_FILE_MAX_BYTES - body.length));
    const ok = await cli(["config", "show"], { XDG_CONFIG_HOME: atBound });
    assert.equal(ok.status, 0, ok.stdout);
    const { xdg: over } = home(body + " ".repeat(CONFIG_FILE_MAX_BYTES - body.length + 1));
    const run = await cli(["config", "show"], { XDG_CONFIG_HOME: over });
    assert.equal(run.status, 1);
    assert.match(JSON.parse(run.stdout).error.message, /is larger than 1048576 bytes/);
  });
});

describe("where the config file is", () => {
  it("a relative XDG_CONFIG_HOME is ignored: no config file is read from the working directory", async () => {
    // A repository could hold rel/evident/config.json binding an MCP provider that runs its command.
    const project = join(dir, "project");
    mkdirSync(join(project, "rel", "evident"), { recursive: true });
    writeFileSync(join(project, "rel", "evident", "config.json"), '{"locale":"zh-CN"}');
    const run = await cli(["config", "path"], { XDG_CONFIG_HOME: "rel" }, project);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, `${join(dir, ".config", "evident", "config.json")}\n`);
  });
});

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** An error's message, details and every cause's message and properties, as one text. */
function everything(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 10; depth += 1) {
    parts.push(String((current as Error).message), JSON.stringify(current));
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join("\n");
}
