/**
 * The CLI speaks CLI: a refusal names the flag as it was typed and shows the command's usage
 * line (never the schema validator's wording), every flag a help text lists works as shown
 * there, an explicit flag means what it says, a failed command's standard error is exactly one
 * JSON document, and `--text` prints text for the web tools too. Each `evident` run is the
 * executable's `runCli` in this process, in a temporary tree (test/adapters/run-evident.ts);
 * what lives at the process boundary (exit codes, what reaches the real stdout and stderr) runs
 * the built executable (npm test builds first).
 */
import assert from "node:assert/strict";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { resolveSettings } from "../../src/config/settings.js";
import { silentLogger } from "../../src/core/logger.js";
import { createProductRegistry } from "../../src/tools/product.js";
import { makeTree, removeTree } from "../code/helpers.js";
import { type Loopback, startLoopback } from "../net/loopback.js";
import { evidentInProcess, evidentProcess } from "./run-evident.js";

let base: string;
let tree: string;
let searxng: Loopback;
let site: Loopback;

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: base,
    XDG_CONFIG_HOME: join(base, "config"),
    EVIDENT_CACHE_DIR: join(base, "cache"),
    // Web calls stay on this machine: a loopback SearXNG answers every search.
    SEARXNG_URL: searxng.url,
    EVIDENT_SEARCH_ROUTE: "searxng",
    ...extra,
  };
}

/** `evident ARGS` in this process, in the tree. */
function evident(args: readonly string[], extra: Record<string, string> = {}) {
  return evidentInProcess(args, { cwd: tree, env: env(extra) });
}

/** `evident ARGS` as a process of the built executable, in the tree. */
function evidentAsProcess(args: readonly string[], extra: Record<string, string> = {}) {
  return evidentProcess(args, { cwd: tree, env: env(extra) });
}

/** The error document a failed run wrote: standard error must parse as exactly one JSON value. */
function errorOf(run: { stderr: string }): Record<string, unknown> & { code: string; message: string } {
  let parsed: { error: Record<string, unknown> & { code: string; message: string } };
  try {
    parsed = JSON.parse(run.stderr);
  } catch {
    assert.fail(`standard error is not one JSON document:\n${run.stderr}`);
  }
  return parsed.error;
}

/** What a validator says that a person at a shell did not write. */
const SCHEMA_WORDING = /Invalid input|expected \w+, received|unknown field|Too (big|small)|Invalid option/;

