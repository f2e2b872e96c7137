/**
 * Inspection from a shell: `evident grep --cursor C --inspect N` after a search, `evident
 * inspect PATH:LINE ...`, and `evident inspect --source-cursor C`, sharing only
 * EVIDENT_CACHE_DIR. Each run is the executable's `runCli` in this process, with a registry of
 * its own (test/adapters/run-evident.ts); one inspection is a process of the built executable
 * (npm test builds first), continuing a search made before it.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { evidentInProcess, evidentProcess, type Run } from "./run-evident.js";

let base: string;

function options() {
  // HOME apart from the project: the home directory itself is never taken as one.
  return {
    cwd: base,
    env: { PATH: process.env.PATH ?? "", HOME: join(base, ".home"), EVIDENT_CACHE_DIR: join(base, ".cache") },
  };
}

function cli(args: string[]): Promise<Run> {
  return evidentInProcess(args, options());
}

function parsed(run: Run) {
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

async function json(args: string[]) {
  return parsed(await cli(args));
}

describe("evident inspect", async () => {
  before(async () => {
    base = await mkdtemp(join(tmpdir(), "evident-cli-inspect-"));
    const filler = Array.from({ length: 1500 }, (_, i) => `  x += ${i}; // filler`).join("\n");
    await writeFile(
      join(base, "a.ts"),
      `export function small() {\n  return 1; // needle\n}\n\nexport function big() {\n  let x = 0;\n${filler}\n  return x;\n}\n`,
    );
  });
  after(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it("inspects match [n] of an earlier grep, in a later process", async () => {
    const found = await json(["grep", "needle", "--mode", "summary"]);
    const answer = parsed(
      await evidentProcess(["grep", "--cursor", found.cursor, "--inspect", "1"], options()),
    );
    assert.equal(answer.view, "inspection");
    assert.equal(answer.inspections[0].symbol.name, "small");
    assert.equal(answer.fragments[0].text, "export function small() {\n  return 1; // needle\n}\n");
  });

  it("inspects several matches of an earlier grep with --match-indices, as its help says", async () => {
    const found = await json(["grep", "return", "--mode", "summary"]);
    const answer = await json([
      "grep",
      "--cursor",
      found.cursor,
      "--match-indices",
      "1",
      "--match-indices",
      "2",
    ]);
    assert.equal(answer.view, "inspection");
    assert.deepEqual(
      answer.inspections.map((o: { symbol: { name: string } }) => o.symbol.name),
      ["small", "big"],
    );
  });

  it("inspects PATH:LINE targets and continues with --source-cursor", async () => {
    const answer = await json(["inspect", "a.ts:2", "a.ts:7"]);
    assert.deepEqual(
      answer.inspections.map((o: { symbol: { name: string } }) => o.symbol.name),
      ["small", "big"],
    );
    assert.ok(answer.sourceCursor);
    const rest = await json(["inspect", "--source-cursor", answer.sourceCursor]);
    assert.equal(rest.fragments[0].startByte, answer.remaining[0].startByte);
    const text = await cli(["inspect", "a.ts", "--symbol", "small", "--text"]);
    assert.match(text.stdout, /^1\texport function small\(\) \{$/m);
  });

  it("takes --structure with the path as its one positional", async () => {
    await writeFile(join(base, "b.ts"), "function log() {\n  console.log(1);\n}\n");
    const found = await json(["grep", "--structure", "console.log($A)", "b.ts"]);
    assert.equal(found.structure, "console.log($A)");
    assert.equal(found.requestedRoot, "b.ts");
    assert.deepEqual(
      found.matches.map((m: { line: number; node: { symbol: string } }) => [m.line, m.node.symbol]),
      [[2, "log"]],
    );
  });

  it("reports a bad target as a tool error, and a bad form as a usage error", async () => {
    const missing = await cli(["inspect", "nope.ts:3"]);
    assert.equal(missing.code, 2);
    assert.equal(JSON.parse(missing.stderr).error.code, "invalid_arguments");
    const both = await cli(["inspect", "a.ts:2", "--symbol", "small"]);
    assert.equal(both.code, 2);
  });

  it("says what inspect needs when a file comes without a line, or nothing is named", async () => {
    for (const [args, said] of [
      [["inspect", "a.ts"], /^"a\.ts" has no line: evident inspect needs PATH:LINE/],
      [["inspect", "a.ts:2", "a.ts"], /^"a\.ts" has no line: evident inspect needs PATH:LINE/],
      [["inspect"], /^evident inspect needs PATH:LINE/],
    ] as const) {
      const run = await cli([...args]);
      assert.equal(run.code, 2, args.join(" "));
      const error = JSON.parse(run.stderr).error;
      assert.equal(error.code, "invalid_arguments");
      assert.match(error.message, said);
      assert.match(error.message, /PATH --symbol NAME/);
      assert.doesNotMatch(error.message, /pattern is required/);
    }
    // A line given by flag still completes a bare path.
    assert.equal((await json(["inspect", "a.ts", "--line", "2"])).inspections[0].symbol.name, "small");
  });
});
