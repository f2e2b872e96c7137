/**
 * The README's promises, run as written: the first command a newcomer types and the SDK example,
 * each a process of its own; the usage section's commands through the executable's `runCli` in
 * this process (test/adapters/run-evident.ts), as a shell passes their words.
 */
import assert from "node:assert/strict";
import { exec as execCallback, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { evidentInProcess } from "../adapters/run-evident.js";
import { listenOnLoopback } from "../net/loopback.js";

const ROOT = resolve(import.meta.dirname, "../..");
const exec = promisify(execCallback);
const README = readFileSync(resolve(ROOT, "README.md"), "utf8");

const BIN = (
  JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> }
).bin.evident as string;

/**
 * A README command naming the installed `evident` (or the built file the first line runs), as the
 * built CLI of this clone: what `npm install -g` of the packed tarball puts on PATH is tested
 * from an installed prefix in test/docs/clients.test.ts.
 */
function asBuilt(command: string): string {
  const cli = `"${process.execPath}" "${resolve(ROOT, BIN)}"`;
  if (command.startsWith(`node ${BIN} `)) return `${cli} ${command.slice(`node ${BIN} `.length)}`;
  assert.ok(command.startsWith("evident "), command);
  return `${cli} ${command.slice("evident ".length)}`;
}

/**
 * The arguments a shell passes to the installed `evident` for a README command (its words: the
 * examples quote with double quotes alone).
 */
function evidentArgs(command: string): string[] {
  const words = [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? (m[2] as string));
  assert.equal(words[0], "evident", command);
  assert.ok(
    words.every((word) => !/["'\\$`]/.test(word)),
    `${command}: a word only a shell reads right`,
  );
  return words.slice(1);
}

function codeBlocks(language: string): string[] {
  return [...README.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, "g"))].map(
    (m) => m[1] ?? "",
  );
}

describe("README", () => {
  const [commands] = codeBlocks("sh");
  const lines = (commands ?? "").split("\n").filter((line) => line.trim() !== "");

  it("opens with the two commands: run the main job, run every test", () => {
    assert.equal(lines.length, 2);
    // Only what a clone with Node and git has: the build `npm install` makes, no registry name.
    assert.equal(
      (lines[0] ?? "").split("#")[0]?.trim().startsWith(`npm install && node ${BIN} search `),
      true,
    );
    assert.match(lines[1] ?? "", /^npm ci && npm test\b/);
    const ci = readFileSync(resolve(ROOT, ".ci/run"), "utf8");
    assert.match(ci, /^npm ci && npm test$/m, ".ci/run runs exactly the README's test command");
  });

  it("the first command's web search runs as written on the keyless default", async () => {
    // No network here: DuckDuckGo's documented base URL override points the keyless default at
    // a loopback server answering with a saved DuckDuckGo results page.
    const page = readFileSync(resolve(ROOT, "test/web/providers/fixtures/duckduckgo-results.html"), "utf8");
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=UTF-8" }).end(page);
    });
    const port = await listenOnLoopback(server);
    try {
      const command = (lines[0] ?? "")
        .replace(/#.*$/, "")
        .replace(/^npm install && /, "")
        .trim();
      const { stdout } = await exec(asBuilt(command), {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "",
          EVIDENT_DUCKDUCKGO_BASE_URL: `http://127.0.0.1:${port}`,
        },
      });
      const result = JSON.parse(stdout);
      assert.ok(result.results.duckduckgo.results.length > 0);
      assert.deepEqual(result.provenance.anonymous, ["duckduckgo"]);
    } finally {
      server.close();
    }
  });

  it("the grep example in the usage section runs", async () => {
    assert.ok(README.includes('`evident grep "createEvident" src`'));
    const run = await evidentInProcess(evidentArgs('evident grep "createEvident" src'), {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(JSON.parse(run.stdout).totalMatches >= 1);
  });

  it("the setup example works as written: with the key unset searches still answer, with it Tavily answers", async () => {
    const setup = /`(evident setup --provider [^`]+)`/.exec(README)?.[1];
    assert.ok(setup, "the README's setup example");
    const page = readFileSync(resolve(ROOT, "test/web/providers/fixtures/duckduckgo-results.html"), "utf8");
    const server = createServer((req, res) => {
      if (req.url?.startsWith("/search") && req.method === "POST") {
        const ok = req.headers.authorization === "Bearer tvly-dev-0123456789abcdef";
        res.writeHead(ok ? 200 : 401, { "content-type": "application/json" });
        res.end(
          JSON.stringify(ok ? { results: [{ title: "T", url: "https://example.com/t", content: "c" }] } : {}),
        );
      } else res.writeHead(200, { "content-type": "text/html; charset=UTF-8" }).end(page);
    });
    const port = await listenOnLoopback(server);
    const xdg = mkdtempSync(join(tmpdir(), "evident-readme-setup-"));
    try {
      const env = {
        PATH: process.env.PATH ?? "",
        HOME: xdg,
        XDG_CONFIG_HOME: xdg,
        EVIDENT_DUCKDUCKGO_BASE_URL: `http://127.0.0.1:${port}`,
        EVIDENT_TAVILY_BASE_URL: `http://127.0.0.1:${port}`,
      };
      const saved = await evidentInProcess(evidentArgs(setup), { cwd: xdg, env });
      assert.equal(saved.code, 0, saved.stderr);
      assert.match(saved.stdout, /TAVILY_API_KEY is not set/);
      assert.match(saved.stdout, /Until then web_search answers from duckduckgo/);
      const search = evidentArgs('evident search "node streams backpressure"');
      const keyless = JSON.parse((await evidentInProcess(search, { cwd: xdg, env })).stdout);
      assert.deepEqual(keyless.provenance.used, ["duckduckgo"]);
      assert.ok(keyless.results.duckduckgo.results.length > 0);
      assert.match(keyless.providerErrors.tavily, /TAVILY_API_KEY is not set/);
      const keyed = { ...env, TAVILY_API_KEY: "tvly-dev-0123456789abcdef" };
      const vendor = JSON.parse((await evidentInProcess(search, { cwd: xdg, env: keyed })).stdout);
      assert.deepEqual(vendor.provenance.used, ["tavily"]);
    } finally {
      server.close();
      rmSync(xdg, { recursive: true, force: true });
    }
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
    // The inspection prints the function with its line numbers.
    assert.match(run.stdout, /^\d+\texport function createEvident\(/m);
  });
});
