/**
 * Analysis cursors across `evident grep` processes: an anyOf result stored by one process (the
 * CLI keeps results in its file store) is paged by the next ones.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";

const ROOT = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const CLI = resolve(ROOT, "dist/adapters/cli/main.js");

let base: string;

function grep(args: string[]) {
  const run = spawnSync(process.execPath, [CLI, "grep", ...args], {
    cwd: join(base, "tree"),
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: base, EVIDENT_CACHE_DIR: join(base, "cache") },
    timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as {
    cursor?: string;
    cursorKind?: string;
    totalItems: number;
    items: { index: number; term: string }[];
  };
}

describe("CLI analysis cursors", () => {
  before(async () => {
    assert.ok(existsSync(CLI), "run `npm run build` first (npm test does)");
    base = await mkdtemp(join(tmpdir(), "evident-cli-analysis-"));
    await mkdir(join(base, "tree"), { recursive: true });
    await writeFile(join(base, "tree", "a.ts"), "alpha beta\n".repeat(40));
    await writeFile(join(base, "tree", "lib.ts"), "export function gamma() {}\ngamma();\n");
  });
  after(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it("pages an anyOf result from process to process", () => {
    const first = grep(["--any-of", "alpha", "--any-of", "beta"]);
    assert.equal(first.totalItems, 80);
    assert.equal(first.cursorKind, "analysis");
    const items = [...first.items];
    let cursor = first.cursor;
    while (cursor !== undefined) {
      const page = grep(["--cursor", cursor]);
      items.push(...page.items);
      cursor = page.cursor;
    }
    assert.deepEqual(
      items.map((i) => i.index),
      Array.from({ length: 80 }, (_, i) => i + 1),
    );
    assert.deepEqual(
      items.map((i) => i.term),
      [...Array(40).fill("alpha"), ...Array(40).fill("beta")],
    );
  });

  it("takes PATH:LINE for impact and a lone path for navigation", () => {
    const impact = grep(["--impact", "lib.ts:1"]) as unknown as {
      operation: string;
      pattern: string;
      totalItems: number;
    };
    assert.equal(impact.operation, "impact");
    assert.match(impact.pattern, /impact of function gamma \(lib\.ts:1-1\)/);
    assert.equal(impact.totalItems, 2);
    const tests = grep(["--navigate", "tests", "lib.ts"]) as unknown as { operation: string };
    assert.equal(tests.operation, "tests");
  });
});