describe("the CLI speaks CLI", () => {
  before(async () => {
    base = await mkdtemp(join(tmpdir(), "evident-cli-language-"));
    const files: Record<string, string> = {
      "a.ts": "export function alpha() {\n  return 'needle';\n}\n",
      "f.txt": "a b needle\n",
      ".hidden/secret.txt": "needle in a hidden file\n",
    };
    // Enough matching files that a search answers with a summary and its cursor.
    for (let i = 0; i < 40; i++) files[`many/m${i}.txt`] = `${"crowd line\n".repeat(20)}`;
    tree = await makeTree(files);
    searxng = await startLoopback((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          results: [
            { title: "First result", url: "https://example.org/one", content: "the first snippet" },
            { title: "Second result", url: "https://example.org/two", content: "the second snippet" },
          ],
        }),
      );
    });
    site = await startLoopback((_req, res) => {
      res.setHeader("content-type", "text/plain; charset=utf-8");
      res.end("A plain page about needles.\nIts second line.");
    });
  });

  after(async () => {
    await searxng.close();
    await site.close();
    await rm(base, { recursive: true, force: true });
    await removeTree(tree);
  });

  for (const [args, flag, wording] of [
    [["grep", "needle", "-C", "abc"], "-C", /^-C takes a whole number, got "abc"\./],
    [["grep", "needle", "-C"], "-C", /^-C needs a value \(-C N\)\./],
    [["search"], "QUERY", /^evident search needs QUERY\./],
    [["read"], "URL", /^evident read needs URL/],
    [
      ["grep", "needle", "--ignorecase"],
      "--ignorecase",
      /unknown option --ignorecase .*did you mean --ignore-case\?/,
    ],
    [
      ["grep", "needle", "--mode", "everything"],
      "--mode",
      /--mode takes one of auto, summary, matches, got "everything"/,
    ],
    [["grep", "needle", "-C", "99"], "-C", /^-C must be at most 20, got 99\./],
    [["grep", "--any-of", "needle"], "--any-of", /^--any-of is needed at least 2 times\./],
    [
      ["search", "q", "--max-results", "five"],
      "--max-results",
      /--max-results takes a whole number, got "five"/,
    ],
    [["search", "q", "-n", "0"], "-n", /^-n must be at least 1, got 0\./],
    [["grep", "needle", "--max-parse-files", "3"], "--max-parse-files", /--max-parse-files .*--structure/],
    [
      ["grep", "needle", "--targets"],
      "--targets",
      /^--targets needs a value \(--targets PATH:LINE\)\. Usage/,
    ],
    [["search", "q", "--root", "."], "--root", /^unknown option --root for evident search\./],
  ] as const) {
    it(`A07/A09: evident ${args.join(" ")}: names ${flag} as typed, shows the usage line, exits 2`, async () => {
      const run = await evident(args);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stdout, "");
      const error = errorOf(run);
      assert.equal(error.code, "invalid_arguments");
      assert.equal(error.flag, flag);
      assert.match(error.message, wording);
      assert.match(error.message, new RegExp(`Usage: evident ${args[0]} `));
      assert.doesNotMatch(error.message, SCHEMA_WORDING);
    });
  }

  it("A09: as a process, a refused flag exits 2, with nothing on stdout and one JSON document on stderr", async () => {
    const run = await evidentAsProcess(["grep", "needle", "-C", "abc"]);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stdout, "");
    const error = errorOf(run);
    assert.deepEqual([error.code, error.flag], ["invalid_arguments", "-C"]);
    assert.match(error.message, /^-C takes a whole number, got "abc"\. Usage: evident grep /);
  });

  it("evident mcp's usage errors show its usage line too", async () => {
    for (const args of [
      ["mcp", "--bogus"],
      ["mcp", "--transport", "carrier-pigeon"],
      ["mcp", "--root"],
    ]) {
      const run = await evident(args);
      assert.equal(run.code, 2, run.stderr);
      const error = errorOf(run);
      assert.equal(error.code, "invalid_arguments");
      assert.match(error.message, /Usage: evident mcp \[--transport stdio\|http\] \[--root DIR\]/);
    }
  });

  it("a usage line is the one of the form the flag belongs to", async () => {
    const error = errorOf(await evident(["grep", "--any-of", "needle"]));
    assert.match(error.message, /Usage: evident grep --any-of TEXT --any-of TEXT/);
  });

  it("every flag a help text lists is taken as it is shown there", async () => {
    const samples: Record<string, string> = {
      N: "1",
      "PATH:LINE": "a.ts:1",
      "worktree|staged|BASE..TARGET": "worktree",
      PATTERN: "needle",
      PATH: "a.ts",
      FILE: "a.ts",
      GLOB: "*.ts",
      TEXT: "needle",
      NAME: "alpha",
      C: "not-a-cursor",
      QUERY: "q",
      ID: "searxng",
      URL: `${site.url}/page`,
      DIR: tree,
    };
    const positional: Record<string, readonly string[]> = {
      grep: ["needle"],
      search: ["q"],
      read: [`${site.url}/page`],
      inspect: ["a.ts:1"],
    };
    // The positionals' own flags stand for them, rather than beside them.
    const replacing = new Set(["--pattern", "--query", "--url"]);
    let walked = 0;
    for (const command of Object.keys(positional)) {
      const help = await evident([command, "--help"]);
      assert.equal(help.code, 0, help.stderr);
      const lines = help.stdout.split("\n").filter((line) => /^ {2}-/.test(line));
      assert.ok(lines.length > 0, `${command} --help lists no option`);
      for (const line of lines) {
        const shown = (line.trim().split("  ")[0] as string).split(" (repeatable")[0] as string;
        const words = shown.split(/,? /);
        const value = words.find((word) => !word.startsWith("-"));
        const flags = words.filter((word) => word.startsWith("-"));
        assert.ok(flags.length > 0, line);
        for (const flag of flags) {
          const sample =
            value === undefined || flag.startsWith("--no-")
              ? []
              : [samples[value] ?? value.split("|")[0] ?? "x"];
          const args = [
            command,
            ...(replacing.has(flag) ? [] : (positional[command] ?? [])),
            flag,
            ...sample,
          ];
          const run = await evident(args);
          walked += 1;
          const label = `${args.join(" ")} (from "${line.trim().slice(0, 60)}")`;
          if (run.code === 0) continue;
          const error = errorOf(run);
          // Refused for what it asks (a form the tool does not take alone), never for its shape.
          assert.doesNotMatch(
            error.message,
            /unknown option|Unexpected argument|needs a value|takes one value/,
            label,
          );
          assert.doesNotMatch(error.message, SCHEMA_WORDING, label);
          const issues = (error.issues ?? []) as Array<{ code?: string }>;
          assert.ok(
            issues.every((issue) => !["invalid_type", "unrecognized_keys"].includes(issue.code ?? "")),
            `${label}: ${error.message}`,
          );
        }
      }
    }
    assert.ok(walked > 50, `only ${walked} flags walked`);
  });

  it("--targets takes PATH:LINE, as its help shows", async () => {
    const run = await evident(["grep", "--targets", "a.ts:1", "--targets", "a.ts:2"]);
    assert.equal(run.code, 0, run.stderr);
    const data = JSON.parse(run.stdout) as { view: string; inspections: unknown[] };
    assert.equal(data.inspections.length, 2);
  });

  it("--hidden false turns hidden files off, as --no-hidden does, instead of reading false as a path", async () => {
    for (const off of [["--hidden", "false"], ["--no-hidden"], ["--hidden=false"], ["--no-hidden=true"]]) {
      const run = await evident(["grep", "needle", ...off]);
      assert.equal(run.code, 0, run.stderr);
      const data = JSON.parse(run.stdout) as { totalFiles: number; requestedRoot: string };
      assert.equal(data.requestedRoot, ".");
      assert.equal(data.totalFiles, 2, off.join(" "));
    }
    const on = JSON.parse((await evident(["grep", "needle", "--hidden", "true"])).stdout) as {
      totalFiles: number;
    };
    assert.equal(on.totalFiles, 3);
  });

  it("evident inspect --help lists inspect's own options, not every search option", async () => {
    const run = await evident(["inspect", "--help"]);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /--symbol NAME/);
    assert.match(run.stdout, /--source-cursor C/);
    for (const searchOnly of ["--pattern", "--any-of", "--context", "--glob", "--mode", "--structure"]) {
      assert.doesNotMatch(run.stdout, new RegExp(`^ {2}.*${searchOnly}\\b`, "m"), searchOnly);
    }
  });

  it("A07: an explicit --pattern beside --cursor, --any-of, --structure, --impact or --navigate is refused as MCP refuses it", async () => {
    const summary = JSON.parse((await evident(["grep", "crowd"])).stdout) as { cursor: string };
    assert.ok(summary.cursor, "a summary with a cursor");
    const registry = createProductRegistry({
      cwd: tree,
      settings: resolveSettings(env()),
      logger: silentLogger,
    });
    try {
      const mcpSummary = await registry.call("code_search", { pattern: "crowd" }, { caller: "mcp" });
      const mcpCursor = (mcpSummary.data as { cursor: string }).cursor;
      for (const [cli, mcp] of [
        [["--any-of", "a", "--any-of", "b"], { anyOf: ["a", "b"] }],
        [["--structure", "alpha()"], { structure: "alpha()" }],
        [["--impact", "a.ts:1"], { impact: true, path: "a.ts", line: 1 }],
        [["--navigate", "imports", "a.ts"], { navigate: "imports", path: "a.ts" }],
        [["--cursor", summary.cursor], { cursor: mcpCursor }],
      ] as const) {
        const run = await evident(["grep", ...cli, "--pattern", "f.txt"]);
        const expected = await registry.call("code_search", { ...mcp, pattern: "f.txt" }, { caller: "mcp" });
        assert.equal(expected.isError, true, `MCP refuses ${JSON.stringify(mcp)} with a pattern`);
        assert.notEqual(run.code, 0, `${cli.join(" ")} --pattern f.txt: ${run.stdout.slice(0, 200)}`);
        const error = errorOf(run);
        const mcpError = expected.isError ? expected.error : undefined;
        assert.deepEqual(
          [error.code, error.field],
          [mcpError?.code, mcpError?.details.field],
          `${cli.join(" ")} --pattern f.txt`,
        );
      }
    } finally {
      await registry.close();
    }
  });

  it("A09: a configuration_error leaves exactly one JSON document on standard error", async () => {
    const run = await evidentAsProcess(["search", "q"], { EVIDENT_CONFIG: join(base, "missing.json") });
    assert.equal(run.code, 1);
    assert.equal(errorOf(run).code, "configuration_error");
  });

  it("A09: an internal_error leaves exactly one JSON document on standard error; EVIDENT_LOG_LEVEL shows its cause", async () => {
    const rg = join(base, "broken-rg");
    await writeFile(rg, "#!/bin/sh\necho 'broken on purpose' >&2\nexit 3\n");
    await chmod(rg, 0o755);
    const run = await evidentAsProcess(["grep", "needle"], { EVIDENT_RG_PATH: rg });
    assert.equal(run.code, 1);
    const error = errorOf(run);
    assert.equal(error.code, "internal_error");
    const logged = await evidentAsProcess(["grep", "needle"], {
      EVIDENT_RG_PATH: rg,
      EVIDENT_LOG_LEVEL: "error",
    });
    assert.equal(logged.code, 1);
    const lines = logged.stderr.trim().split("\n");
    assert.match(
      lines.slice(0, -1).join("\n"),
      /"level":"error","msg":"tool code_search failed".*ripgrep exit 3/,
    );
    assert.equal(JSON.parse(lines.at(-1) ?? "").error.code, "internal_error");
  });

  it("a command that succeeds still shows its warnings on standard error", async () => {
    const run = await evident(["grep", "needle"], { EVIDENT_ALLOW_PRIVATE_NETWORK: "true" });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /EVIDENT_ALLOW_PRIVATE_NETWORK=true/);
    const failed = await evident(["grep", "needle", "-C", "x"], { EVIDENT_ALLOW_PRIVATE_NETWORK: "true" });
    assert.equal(errorOf(failed).code, "invalid_arguments");
  });

  it("--text prints a web search as text: each provider's rows, not the JSON envelope", async () => {
    const run = await evident(["search", "needles", "--text"]);
    assert.equal(run.code, 0, run.stderr);
    assert.throws(() => JSON.parse(run.stdout), "not JSON");
    assert.match(run.stdout, /^Search "needles" \(route; used: searxng/);
    assert.match(run.stdout, /^== searxng ==$/m);
    assert.match(run.stdout, /^1\. First result\n {3}https:\/\/example\.org\/one\n {3}the first snippet$/m);
    assert.match(run.stdout, /^2\. Second result$/m);
  });

  it("--text prints a web page as text: its content, not the JSON envelope", async () => {
    const run = await evident(["read", `${site.url}/page`, "--text"], {
      EVIDENT_ALLOW_PRIVATE_NETWORK: "true",
    });
    assert.equal(run.code, 0, run.stderr);
    assert.throws(() => JSON.parse(run.stdout), "not JSON");
    assert.match(run.stdout, /^Read http:\/\/127\.0\.0\.1:\d+\/page \(route; used: direct/);
    assert.match(run.stdout, /^A plain page about needles\.\nIts second line\.$/m);
  });
});
