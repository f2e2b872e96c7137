/**
 * A08: the built CLI and stdio server run under Node 22 and Bun >= 1.4 too, so no runtime-
 * specific API slips in. Node 22 is an npm package whose binary is unpacked once into
 * node_modules/.cache/evident-runtimes (the npm registry is the only network this needs); Bun is
 * an optional tool, the `bun` on PATH (`.ci/run` installs it), and its tests skip without it.
 */
import assert from "node:assert/strict";
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { WEB_READ_MEMORY_MIN_MB } from "../../src/core/limits.js";
import { missing, toolPath } from "../fixtures/optional-tools.js";
import { startLoopback } from "../net/loopback.js";
import { unpackMember } from "./tar-member.js";

const ROOT = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const CACHE = join(ROOT, "node_modules/.cache/evident-runtimes");
const CLI = join(ROOT, "dist/adapters/cli/main.js");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const NODE_PACKAGE = `node-${process.platform}-${process.arch}`;

const NODE_22 = join(CACHE, "node_modules", NODE_PACKAGE, "bin", "node");
const RUNTIMES: Record<string, { bin: () => string; skip: string | false }> = {
  "Node 22": { bin: () => NODE_22, skip: false },
  "Bun 1.4": { bin: () => toolPath("bun"), skip: missing("bun") },
};

/**
 * Node 22's binary from its npm package. Not `npm install`: that unpacks the whole package
 * (headers, docs, thousands of files), most of this file's CPU; `npm pack` fetches the tarball
 * (from npm's cache when it is there) and only bin/node is unpacked.
 */
async function ensureNode22(): Promise<void> {
  if (existsSync(NODE_22)) return;
  mkdirSync(CACHE, { recursive: true });
  const stage = mkdtempSync(join(CACHE, "pack-"));
  try {
    const packed = execFileSync(
      process.platform === "win32" ? "npm.cmd" : "npm",
      ["pack", "--json", "--prefer-offline", "--pack-destination", stage, `${NODE_PACKAGE}@22`],
      { cwd: stage, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], timeout: 600_000 },
    );
    const filename = (JSON.parse(packed) as Array<{ filename: string }>)[0]?.filename;
    assert.ok(filename, `npm pack named no tarball: ${packed}`);
    const partial = join(stage, "node");
    await unpackMember(join(stage, filename), "package/bin/node", partial);
    chmodSync(partial, 0o755);
    mkdirSync(dirname(NODE_22), { recursive: true });
    renameSync(partial, NODE_22);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

describe("A08: other runtimes run the built package", () => {
  before(async () => {
    assert.ok(existsSync(CLI), "run `npm run build` first (npm test does)");
    await ensureNode22();
  });

  for (const [name, runtime] of Object.entries(RUNTIMES)) {
    it(`${name}: the CLI answers --version and a usage error with exit 2`, { skip: runtime.skip }, () => {
      const version = spawnSync(runtime.bin(), [CLI, "--version"], { encoding: "utf8", timeout: 60_000 });
      assert.equal(version.status, 0, version.stderr);
      assert.equal(version.stdout.trim(), VERSION);
      const bad = spawnSync(runtime.bin(), [CLI, "frobnicate"], { encoding: "utf8", timeout: 60_000 });
      assert.equal(bad.status, 2);
      assert.equal(JSON.parse(bad.stderr).error.code, "invalid_arguments");
    });

    it(`${name}: G06: a grep cursor continues in the next CLI process (persistent snapshots)`, {
      skip: runtime.skip,
    }, () => {
      const cache = mkdtempSync(join(tmpdir(), "evident-runtime-cache-"));
      try {
        const env = { PATH: process.env.PATH ?? "", HOME: cache, EVIDENT_CACHE_DIR: join(cache, "c") };
        const run = (args: string[]) =>
          spawnSync(runtime.bin(), [CLI, "grep", ...args], {
            cwd: ROOT,
            env,
            encoding: "utf8",
            timeout: 60_000,
          });
        const first = run(["import", "src", "--mode", "summary"]);
        assert.equal(first.status, 0, first.stderr);
        const cursor = (JSON.parse(first.stdout) as { cursor: string }).cursor;
        const next = run(["--cursor", cursor, "--limit", "3"]);
        assert.equal(next.status, 0, next.stderr);
        assert.deepEqual(
          (JSON.parse(next.stdout) as { matches: Array<{ index: number }> }).matches.map((m) => m.index),
          [1, 2, 3],
        );
      } finally {
        rmSync(cache, { recursive: true, force: true });
      }
    });

    it(`${name}: the stdio server answers tools/list and a call`, { skip: runtime.skip }, async () => {
      const client = new Client({ name: "runtime-smoke", version: "1.0.0" });
      await client.connect(
        new StdioClientTransport({
          command: runtime.bin(),
          args: [CLI, "mcp", "--structured"],
          cwd: ROOT,
          stderr: "pipe",
        }),
      );
      try {
        const { tools } = await client.listTools();
        assert.deepEqual(
          tools.map((t) => t.name),
          ["web_search", "web_read", "code_search"],
        );
        const result = await client.callTool({
          name: "code_search",
          arguments: { pattern: "createEvident", path: "src", literal: true },
        });
        assert.equal(result.isError ?? false, false);
        assert.ok((result.structuredContent as { totalMatches: number }).totalMatches >= 1);
        const bad = await client.callTool({ name: "web_search", arguments: { query: "" } });
        assert.equal(bad.isError, true);
      } finally {
        await client.close();
      }
    });

    it(`${name}: web_read reads a PDF on a thread of its own, at the smallest memory allowance`, {
      skip: runtime.skip,
    }, async () => {
      // The reading thread is the one part of web_read that leans on runtime internals (worker
      // threads, their heap cap, their stdout), and a thread's start costs more on some runtimes.
      const site = await startLoopback((_req, res) => {
        res.setHeader("content-type", "application/pdf");
        res.end(readFileSync(join(ROOT, "test/web/direct/fixtures/report.pdf")));
      });
      const home = mkdtempSync(join(tmpdir(), "evident-runtime-read-"));
      try {
        // Not spawnSync: the page is served by this process, which must keep answering.
        const read = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
          const child = execFile(
            runtime.bin(),
            [CLI, "read", `${site.url}/report.pdf`],
            {
              env: {
                PATH: process.env.PATH ?? "",
                HOME: home,
                EVIDENT_CACHE_DIR: join(home, "c"),
                EVIDENT_ALLOW_PRIVATE_NETWORK: "true",
                EVIDENT_WEB_READ_MEMORY_MB: String(WEB_READ_MEMORY_MIN_MB),
              },
              timeout: 60_000,
            },
            (_error, stdout, stderr) => done({ code: child.exitCode, stdout, stderr }),
          );
        });
        assert.equal(read.code, 0, read.stderr);
        const envelope = JSON.parse(read.stdout) as { title: string; content: Array<{ text: string }> };
        assert.equal(envelope.title, "Quarterly report");
        assert.match(envelope.content[0]?.text ?? "", /^--- page 1 of 2 ---\n\nQuarterly report/);
      } finally {
        await site.close();
        rmSync(home, { recursive: true, force: true });
      }
    });
  }
});
