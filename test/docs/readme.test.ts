/**
 * The README's promises, run as written: the first command a newcomer types, and the SDK example.
 */
import assert from "node:assert/strict";
import { execSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, it } from "node:test";

const ROOT = resolve(import.meta.dirname, "../..");
const README = readFileSync(resolve(ROOT, "README.md"), "utf8");

function codeBlocks(language: string): string[] {
  return [...README.matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map(
    (m) => m[1] ?? "",
  );
}

describe("README", () => {
  const [commands] = codeBlocks("sh");
  const lines = (commands ?? "").split("\n").filter((line) => line.trim() !== "");

  it("opens with the two commands: run the main job, run every test", () => {
    assert.equal(lines.length, 2);
    assert.match(lines[0] ?? "", /^npm install && npm run evident -- /);
    assert.match(lines[1] ?? "", /^npm install-test\b/);
    const ci = readFileSync(resolve(ROOT, ".ci/run"), "utf8");
    assert.match(ci, /^npm install-test$/m, ".ci/run runs exactly the README's test command");
  });

  it("the first command's main job runs as written (install already done by the test run)", () => {
    const command = (lines[0] ?? "")
      .replace(/#.*$/, "")
      .replace(/^npm install && /, "")
      .trim();
    const stdout = execSync(command, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    const json = stdout.slice(stdout.indexOf("{"));
    const result = JSON.parse(json);
    assert.ok(result.totalMatches >= 1);
  });

  it("the SDK example runs against the built package", () => {
    const [example] = codeBlocks("ts");
    assert.ok(example?.includes('from "evident"'));
    // Inside the package folder, `import "evident"` resolves to this package (self-reference).
    const dir = resolve(ROOT, "build");
    mkdirSync(dir, { recursive: true });
    const file = resolve(dir, "readme-example.mjs");
    writeFileSync(file, example ?? "");
    const run = spawnSync(process.execPath, [file], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /createEvident/);
  });
});
