/**
 * What the built CLI does when its answer cannot be delivered: a standard output that refuses the
 * bytes (a full device) is a failure with a code, never an exit 0 with nothing written; a reader
 * that stops reading (as `| head` does) ends the command quietly. Linux's /dev/full refuses every
 * write with ENOSPC.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";

const ROOT = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const CLI = resolve(ROOT, "dist/adapters/cli/main.js");

let base: string;

interface Run {
  readonly code: number | null;
  readonly stderr: string;
}

/** Runs `evident <args>` in the fixture tree with the given standard output. */
function run(
  args: readonly string[],
  stdout: "pipe" | number,
  onStart?: (child: ReturnType<typeof spawn>) => void,
) {
  return new Promise<Run>((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: base,
      // HOME apart from the project: the home directory itself is never taken as one.
      env: { PATH: process.env.PATH ?? "", HOME: join(base, "home"), EVIDENT_CACHE_DIR: join(base, "cache") },
      stdio: ["ignore", stdout, "pipe"],
    });
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    onStart?.(child);
    child.once("error", fail);
    child.once("close", (code) => done({ code, stderr }));
  });
}

describe("the CLI's answer and its standard output", () => {
  before(async () => {
    assert.ok(existsSync(CLI), "run `npm run build` first (npm test does)");
    base = await mkdtemp(join(tmpdir(), "evident-cli-output-"));
    // Enough matching lines that the answer is several pipe writes' worth of text.
    const lines = Array.from({ length: 400 }, (_, i) => `const needle${i} = "needle ${"x".repeat(60)}";`);
    await writeFile(join(base, "a.ts"), `${lines.join("\n")}\n`);
  });

  after(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it("an answer the output refuses (ENOSPC) exits 1 with internal_error saying why", async () => {
    assert.ok(existsSync("/dev/full"), "this test needs Linux's /dev/full");
    for (const args of [["grep", "needle"], ["grep", "needle", "--text"], ["--version"]]) {
      const full = openSync("/dev/full", "w");
      try {
        const result = await run(args, full);
        assert.equal(result.code, 1, `${args.join(" ")}: ${result.stderr}`);
        const payload = JSON.parse(result.stderr.trim().split("\n").at(-1) ?? "") as {
          error: { code: string; message: string };
        };
        assert.equal(payload.error.code, "internal_error");
        assert.match(payload.error.message, /Could not write the output \(ENOSPC\)/);
      } finally {
        closeSync(full);
      }
    }
  });

  it("a reader that stops reading ends the command quietly, exit 0", async () => {
    // The read end closes before the CLI has written anything: its write gets EPIPE.
    const result = await run(["grep", "needle", "--text"], "pipe", (child) => child.stdout?.destroy());
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, "");
  });
});
