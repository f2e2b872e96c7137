/**
 * Cursors across `evident grep` runs, sharing only EVIDENT_CACHE_DIR, as a shell-using agent
 * pages. The search that makes the cursors is a process of the built executable (npm test builds
 * first), and so is the first run that continues one; the rest run the executable's `runCli` in
 * this process (test/adapters/run-evident.ts), each with a registry of its own, so a cursor
 * reaches them only through the cache directory.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/client";
import { connectInProcess, EVIDENT_CLI, evidentInProcess, evidentProcess, type Run } from "./run-evident.js";

const FILES = 30;
/** File i holds i + 1 matching lines. */
const TOTAL = (FILES * (FILES + 1)) / 2;

let base: string;
let tree: string;
let cache: string;

interface Output {
  view: string;
  totalMatches: number;
  cursor?: string;
  cursorKind?: string;
  matches?: Array<{ index: number; path: string; line: number; text: string }>;
}

function env(cacheDir = cache): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: base, EVIDENT_CACHE_DIR: cacheDir };
}

/** `evident grep ARGS` in this process. */
function grep(args: string[], cacheDir = cache, cwd = tree): Promise<Run> {
  return evidentInProcess(["grep", ...args], { cwd, env: env(cacheDir) });
}

/** `evident grep ARGS` as a process of the built executable. */
function grepProcess(args: string[]): Promise<Run> {
  return evidentProcess(["grep", ...args], { cwd: tree, env: env() });
}

function parsed(run: Run): Output {
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as Output;
}

async function ok(args: string[]): Promise<Output> {
  return parsed(await grep(args));
}

async function errorCode(args: string[], cacheDir = cache): Promise<string> {
  const run = await grep(args, cacheDir);
  assert.equal(run.code, 1, run.stdout);
  return (JSON.parse(run.stderr) as { error: { code: string } }).error.code;
}

