/**
 * No line a client sends over stdio ends the server or goes unanswered: a message over the size
 * limit, a line that is not JSON, JSON that is no JSON-RPC message and a batch each get a
 * JSON-RPC error, and the next request is served as usual.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { describe, it } from "node:test";
import { STDIO_MAX_MESSAGE_BYTES } from "../../src/core/limits.js";
import { TEST_CLI } from "../fixtures/spawned.js";

interface Message {
  id?: unknown;
  result?: { content?: Array<{ text?: string }> };
  error?: { code: number; message: string };
}

function startServer(env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [TEST_CLI, "mcp"], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  const received: Message[] = [];
  let wake: () => void = () => {};
  createInterface({ input: child.stdout }).on("line", (line) => {
    received.push(JSON.parse(line));
    wake();
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  /** Resolves with the `count`-th message received (1-based) once it is there. */
  const nth = async (count: number): Promise<Message> => {
    while (received.length < count) await new Promise<void>((resolve) => (wake = resolve));
    return received[count - 1] as Message;
  };
  const send = (text: string) => child.stdin.write(`${text}\n`);
  return { child, received, nth, send, exited, stderr: () => stderr };
}

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});
const echo = (id: number, text: string) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { text } } });

describe("MCP stdio framing", () => {
  it("defect 4: a message over the size limit is answered with an error and the server keeps serving", async () => {
    const server = startServer();
    server.send(initialize);
    assert.equal((await server.nth(1)).id, 1);
    server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    // One line longer than the limit, written in pieces as a pipe delivers it.
    server.send(echo(2, "x".repeat(STDIO_MAX_MESSAGE_BYTES + 1024)));
    server.send(echo(3, "after"));
    const tooLarge = await server.nth(2);
    assert.equal(tooLarge.id, null);
    assert.equal(tooLarge.error?.code, -32600);
    assert.match(tooLarge.error?.message ?? "", new RegExp(`exceeds ${STDIO_MAX_MESSAGE_BYTES} bytes`));
    const next = await server.nth(3);
    assert.equal(next.id, 3);
    assert.equal(next.result?.content?.[0]?.text, "after");
    server.child.stdin.end();
    assert.equal(await server.exited, 0);
    assert.match(server.stderr(), /over the size limit/);
  });

  it("defect 4: invalid JSON gets -32700, a non-JSON-RPC object and a batch -32600, and serving goes on", async () => {
    const server = startServer();
    server.send(initialize);
    await server.nth(1);
    server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    server.send("{not json");
    server.send(JSON.stringify({ id: 9, hello: "world" }));
    server.send(JSON.stringify([JSON.parse(echo(10, "a")), JSON.parse(echo(11, "b"))]));
    server.send("");
    server.send(echo(4, "still here"));
    const parse = await server.nth(2);
    assert.deepEqual([parse.id, parse.error?.code], [null, -32700]);
    const invalid = await server.nth(3);
    assert.deepEqual([invalid.id, invalid.error?.code], [9, -32600]);
    const batch = await server.nth(4);
    assert.deepEqual([batch.id, batch.error?.code], [null, -32600]);
    assert.match(batch.error?.message ?? "", /batch/i);
    const next = await server.nth(5);
    assert.equal(next.id, 4);
    assert.equal(next.result?.content?.[0]?.text, "still here");
    assert.equal(server.received.length, 5, "the blank line got no answer");
    server.child.stdin.end();
    assert.equal(await server.exited, 0);
  });

  it("a byte-order mark before a message (as some Windows pipes write), CRLF endings and a message split into single bytes are read as the message", async () => {
    const server = startServer();
    try {
      server.child.stdin.write(`\uFEFF${initialize}\r\n`);
      const first = await server.nth(1);
      assert.equal(first.id, 1, JSON.stringify(first));
      assert.equal(first.error, undefined);
      server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
      for (const byte of Buffer.from(`\uFEFF${echo(2, "é, split")}\r\n`))
        server.child.stdin.write(Buffer.of(byte));
      const second = await server.nth(2);
      assert.equal(second.id, 2, JSON.stringify(second));
      assert.equal(second.result?.content?.[0]?.text, "é, split");
    } finally {
      server.child.stdin.end();
    }
    assert.equal(await server.exited, 0);
  });

  it("a client that stops reading the answers while it writes requests is not read further until it reads again, and loses no answer", async () => {
    const { child } = startServer({ EVIDENT_LOG_LEVEL: "debug" });
    const count = 20_000;
    const lines = [initialize, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })];
    for (let id = 2; id < count + 2; id++)
      lines.push(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" }));
    // stdout is not read: the answers back up in the pipe, then in the server.
    child.stdout.pause();
    const paused = new Promise<string>((resolve) => {
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/input paused/.test(stderr)) resolve("paused");
      });
    });
    const consumed = new Promise<string>((resolve) =>
      child.stdin.write(`${lines.join("\n")}\n`, () => resolve("consumed")),
    );
    try {
      // Without the bound, the server reads every request and holds every answer (the write
      // completes); with it, reading stops while the answers are not read.
      assert.equal(await Promise.race([paused, consumed]), "paused");
      let answered = 0;
      const answers = createInterface({ input: child.stdout }).on("line", () => {
        answered++;
      });
      const allRead = new Promise((resolve) => answers.once("close", resolve));
      child.stdout.resume();
      assert.equal(await consumed, "consumed");
      child.stdin.end();
      assert.equal(await new Promise((resolve) => child.once("exit", resolve)), 0);
      await allRead;
      assert.equal(answered, count + 1, "every request answered, initialize included");
    } finally {
      child.kill();
    }
  });
});
