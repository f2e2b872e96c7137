/**
 * The README's promises, run as written: the first command a newcomer types, and the SDK example.
 */
import assert from "node:assert/strict";
import { exec as execCallback, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";

const ROOT = resolve(import.meta.dirname, "../..");
const exec = promisify(execCallback);
const README = readFileSync(resolve(ROOT, "README.md"), "utf8");

/**
 * A README command with `npx evident` as the package's bin resolves it in a clone: the built CLI.
 * Not npx itself: in a clone npx installs the project into its own cache as a link and runs its
 * `prepare` (a full build into dist/), which rewrote dist/ under the other tests running beside
 * this one (a half-written module failed a CI run).
 */
function asBuilt(command: string): string {
  const bin = (
    JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> }
  ).bin.evident;
  assert.ok(bin !== undefined && command.startsWith("npx evident "), command);
  return `"${process.execPath}" "${resolve(ROOT, bin)}" ${command.slice("npx evident ".length)}`;
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
    assert.match(lines[0] ?? "", /^npm install && npx evident search /);
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
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    try {
      const { port } = server.address() as AddressInfo;
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
    assert.ok(README.includes('`npx evident grep "createEvident" src`'));
    const { stdout } = await exec(asBuilt('npx evident grep "createEvident" src'), { cwd: ROOT });
    assert.ok(JSON.parse(stdout).totalMatches >= 1);
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
