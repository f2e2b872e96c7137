/**
 * What the built CLI does when its answer cannot be delivered: a standard output that refuses the
 * bytes (a full device) or is closed (`>&-`) is a failure with a code, never an exit 0 with
 * nothing written; a reader that stops reading (as `| head` does) ends the command quietly; a
 * `>/dev/null` chosen on purpose is a success. Linux's /dev/full refuses every write with ENOSPC.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
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

/** A command of each kind that answers on stdout: a tool, help, a fixed text, an operator's, mcp's help. */
const ANSWERING: readonly (readonly string[])[] = [
  ["grep", "needle"],
  ["grep", "--help"],
  ["--version"],
  ["config", "path"],
  ["mcp", "--help"],
];
/** One tool answer and one fixed text: the rest share their way out (cli/main.ts). */
const SOME: readonly (readonly string[])[] = [["grep", "needle", "--text"], ["--version"]];

/**
 * Runs `evident <args>` in the fixture tree with the given standard output; `shell` runs it
 * through `sh -c` with that redirection (`>&-` closes descriptor 1 before Node starts).
 */
function run(
  args: readonly string[],
  stdout: "pipe" | number,
  onStart?: (child: ReturnType<typeof spawn>) => void,
  shell?: string,
) {
  return new Promise<Run>((done, fail) => {
    const command =
      shell === undefined
        ? [process.execPath, CLI, ...args]
        : ["sh", "-c", `exec "$@" ${shell}`, "sh", process.execPath, CLI, ...args];
    const child = spawn(command[0] as string, command.slice(1), {
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

  it("a closed standard output (>&-) exits 1 with internal_error saying so, for every answering command", async () => {
    assert.ok(existsSync("/proc/self/fdinfo"), "this test needs Linux's /proc");
    for (const args of ANSWERING) {
      const result = await run(args, "pipe", undefined, ">&-");
      assert.equal(result.code, 1, `${args.join(" ")}: ${result.stderr}`);
      const lines = result.stderr.trim().split("\n");
      assert.equal(lines.length, 1, result.stderr);
      const payload = JSON.parse(lines[0] ?? "") as { error: { code: string; message: string } };
      assert.equal(payload.error.code, "internal_error");
      assert.match(payload.error.message, /^Could not write the output: standard output is closed/);
    }
  });

  it("a tool error with a closed standard output is still its one error document, exit 1", async () => {
    const result = await run(["grep", "--cursor", "not-a-cursor"], "pipe", undefined, ">&-");
    assert.equal(result.code, 1, result.stderr);
    const lines = result.stderr.trim().split("\n");
    assert.equal(lines.length, 1, result.stderr);
    assert.equal((JSON.parse(lines[0] ?? "") as { error: { code: string } }).error.code, "cursor_malformed");
  });

  it("a caller that discards stdout and stderr alike (stdio: ignore) runs for the exit status: exit 0", async () => {
    for (const args of SOME) {
      const child = spawn(process.execPath, [CLI, ...args], {
        cwd: base,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: join(base, "home"),
          EVIDENT_CACHE_DIR: join(base, "cache"),
        },
        stdio: "ignore",
      });
      const [code] = (await once(child, "close")) as [number | null];
      assert.equal(code, 0, args.join(" "));
    }
  });

  it("output sent to /dev/null on purpose is a success, exit 0", async () => {
    for (const args of SOME) {
      const result = await run(args, "pipe", undefined, ">/dev/null");
      assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
      assert.equal(result.stderr, "");
    }
  });

  it("a reader that stops reading ends the command quietly, exit 0", async () => {
    // The read end closes before the CLI has written anything: its write gets EPIPE.
    for (const args of SOME) {
      const result = await run(args, "pipe", (child) => child.stdout?.destroy());
      assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
      assert.equal(result.stderr, "");
    }
  });
});