describe("CLI cursors persist between processes", () => {
  before(async () => {
    assert.ok(existsSync(EVIDENT_CLI), "run `npm run build` first (npm test does)");
    base = await mkdtemp(join(tmpdir(), "evident-cli-cursors-"));
    tree = join(base, "tree");
    cache = join(base, "cache");
    await mkdir(join(tree, "src"), { recursive: true });
    await mkdir(join(tree, "changed"), { recursive: true });
    await writeFile(join(tree, "changed", "f.ts"), "export const settledMarker = 0;\n");
    for (let i = 0; i < FILES; i++) {
      const lines = Array.from({ length: i + 1 }, (_, j) => `export const needle${j} = ${j}; // error ${i}`);
      await writeFile(join(tree, "src", `f${String(i).padStart(3, "0")}.ts`), `${lines.join("\n")}\n`);
    }
  });

  after(async () => {
    await rm(base, { recursive: true, force: true });
  });

  let summaryCursor: string;

  it("the first call returns a file summary with a cursor, kept in a private cache dir", async () => {
    const summary = parsed(await grepProcess(["error", "src"]));
    assert.equal(summary.view, "summary");
    assert.equal(summary.totalMatches, TOTAL);
    assert.equal(summary.cursorKind, "summary");
    assert.ok(summary.cursor);
    summaryCursor = summary.cursor;
    assert.equal((await stat(cache)).mode & 0o777, 0o700);
  });

  it("G06: another process continues the cursor for a chosen file and gets exactly its matches", async () => {
    const page = parsed(await grepProcess(["--cursor", summaryCursor, "--paths", "src/f004.ts"]));
    assert.equal(page.view, "details");
    assert.deepEqual(
      (page.matches ?? []).map((m) => [m.path, m.line]),
      [1, 2, 3, 4, 5].map((line) => ["src/f004.ts", line]),
    );
  });

  it("G01: walking match pages, one run each, yields every match exactly once, in order", async () => {
    const seen: NonNullable<Output["matches"]> = [];
    let page = await ok(["--cursor", summaryCursor, "--limit", "60"]);
    seen.push(...(page.matches ?? []));
    let runs = 1;
    while (page.cursorKind === "matches" && page.cursor !== undefined) {
      page = await ok(["--cursor", page.cursor, "--limit", "60"]);
      seen.push(...(page.matches ?? []));
      assert.ok(++runs < 100, "the walk does not end");
    }
    assert.equal(runs, Math.ceil(TOTAL / 60));
    assert.deepEqual(
      seen.map((m) => m.index),
      Array.from({ length: TOTAL }, (_, i) => i + 1),
    );
    assert.equal(new Set(seen.map((m) => `${m.path}:${m.line}`)).size, TOTAL);
  });

  it("G07: the summary cursor still works after its detail pages were walked", async () => {
    const again = await ok(["--cursor", summaryCursor, "--limit", "5"]);
    assert.equal(again.view, "details");
    assert.deepEqual(
      (again.matches ?? []).map((m) => m.index),
      [1, 2, 3, 4, 5],
    );
  });

  it("G12: a forged or foreign cursor fails with a cursor code, exit 1", async () => {
    const raw = Buffer.from(summaryCursor, "base64url");
    raw[20] = (raw[20] ?? 0) ^ 1;
    assert.equal(await errorCode(["--cursor", raw.toString("base64url")]), "cursor_malformed");
    assert.equal(await errorCode(["--cursor", "AAAAAAAA"]), "cursor_malformed");
    // The same cursor against another cache (another key) is not reinterpreted.
    assert.equal(await errorCode(["--cursor", summaryCursor], join(base, "other-cache")), "cursor_malformed");
  });

  it("G08: a grep process observes only the files it matched, and a later one refuses a file changed since", async () => {
    const found = parsed(await grepProcess(["settledMarker", "--mode", "summary"]));
    assert.equal(found.totalMatches, 1);
    // Written in `before`, long before this process began: verified without a scan of the tree.
    assert.equal((found as Output & { sourceUnverifiedFileCount: number }).sourceUnverifiedFileCount, 0);
    assert.equal(
      parsed(await grep(["--cursor", found.cursor as string, "--inspect", "1"])).view,
      "inspection",
    );
    await writeFile(join(tree, "changed", "f.ts"), "export const other = 1;\n");
    const run = await grep(["--cursor", found.cursor as string, "--inspect", "1"]);
    assert.equal(run.code, 1, run.stdout);
    assert.equal((JSON.parse(run.stderr) as { error: { code: string } }).error.code, "source_changed");
  });

  it("a cursor is continued only under the project root it was made in", async () => {
    // Another directory with the same cache: its answers start with its own root, so the
    // cursor's result (searched elsewhere, its paths relative to there) is not found there.
    const elsewhere = join(base, "elsewhere");
    await mkdir(join(elsewhere, "src"), { recursive: true });
    await writeFile(join(elsewhere, "src/f004.ts"), "export const needle0 = 'not the searched file';\n");
    const run = await grep(["--cursor", summaryCursor, "--paths", "src/f004.ts"], cache, elsewhere);
    assert.equal(run.code, 1, run.stdout);
    assert.equal((JSON.parse(run.stderr) as { error: { code: string } }).error.code, "cursor_not_found");
    assert.equal((await ok(["--cursor", summaryCursor, "--paths", "src/f004.ts"])).view, "details");
  });

  it("a cache dir writable by others is refused with configuration_error naming EVIDENT_CACHE_DIR", async () => {
    const open = join(base, "open-cache");
    await mkdir(open);
    await chmod(open, 0o777);
    const run = await grep(["--cursor", summaryCursor], open);
    assert.equal(run.code, 1);
    const error = (JSON.parse(run.stderr) as { error: { code: string; message: string } }).error;
    assert.equal(error.code, "configuration_error");
    assert.match(error.message, /EVIDENT_CACHE_DIR/);
  });

  it("`evident grep --help` says cursors persist and where", async () => {
    const run = await grep(["--help"]);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /later runs too .*30 minutes/s);
    assert.match(run.stdout, /EVIDENT_CACHE_DIR/);
  });

  it("`evident mcp` keeps snapshots in memory: its cursors never touch the cache dir", async () => {
    const mcpCache = join(base, "mcp-cache");
    const client = new Client({ name: "cli-cursors", version: "1.0.0" });
    const server = await connectInProcess(client, [], { cwd: tree, env: env(mcpCache) });
    try {
      const result = await client.callTool({ name: "code_search", arguments: { pattern: "error" } });
      assert.notEqual(result.isError, true);
      // The default MCP answer is the text alone; the model reads the cursor from it.
      const [first] = result.content as Array<{ text: string }>;
      const cursor = /\{"cursor":"([^"]+)"\}/.exec(first?.text ?? "")?.[1];
      assert.ok(cursor, first?.text);
      const next = await client.callTool({ name: "code_search", arguments: { cursor } });
      assert.notEqual(next.isError, true);
    } finally {
      await server.close();
    }
    assert.equal(existsSync(mcpCache), false);
  });
});
