/**
 * A client that goes away mid-search leaves nothing behind: the stdio server aborts the call,
 * its ripgrep child is reaped, and the server exits. A named pipe holds ripgrep in its read for
 * as long as the test wants, so nothing here waits on a timer.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { describe, it } from "node:test";
import { gatedRipgrep } from "../code/helpers.js";
import { EVIDENT_CLI as CLI } from "../helpers/built-cli.js";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function childrenOf(pid: number | undefined): number[] {
  try {
    return execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when there is none
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

/** Settles once the server has answered the request with this id. */
function answerTo(lines: Interface, id: number): Promise<void> {
  return new Promise((done) => {
    lines.on("line", (line) => {
      if (JSON.parse(line).id === id) done();
    });
  });
}

function initialize(server: { readonly stdin: Writable; readonly stdout: Readable }) {
  const lines = createInterface({ input: server.stdout });
  const send = (message: unknown) => server.stdin.write(`${JSON.stringify(message)}\n`);
  const initialized = answerTo(lines, 1);
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return { lines, send, initialized };
}

describe("`evident mcp` at rest", () => {
  it("runs no process of its own besides the server: no helper is started with it", async () => {
    const root = mkdtempSync(join(tmpdir(), "evident-at-rest-"));
    try {
      const server = spawn(process.execPath, [CLI, "mcp"], { cwd: root, stdio: ["pipe", "pipe", "ignore"] });
      const exited = new Promise<number | null>((done) => server.once("exit", (code) => done(code)));
      const { initialized } = initialize(server);
      await initialized;
      assert.deepEqual(childrenOf(server.pid), [], "nothing runs under a server that has searched nothing");
      server.stdin.end();
      assert.equal(await exited, 0);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("stdio client disconnect", () => {
  it("G11: closing stdin mid-search reaps ripgrep and ends the server", async () => {
    const root = mkdtempSync(join(tmpdir(), "evident-disconnect-"));
    const bin = mkdtempSync(join(tmpdir(), "evident-gate-"));
    try {
      writeFileSync(join(root, "plain.txt"), "needle\n");
      const rg = await gatedRipgrep(bin);
      const server = spawn(process.execPath, [CLI, "mcp"], {
        cwd: root,
        stdio: ["pipe", "pipe", "ignore"],
        env: { ...process.env, EVIDENT_RG_PATH: rg.path },
      });
      const exited = new Promise<number | null>((done) => server.once("exit", (code) => done(code)));
      const { lines, send } = initialize(server);
      const progressed = new Promise<void>((done) => {
        lines.on("line", (line) => {
          if (JSON.parse(line).method === "notifications/progress") done();
        });
      });
      send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: {
          name: "code_search",
          arguments: { pattern: "needle", path: "plain.txt", mode: "matches" },
          _meta: { progressToken: 1 },
        },
      });
      // ripgrep waits at the gate; progress starts once the search has run for a second.
      const gate = await rg.waiting();
      await progressed;
      const processes = childrenOf(server.pid);
      assert.ok(
        processes.some((pid) => commandOf(pid).includes("rg")),
        "ripgrep runs under the server",
      );
      server.stdin.end();
      assert.equal(await exited, 0);
      for (const pid of processes) assert.equal(alive(pid), false, `process ${pid} was left running`);
      await gate.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it("G11: Ctrl-C on `evident grep` mid-search reaps ripgrep and reports cancelled", async () => {
    const root = mkdtempSync(join(tmpdir(), "evident-sigint-"));
    const bin = mkdtempSync(join(tmpdir(), "evident-gate-"));
    try {
      writeFileSync(join(root, "plain.txt"), "needle\n");
      const rg = await gatedRipgrep(bin);
      const cli = spawn(process.execPath, [CLI, "grep", "needle", "plain.txt", "--mode", "matches"], {
        cwd: root,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, EVIDENT_CACHE_DIR: join(root, ".cache"), EVIDENT_RG_PATH: rg.path },
      });
      let stderr = "";
      cli.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const exited = new Promise<number | null>((done) => cli.once("exit", (code) => done(code)));
      const gate = await rg.waiting();
      const children = childrenOf(cli.pid);
      assert.ok(children.length > 0, "ripgrep runs under the CLI");
      cli.kill("SIGINT");
      assert.equal(await exited, 1);
      assert.equal(JSON.parse(stderr).error.code, "cancelled");
      for (const pid of children) assert.equal(alive(pid), false, `child ${pid} was left running`);
      await gate.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
