/**
 * `npm test` on a machine that lacks an optional tool: the test that needs it is skipped with a
 * reason that names the tool and how to get it, the run still passes, and its last line lists
 * what was skipped and why; with EVIDENT_TEST_REQUIRE_TOOLS=1 (.ci/run) the same file fails.
 * Each case runs the real runner (scripts/run-tests.mjs) on test files of its own, under a PATH
 * that holds only the stand-in tools the case puts there. The runner compiles the spawned
 * fixtures only when they are out of date (scripts/test-fixtures.mjs), checked here on a
 * project of its own.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { pathToFileURL } from "node:url";

const ROOT = resolve(import.meta.dirname, "../..");
const RUNNER = join(ROOT, "scripts/run-tests.mjs");
const HELPER = join(ROOT, "test/fixtures/optional-tools.ts");
const base = mkdtempSync(join(tmpdir(), "evident-run-tests-"));
after(() => rmSync(base, { recursive: true, force: true }));

let cases = 0;

/**
 * A directory of test files (name -> body, each importing `missing` from the helper) and a bin
 * directory of stand-in executables (name -> shell script body); runs the runner on the first
 * with only the second on PATH.
 */
async function run(
  files: Record<string, string>,
  bin: Record<string, string> = {},
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; lines: string[]; durations: string }> {
  const dir = join(base, `case-${cases++}`);
  const tests = join(dir, "tests");
  const binDir = join(dir, "bin");
  mkdirSync(tests, { recursive: true });
  mkdirSync(binDir);
  for (const [name, body] of Object.entries(files)) {
    writeFileSync(
      join(tests, name),
      `import { describe, it } from "node:test";\nimport { missing } from ${JSON.stringify(HELPER)};\n${body}\n`,
    );
  }
  for (const [name, body] of Object.entries(bin)) {
    writeFileSync(join(binDir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(binDir, name), 0o755);
  }
  const durations = join(dir, "durations.json");
  const child = spawn(process.execPath, [RUNNER, tests], {
    cwd: ROOT,
    env: { PATH: binDir, HOME: dir, EVIDENT_TEST_DURATIONS: durations, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.resume();
  const code = await new Promise<number | null>((done) => child.on("close", done));
  const lines = stdout.trimEnd().split("\n");
  let written = "";
  try {
    written = readFileSync(durations, "utf8");
  } catch {
    // not written: the case's assertions say so
  }
  return { code, stdout, lines, durations: written };
}

describe("npm test and optional tools", () => {
  it("without a tool, the test that needs it is skipped with a reason naming the tool and how to get it; the run passes and ends with the skip line", async () => {
    const result = await run(
      {
        "a.test.ts": [
          'it("runs everywhere", () => {});',
          'describe("needs Redis", { skip: missing("redis-server") }, () => { it("uses it", () => { throw new Error("ran"); }); });',
          'it("needs tmux", { skip: missing("tmux") }, () => {});',
          'it("needs two", { skip: missing("nginx", "tmux") }, () => { throw new Error("ran"); });',
          'it("needs two missing", { skip: missing("redis-server", "nginx") }, () => { throw new Error("ran"); });',
          'it("needs ctags", { skip: missing("ctags") }, () => { throw new Error("ran"); });',
          'it("needs bun", { skip: missing("bun") }, () => { throw new Error("ran"); });',
        ].join("\n"),
      },
      // tmux is here; this ctags is not Universal Ctags, and this Bun is too old.
      { tmux: "exit 0", ctags: "echo 'Exuberant Ctags 5.9'; exit 1", bun: "echo 1.2.9" },
    );
    assert.equal(result.code, 0, result.stdout);
    assert.equal(result.lines.at(-2), "tests: 2 passed, 0 failed, 5 skipped");
    const last = result.lines.at(-1) ?? "";
    assert.match(last, /^skipped: /);
    for (const reason of [
      "1 × redis-server not on PATH (Debian: apt install redis-server)",
      // A test that needs two tools names the one missing, or both.
      "1 × nginx not on PATH (Debian: apt install nginx);",
      "1 × redis-server not on PATH (Debian: apt install redis-server) and nginx not on PATH (Debian: apt install nginx);",
      "ctags is not Universal Ctags with JSON output (Debian: apt install universal-ctags)",
      "bun is Bun 1.2.9, older than 1.4 (npm install -g bun@^1.4)",
    ]) {
      assert.ok(last.includes(reason), `${reason}\nin: ${last}`);
    }
    assert.ok(!last.includes("tmux"), last);
    // The run's per-file wall times, for bench/test-suite.
    const rows = JSON.parse(result.durations) as Array<{ file: string; ms: number }>;
    assert.deepEqual(
      rows.map((row) => row.file.split("/").at(-1)),
      ["a.test.ts"],
    );
  });

  it("with EVIDENT_TEST_REQUIRE_TOOLS=1, tests whose tools are here run, and a missing tool fails its file, naming the tool, instead of skipping", async () => {
    const result = await run(
      {
        "a.test.ts": [
          'it("needs tmux", { skip: missing("tmux") }, () => {});',
          'it("needs ctags", { skip: missing("ctags") }, () => {});',
          'it("needs bun", { skip: missing("bun") }, () => {});',
        ].join("\n"),
        "b.test.ts":
          'describe("needs nginx", { skip: missing("nginx") }, () => { it("uses it", () => {}); });',
      },
      { tmux: "exit 0", ctags: 'echo "json    JSON output"', bun: "echo 1.4.2" },
      { EVIDENT_TEST_REQUIRE_TOOLS: "1" },
    );
    assert.equal(result.code, 1, result.stdout);
    assert.match(
      result.stdout,
      /nginx not on PATH \(Debian: apt install nginx\), and EVIDENT_TEST_REQUIRE_TOOLS=1 makes that a failure/,
    );
    assert.deepEqual(result.lines.slice(-2), ["tests: 3 passed, 1 failed, 0 skipped", "skipped: none"]);
    // The failure is named near the end of the run, not only somewhere in its long report.
    const named = result.lines.slice(result.lines.lastIndexOf("failed:") + 1, -3);
    assert.deepEqual(named.length, 1, result.stdout);
    assert.match(named[0] ?? "", /^ {2}.*b\.test\.ts: /);
  });
});

describe("the spawned fixtures' build", () => {
  it("is current only while every compiled fixture exists and its stamp is newer than every file it reads", async () => {
    const { fixturesCurrent } = (await import(
      pathToFileURL(join(ROOT, "scripts/test-fixtures.mjs")).href
    )) as {
      fixturesCurrent(project: string): boolean;
    };
    const project = join(base, "fixtures-project");
    const files: Record<string, string> = {
      "package.json": "{}",
      "tsconfig.json": "{}",
      "tsconfig.test-fixtures.json": JSON.stringify({ include: ["test/fixtures/cli.ts"] }),
      "src/deep/module.ts": "",
      "test/fixtures/cli.ts": "",
      "build/test/fixtures/cli.js": "",
      "build/.fixtures-built": "",
    };
    for (const [name, body] of Object.entries(files)) {
      mkdirSync(dirname(join(project, name)), { recursive: true });
      writeFileSync(join(project, name), body);
    }
    const at = (seconds: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, seconds));
    const date = (name: string, seconds: number) => utimesSync(join(project, name), at(seconds), at(seconds));
    const dateAll = (seconds: number) => {
      for (const name of [
        "src/deep/module.ts",
        "src/deep",
        "src",
        "test/fixtures/cli.ts",
        "test/fixtures",
        "test",
      ])
        date(name, seconds);
      for (const name of ["package.json", "tsconfig.json", "tsconfig.test-fixtures.json"])
        date(name, seconds);
    };
    dateAll(0);
    date("build/.fixtures-built", 10);
    assert.equal(fixturesCurrent(project), true);
    // A source changed after the build, however deep.
    date("src/deep/module.ts", 20);
    assert.equal(fixturesCurrent(project), false);
    date("src/deep/module.ts", 0);
    // A file added or removed: its directory changed.
    date("test/fixtures", 20);
    assert.equal(fixturesCurrent(project), false);
    date("test/fixtures", 0);
    date("tsconfig.test-fixtures.json", 10);
    assert.equal(fixturesCurrent(project), false, "changed in the second the build started");
    date("tsconfig.test-fixtures.json", 0);
    assert.equal(fixturesCurrent(project), true);
    unlinkSync(join(project, "build/test/fixtures/cli.js"));
    assert.equal(fixturesCurrent(project), false, "a compiled fixture is missing");
    writeFileSync(join(project, "build/test/fixtures/cli.js"), "");
    unlinkSync(join(project, "build/.fixtures-built"));
    assert.equal(fixturesCurrent(project), false, "never built");
  });
});

describe("the test files' loader (scripts/test-loader.mjs)", () => {
  it("runs the compiled tests only while no TypeScript file or configuration is newer than the build; a test's own files and notes leave it current", async () => {
    const { testBuildCurrent } = (await import(
      pathToFileURL(join(ROOT, "scripts/test-fixtures.mjs")).href
    )) as {
      testBuildCurrent(project: string): boolean;
    };
    const project = join(base, "loader-project");
    for (const name of [
      "package.json",
      "tsconfig.json",
      "src/a.ts",
      "test/a.test.ts",
      "bench/x/RESULTS.md",
      "build/.fixtures-built",
    ]) {
      mkdirSync(dirname(join(project, name)), { recursive: true });
      writeFileSync(join(project, name), "");
    }
    const at = (seconds: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, seconds));
    const date = (name: string, seconds: number) => utimesSync(join(project, name), at(seconds), at(seconds));
    for (const name of ["package.json", "tsconfig.json", "src/a.ts", "test/a.test.ts", "bench/x/RESULTS.md"])
      date(name, 0);
    date("build/.fixtures-built", 10);
    assert.equal(testBuildCurrent(project), true);
    // A test's scratch file and its folder, and a bench's notes, are not sources.
    writeFileSync(join(project, "test/scratch.json"), "{}");
    date("bench/x/RESULTS.md", 20);
    assert.equal(testBuildCurrent(project), true);
    date("test/a.test.ts", 20);
    assert.equal(testBuildCurrent(project), false, "a test file edited after the build");
    date("test/a.test.ts", 0);
    date("package.json", 20);
    assert.equal(testBuildCurrent(project), false, "package.json changed after the build");
    date("package.json", 0);
    unlinkSync(join(project, "build/.fixtures-built"));
    assert.equal(testBuildCurrent(project), false, "never built");
  });

  it("runs a test file at its own .ts URL, resolves a .js import to its .ts source, and its stack traces name the sources' lines", async () => {
    const fixture = join(ROOT, "test/scripts/fixtures/loaded.ts");
    const child = spawn(
      process.execPath,
      ["--import", pathToFileURL(join(ROOT, "scripts/test-loader.mjs")).href, fixture],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((done) => child.on("close", done));
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stdout) as { url: string; main: string; helper: string };
    assert.equal(report.url, pathToFileURL(fixture).href);
    assert.match(report.main, /\/test\/scripts\/fixtures\/loaded\.ts:11:\d+\)/);
    assert.match(report.helper, /\/test\/scripts\/fixtures\/loaded-helper\.ts:5:\d+\)/);
  });
});
