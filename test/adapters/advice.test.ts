/**
 * Advice is worded for the surface that shows it (core/phrasing.ts): the CLI's answers and
 * refusals name commands and flags (`evident grep --cursor C`, `-F`) where MCP's name tool calls
 * and fields (`call code_search with {"cursor":"C"}`, `literal=true`). A command the CLI advises
 * runs as written: each is taken from the text and read by a shell, with `evident` on PATH; the
 * arguments the shell passes run through the executable's `runCli` in this process
 * (test/adapters/run-evident.ts), and one advised command runs the built executable itself, as
 * `npm install -g` puts it on PATH.
 */
import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { z } from "zod";
import { resolveSettings } from "../../src/config/settings.js";
import { silentLogger } from "../../src/core/logger.js";
import { phrasingFor } from "../../src/core/phrasing.js";
import { createProductRegistry } from "../../src/tools/product.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { defineTool } from "../../src/tools/tool.js";
import { makeTree, removeTree } from "../code/helpers.js";
import { type Loopback, startLoopback } from "../net/loopback.js";
import { EVIDENT_CLI, evidentInProcess, processRun, type Run } from "./run-evident.js";

let base: string;
let tree: string;
let site: Loopback;

/** Where `evident` is on PATH: the built executable, or a stand-in that prints its arguments. */
type Bin = "executable" | "arguments";

function env(extra: Record<string, string> = {}, bin: Bin = "arguments"): Record<string, string> {
  return {
    PATH: `${join(base, bin)}:${process.env.PATH ?? ""}`,
    HOME: join(base, "home"),
    XDG_CONFIG_HOME: join(base, "config"),
    EVIDENT_CACHE_DIR: join(base, "cache"),
    ...extra,
  };
}

/** A command line read by a shell in the tree; `evident` is what `bin` puts on PATH. */
function sh(line: string, extra: Record<string, string>, bin: Bin): Promise<Run> {
  return processRun("sh", ["-c", line], { cwd: tree, env: env(extra, bin) });
}

/**
 * A command line as a shell runs it: the shell reads the words (quotes, escapes), and the
 * arguments it passes to `evident` run in this process.
 */
async function shell(line: string, extra: Record<string, string> = {}): Promise<Run> {
  const read = await sh(line, extra, "arguments");
  assert.equal(read.code, 0, `${line}: ${read.stderr}`);
  const args = read.stdout.split("\0").slice(0, -1);
  assert.equal(args[0], "evident", line);
  return evidentInProcess(args.slice(1), { cwd: tree, env: env(extra) });
}

