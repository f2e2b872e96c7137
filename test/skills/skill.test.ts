/**
 * The bundled Agent Skill: structurally valid for the reference validator, and true to the CLI
 * it teaches. Every example in its shell block runs against the CLI (a fixture project, a
 * loopback server speaking Tavily's API for the web commands), and every flag and exit code it
 * names is checked against the CLI itself. Each run is the executable's `runCli` in this process
 * (test/adapters/run-evident.ts), but the failure whose exit code it states is a process of the
 * built executable, as the agent's shell runs it.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { readProperties, validate } from "skills-ref";
import { SNAPSHOT_TTL_MS } from "../../src/core/limits.js";
import { evidentInProcess, evidentProcess, type Run } from "../adapters/run-evident.js";
import { treesRemovedAfter } from "../code/helpers.js";
import { type FakeVendor, sendJson, startFakeVendor } from "../web/providers/fake-vendor.js";

const ROOT = resolve(import.meta.dirname, "../..");
const SKILL_DIR = join(ROOT, "skills", "evident");
const SKILL = readFileSync(join(SKILL_DIR, "SKILL.md"), "utf8");
// This machine has no DNS: the example's page URL is read as a public IP literal instead.
const PAGE_STAND_IN = "https://93.184.215.14/api/stream.html";

const tree = treesRemovedAfter(after);
let vendor: FakeVendor;
let cache: string;

before(async () => {
  vendor = await startFakeVendor();
  cache = mkdtempSync(join(tmpdir(), "evident-skill-cache-"));
});
after(async () => {
  await vendor.close();
  rmSync(cache, { recursive: true, force: true });
});

function env(extraEnv: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    // Apart from the project: the home directory itself is never taken as one.
    HOME: cache,
    EVIDENT_CACHE_DIR: cache,
    TAVILY_API_KEY: "tvly-skill-test",
    EVIDENT_TAVILY_BASE_URL: vendor.baseUrl,
    EVIDENT_READ_ROUTE: "tavily",
    ...extraEnv,
  };
}

/** `evident ARGS` in this process. */
function run(args: string[], cwd: string, extraEnv: Record<string, string> = {}): Promise<Run> {
  return evidentInProcess(args, { cwd, env: env(extraEnv) });
}

/** `evident ARGS` as a process of the built executable (asynchronous: the vendor answers from here). */
function runProcess(args: string[], cwd: string): Promise<Run> {
  return evidentProcess(args, { cwd, env: env({}) });
}

/** The CLI's error payload: stderr is that one JSON document (anything else there fails, shown). */
function errorPayload(stderr: string): { error: { code: string } } {
  try {
    return JSON.parse(stderr);
  } catch {
    assert.fail(`stderr is not the error payload alone:\n${stderr}`);
  }
}

/** Splits one example line as a POSIX shell would (quotes only; the examples use nothing else). */
function words(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? (m[3] as string));
}

function examples(): string[] {
  const block = /```sh\n([\s\S]*?)```/.exec(SKILL)?.[1];
  assert.ok(block, "SKILL.md has a sh block of examples");
  return block.split("\n").filter((line) => line.startsWith("evident "));
}

describe("Agent Skill", () => {
  it("A10: skills/evident passes the skills-ref validator and names itself as its directory", async () => {
    assert.deepEqual(await validate(SKILL_DIR), []);
    const properties = await readProperties(SKILL_DIR);
    assert.equal(properties.name, "evident");
    assert.ok(SKILL.split("\n").length < 80, "short enough to read into an agent's context");
    // package.json ships it.
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    assert.ok(manifest.files.includes("skills"));
  });

  it("A10: every example runs against the CLI, cursors carrying over between runs", async () => {
    const files: Record<string, string> = {
      "src/server.ts":
        "import { createServer } from 'node:http';\n// TODO: close gracefully\nexport const s = createServer();\n",
    };
    for (let i = 0; i < 30; i++)
      files[`src/m${i}.ts`] = Array.from({ length: i + 2 }, (_, j) => `// TODO ${j}`).join("\n");
    const project = await tree(files);
    vendor.handle((request, response) => {
      if (request.path === "/search") {
        sendJson(response, 200, {
          query: "q",
          results: [{ title: "Keep-alive", url: "https://example.org/k", content: "s" }],
        });
      } else {
        sendJson(response, 200, {
          results: [{ url: PAGE_STAND_IN, raw_content: "# stream\n\nStreams." }],
          failed_results: [],
        });
      }
    });
    const lines = examples();
    assert.ok(lines.length >= 5);
    let cursor: string | undefined;
    for (const line of lines) {
      const args = words(line)
        .slice(1)
        .map((word) => {
          if (word === "CURSOR") {
            assert.ok(cursor, `${line}: an earlier example gave a cursor`);
            return cursor;
          }
          return word.startsWith("https://") ? PAGE_STAND_IN : word;
        });
      const result = await run(args, project);
      assert.equal(result.code, 0, `${line}\n${result.stderr}`);
      if (args.includes("--text")) {
        assert.doesNotThrow(() => assert.ok(result.stdout.length > 0), line);
      } else {
        const json = JSON.parse(result.stdout) as { cursor?: string };
        cursor = json.cursor ?? cursor;
      }
    }
    assert.ok(cursor, "the summary example gave a cursor for the next run");
  });

  it("A10: the flags, exit codes and cursor lifetime it states are the CLI's", async () => {
    const project = await tree({ "a.txt": "needle\n" });
    const help: Record<string, string> = {};
    for (const command of ["grep", "search", "read", "inspect"])
      help[command] = (await run([command, "--help"], project)).stdout;
    for (const line of examples()) {
      const [, command, ...rest] = words(line);
      for (const flag of rest.filter((word) => word.startsWith("-"))) {
        assert.ok(help[command as string]?.includes(flag), `${command} --help lists ${flag}`);
      }
    }
    for (const flag of ["-F", "-i", "-C", "-g", "--paths"]) assert.ok(help.grep?.includes(flag), flag);
    assert.match(SKILL, new RegExp(`Cursors last ${SNAPSHOT_TTL_MS / 60_000} minutes`));

    const ok = await run(["grep", "needle"], project);
    assert.equal(ok.code, 0);
    const usage = await run(["grep", "needle", "--mode", "everything"], project);
    assert.equal(usage.code, 2);
    assert.equal(errorPayload(usage.stderr).error.code, "invalid_arguments");
    vendor.handle((_request, response) => sendJson(response, 500, { error: "down" }));
    const failed = await runProcess(["search", "anything"], project);
    assert.equal(failed.code, 1);
    assert.equal(errorPayload(failed.stderr).error.code, "all_providers_failed");
    assert.match(SKILL, /`0`: success/);
    assert.match(SKILL, /`1`: the tool failed/);
    assert.match(SKILL, /`2`: bad arguments/);
  });
});