/** The command a line of advice names, from `evident` to where the advice goes on. */
function advised(text: string, lead: string): string {
  const line = text.split("\n").find((l) => l.startsWith(lead) && l.includes("evident "));
  assert.ok(line, `no "${lead}" line in:\n${text}`);
  const command = /`(evident [^`]+)`/.exec(line.slice(lead.length))?.[1];
  assert.ok(command, line);
  return command;
}

describe("advice is worded for its surface", () => {
  before(async () => {
    base = await mkdtemp(join(tmpdir(), "evident-advice-"));
    for (const [bin, script] of [
      ["executable", `exec "${process.execPath}" "${EVIDENT_CLI}" "$@"`],
      // Its name, then each argument, each ended by NUL (no argument holds one).
      ["arguments", `printf '%s\\0' evident "$@"`],
    ] as const) {
      await mkdir(join(base, bin));
      await writeFile(join(base, bin, "evident"), `#!/bin/sh\n${script}\n`);
      await chmod(join(base, bin, "evident"), 0o755);
    }
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`many/m${String(i).padStart(2, "0")}.txt`] = "crowd line\n".repeat(20);
    const body = Array.from({ length: 1500 }, (_, i) => `  x += ${i}; // filler`).join("\n");
    files["big.ts"] = `export function big() {\n  let x = 0;\n${body}\n  return x;\n}\n`;
    files["small.ts"] = "export function small() {\n  return 'solitary';\n}\n";
    for (let i = 0; i < 6; i++) files[`node_modules/lib/v${i}.js`] = "const vendorword = 1;\n";
    files["src/own.ts"] = "const vendorword = 2;\n";
    tree = await makeTree(files);
    site = await startLoopback((_req, res) => {
      res.setHeader("content-type", "text/plain; charset=utf-8");
      res.end(Array.from({ length: 300 }, (_, i) => `line ${i} of a long page`).join("\n"));
    });
  });

  after(async () => {
    await site.close();
    await removeTree(tree);
    await rm(base, { recursive: true, force: true });
  });

  it("the CLI's summary names `evident grep` commands, and each runs as written", async () => {
    const summary = await shell("evident grep crowd --text");
    assert.equal(summary.code, 0, summary.stderr);
    assert.doesNotMatch(summary.stdout, /call code_search|\{"cursor"/);
    const lines = advised(summary.stdout, "Matching lines: ");
    assert.match(lines, /^evident grep --cursor \S+$/);
    // This one as a user's shell runs it: the installed executable, a process of its own.
    const page = await sh(lines, {}, "executable");
    assert.equal(page.code, 0, page.stderr);
    assert.equal(JSON.parse(page.stdout).view, "details");
    const files = advised(summary.stdout, "Files ");
    assert.match(files, /^evident grep --cursor \S+ --mode summary$/);
    const more = await shell(files);
    assert.equal(more.code, 0, more.stderr);
    assert.equal(JSON.parse(more.stdout).view, "summary");
    // The options that go with it are named as flags.
    assert.match(summary.stdout, /add --paths for chosen files, -n for page size, -C for surrounding lines/);
  });

  it("the CLI's next page of matching lines is an `evident grep` command that runs", async () => {
    const first = await shell("evident grep crowd --mode matches -n 3 --text");
    assert.equal(first.code, 0, first.stderr);
    const next = advised(first.stdout, "Next page: ");
    assert.match(first.stdout, /repeat -n, -C or --redact to keep them/);
    const page = await shell(`${next} -n 3`);
    assert.equal(page.code, 0, page.stderr);
    assert.equal(JSON.parse(page.stdout).shownFrom, 4);
  });

  it("the CLI's inspection continues with `evident inspect --source-cursor`, which runs", async () => {
    const first = await shell("evident inspect big.ts:5 --text");
    assert.equal(first.code, 0, first.stderr);
    const next = advised(first.stdout.replace(/^.*Continue: /ms, "Continue: "), "Continue: ");
    assert.match(next, /^evident inspect --source-cursor \S+$/);
    const rest = await shell(next);
    assert.equal(rest.code, 0, rest.stderr);
    assert.equal(JSON.parse(rest.stdout).view, "inspection");
  });

  it("the CLI's small result says how to inspect a match by number, as a command that runs", async () => {
    const found = await shell("evident grep solitary --text");
    assert.equal(found.code, 0, found.stderr);
    const advice = advised(found.stdout, "Inspect a match by its number: ");
    assert.match(advice, /^evident grep --cursor \S+ --inspect N$/);
    assert.match(found.stdout, /\(--match-indices for up to 5\)/);
    const inspected = await shell(advice.replace(/ N$/, " 1"));
    assert.equal(inspected.code, 0, inspected.stderr);
    assert.equal(JSON.parse(inspected.stdout).inspections[0].symbol.name, "small");
  });

  it("the CLI's note on a vendored folder says to run the same command again with --exclude", async () => {
    const found = await shell("evident grep vendorword --text");
    assert.equal(found.code, 0, found.stderr);
    assert.match(
      found.stdout,
      /To search without it, run the same command again with --exclude node_modules\./,
    );
    assert.doesNotMatch(found.stdout, /call code_search|"exclude"/);
    const own = await shell("evident grep vendorword --exclude node_modules --text");
    assert.equal(own.code, 0, own.stderr);
    assert.match(own.stdout, /src\/own\.ts/);
    assert.doesNotMatch(own.stdout, /node_modules\/|installed or generated/);
  });

  it("a long page read by the CLI says `evident read --cursor C`, which runs", async () => {
    const extra = { EVIDENT_ALLOW_PRIVATE_NETWORK: "true", EVIDENT_ENVELOPE_BUDGET_CHARS: "2000" };
    const first = await shell(`evident read ${site.url}/long`, extra);
    assert.equal(first.code, 0, first.stderr);
    const warning = (JSON.parse(first.stdout).warnings as string[]).find((w) =>
      w.startsWith("the page continues"),
    );
    assert.ok(warning, first.stdout);
    assert.doesNotMatch(warning, /call web_read/);
    const next = /`(evident read --cursor \S+)` for the next part/.exec(warning)?.[1];
    assert.ok(next, warning);
    const part = await shell(next, extra);
    assert.equal(part.code, 0, part.stderr);
    assert.equal(JSON.parse(part.stdout).contentChars.from > 0, true);
  });

  it("a refused pattern says -F on the CLI and literal=true over MCP", async () => {
    const cli = await shell("evident grep '('");
    assert.equal(cli.code, 2);
    const message = JSON.parse(cli.stderr).error.message as string;
    assert.match(message, /use -F to search the exact text/);
    assert.doesNotMatch(message, /literal=true/);
    const registry = createProductRegistry({
      cwd: tree,
      settings: resolveSettings(env()),
      logger: silentLogger,
    });
    try {
      const mcp = await registry.call("code_search", { pattern: "(" });
      assert.equal(mcp.isError, true);
      assert.match(mcp.text, /use literal=true to search the exact text/);
      // The same answer over MCP keeps naming calls and fields.
      const summary = await registry.call("code_search", { pattern: "crowd" });
      assert.match(summary.text, /Matching lines: call code_search with \{"cursor":"[^"]+"\} \(add paths/);
    } finally {
      await registry.close();
    }
  });

  it("a refusal of the tool's own names the flags on the CLI and the fields over MCP", async () => {
    const cli = await shell("evident grep --inspect 3");
    assert.equal(cli.code, 2);
    assert.match(JSON.parse(cli.stderr).error.message, /pass its --cursor too/);
    const registry = createProductRegistry({
      cwd: tree,
      settings: resolveSettings(env()),
      logger: silentLogger,
    });
    try {
      const mcp = await registry.call("code_search", { inspect: 3 });
      assert.match(mcp.text, /pass its cursor too/);
    } finally {
      await registry.close();
    }
  });

  it("an internal error says where its cause is logged, for each surface", async () => {
    const broken = defineTool({
      name: "broken",
      title: "Broken",
      description: "Always throws (tests only).",
      inputSchema: z.strictObject({}),
      outputSchema: z.object({}),
      annotations: { readOnlyHint: true, openWorldHint: false },
      handler: async () => {
        throw new Error("a bug with /secret/paths in it");
      },
    });
    const expected = {
      mcp: /An internal error occurred; see the server log\.$/,
      http: /An internal error occurred; see the server log\.$/,
      cli: /run it again with EVIDENT_LOG_LEVEL=error to see its cause/,
      sdk: /createEvident's logger/,
      pi: /EVIDENT_LOG_LEVEL=error shows its cause/,
    } as const;
    for (const [surface, wording] of Object.entries(expected)) {
      const registry = new ToolRegistry(phrasingFor(surface as keyof typeof expected)).register(broken);
      const result = await registry.call("broken", {});
      assert.equal(result.isError, true);
      const error = result.isError ? result.error : undefined;
      assert.equal(error?.code, "internal_error");
      assert.match(error?.message ?? "", wording, surface);
      assert.doesNotMatch(error?.message ?? "", /secret/);
    }
  });
});
