/**
 * Graceful shutdown of the HTTP server: nothing new is served once it begins (kept-alive
 * connections included), in-flight calls finish within the grace period, and those still
 * running at its end answer `cancelled` instead of being reset.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, it } from "node:test";
import { z } from "zod";
import { startHttpServer } from "../../src/adapters/mcp/http-server.js";
import { resolveHttpSettings } from "../../src/config/http.js";
import { HTTP_MIN_TOKEN_CHARS } from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";
import { success } from "../../src/core/result.js";
import { defineTool } from "../../src/tools/tool.js";
import { TEST_CLI } from "../fixtures/spawned.js";
import { createTestRegistry, Gate } from "../fixtures/test-tools.js";
import { startTestServer } from "../helpers/http-server.js";
import { connectHttp, textOf } from "../helpers/mcp-client.js";
import { headOf, legacyHeaders, RawSocket, raw, toolCall } from "./http-raw.js";

const TOKEN = `${"t".repeat(HTTP_MIN_TOKEN_CHARS)}-secret`;

const connect = (url: string) => connectHttp(url, { name: "evident-test", token: TOKEN });

/** The test registry plus `hold_more`: reports progress, then waits behind a gate of its own. */
function registryWithTwoGates(gate: Gate, more: Gate) {
  return createTestRegistry(gate).register(
    defineTool({
      name: "hold_more",
      title: "Hold more",
      description: "Waits until the test opens its second gate.",
      inputSchema: z.strictObject({}),
      outputSchema: z.object({}),
      annotations: { readOnlyHint: true, openWorldHint: false },
      handler: async (_input, context) => {
        context.progress({ progress: 0, message: "waiting" });
        await more.wait(context.signal);
        return success("released more", {});
      },
    }),
  );
}

function request(method: string, path: string, body = ""): string {
  const head = [
    `${method} ${path} HTTP/1.1`,
    "Host: 127.0.0.1",
    ...Object.entries(legacyHeaders(TOKEN)).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  return `${head.join("\r\n")}\r\n\r\n${body}`;
}

describe("HTTP graceful shutdown", () => {
  it("stops accepting, lets the in-flight call finish, then closes", async () => {
    const gate = new Gate();
    const server = await startTestServer(TOKEN, createTestRegistry(gate));
    const client = await connect(server.url);
    const held = client.callTool({ name: "hold", arguments: {} });
    await gate.untilWaiting(1);
    const closing = server.close();
    await assert.rejects(
      raw(server.url.replace("/mcp", "/healthz")),
      /ECONNREFUSED|ECONNRESET|socket hang up/,
    );
    gate.open();
    assert.equal(textOf(await held), "released");
    await closing;
    await client.close().catch(() => {});
  });

  it("defect 3: a request on a connection kept alive from before shutdown gets 503 and Connection: close", async () => {
    const gate = new Gate();
    const more = new Gate();
    const server = await startTestServer(TOKEN, registryWithTwoGates(gate, more));
    const socket = new RawSocket(server.port);
    try {
      socket.write(request("GET", "/healthz"));
      assert.equal(headOf(await socket.until((text) => text.includes("}"))).status, 200);
      socket.clear();
      // Another call keeps the server draining while the kept-alive connection sends again.
      const other = raw(server.url, {
        method: "POST",
        headers: legacyHeaders(TOKEN),
        body: toolCall(2, "hold_more"),
      });
      await more.untilWaiting(1);
      const closing = server.close();
      socket.write(request("GET", "/healthz"));
      const answer = await socket.until((text) => text.includes("\r\n\r\n") && text.includes("}"));
      const { status, headers } = headOf(answer);
      assert.equal(status, 503, answer);
      assert.equal(headers.connection, "close");
      assert.equal(headers["retry-after"], "1");
      await socket.untilClosed();
      more.open();
      assert.match((await other).body, /released more/);
      await closing;
    } finally {
      socket.destroy();
      gate.open();
      more.open();
    }
  });

  it("defect 3: a request arriving on an idle kept-alive connection after the last call ended is answered 503, not reset", async () => {
    const server = await startTestServer(TOKEN);
    const socket = new RawSocket(server.port);
    try {
      socket.write(request("GET", "/healthz"));
      assert.equal(headOf(await socket.until((text) => text.includes("}"))).status, 200);
      socket.clear();
      // Nothing is in flight: shutdown has nothing to wait for but this connection.
      const closing = server.close();
      socket.write(request("GET", "/healthz"));
      const answer = await socket.untilClosed();
      assert.equal(headOf(answer).status, 503, answer);
      assert.equal(headOf(answer).headers.connection, "close");
      await closing;
    } finally {
      socket.destroy();
    }
  });

  it("defect 3: a request a client sends on its kept-alive connection well after shutdown began is answered 503, not reset", async () => {
    // A long quiet period: the server waits for the client rather than the test for the server.
    const server = await startHttpServer({
      registry: createTestRegistry(),
      logger: silentLogger,
      settings: {
        ...resolveHttpSettings({ EVIDENT_AUTH_TOKEN: TOKEN, EVIDENT_HTTP_PORT: "0" }),
        shutdownQuietMs: 60_000,
      },
    });
    const socket = new RawSocket(server.port);
    try {
      socket.write(request("GET", "/healthz"));
      assert.equal(headOf(await socket.until((text) => text.includes("}"))).status, 200);
      socket.clear();
      const closing = server.close();
      // As a busy client does: the next request goes out some turns of the event loop later,
      // after the server has looked for requests already on their way.
      for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
      socket.write(request("GET", "/healthz"));
      const answer = await socket.untilClosed();
      assert.equal(headOf(answer).status, 503, answer);
      assert.equal(headOf(answer).headers.connection, "close");
      // Its connection gone, shutdown ends without waiting out the quiet period.
      await closing;
    } finally {
      socket.destroy();
    }
  });

  it("defect 3: a call in flight when shutdown begins is answered, and its connection told to close", async () => {
    const gate = new Gate();
    const server = await startTestServer(TOKEN, createTestRegistry(gate));
    const socket = new RawSocket(server.port);
    try {
      socket.write(request("POST", "/mcp", toolCall(1, "hold")));
      await gate.untilWaiting(1);
      const closing = server.close();
      gate.open();
      const answer = await socket.untilClosed();
      assert.equal(headOf(answer).status, 200);
      assert.equal(headOf(answer).headers.connection, "close");
      assert.match(answer, /"id":1/);
      assert.match(answer, /released/);
      await closing;
    } finally {
      socket.destroy();
      gate.open();
    }
  });

  it("defect 3: after an answer that was already streaming, the next request on its connection gets 503", async () => {
    const gate = new Gate();
    const more = new Gate();
    const server = await startTestServer(TOKEN, registryWithTwoGates(gate, more));
    const socket = new RawSocket(server.port);
    try {
      // hold_more reports progress first: its answer (kept alive) starts before shutdown.
      const call = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "hold_more", arguments: {}, _meta: { progressToken: "p" } },
      });
      socket.write(request("POST", "/mcp", call));
      await socket.until((text) => text.includes("notifications/progress"));
      // Another call keeps the server draining while the kept-alive connection sends again.
      const other = raw(server.url, {
        method: "POST",
        headers: legacyHeaders(TOKEN),
        body: toolCall(2, "hold"),
      });
      await gate.untilWaiting(1);
      const closing = server.close();
      more.open();
      const first = await socket.until((text) => text.includes('"id":1'));
      assert.notEqual(headOf(first).headers.connection, "close");
      socket.clear();
      socket.write(request("GET", "/healthz"));
      const second = await socket.until((text) => text.includes("\r\n\r\n") && text.includes("}"));
      assert.equal(headOf(second).status, 503, second);
      assert.equal(headOf(second).headers.connection, "close");
      gate.open();
      assert.match((await other).body, /released/);
      await closing;
    } finally {
      socket.destroy();
      gate.open();
      more.open();
    }
  });

  it("defect 3: calls still running when the grace period ends answer `cancelled`, not a reset", async () => {
    const gate = new Gate();
    const server = await startHttpServer({
      registry: createTestRegistry(gate),
      logger: silentLogger,
      settings: resolveHttpSettings({
        EVIDENT_AUTH_TOKEN: TOKEN,
        EVIDENT_HTTP_PORT: "0",
        EVIDENT_HTTP_SHUTDOWN_GRACE_MS: "50",
      }),
    });
    const clients = await Promise.all([0, 1, 2].map(() => connect(server.url)));
    const held = clients.map((client) => client.callTool({ name: "hold", arguments: {} }));
    await gate.untilWaiting(3);
    await server.close();
    for (const result of await Promise.all(held)) {
      assert.equal(result.isError, true);
      const { error } = JSON.parse(textOf(result));
      assert.equal(error.code, "cancelled");
      assert.match(error.message, /shutting down/);
    }
    assert.equal(gate.cancelled, 3);
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
  });

  it("SIGTERM stops `evident mcp --transport http` with exit 0", async () => {
    const child = spawn(process.execPath, [TEST_CLI, "mcp", "--transport", "http"], {
      env: { ...process.env, EVIDENT_AUTH_TOKEN: TOKEN, EVIDENT_HTTP_PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let err = "";
      child.stderr.on("data", (chunk: Buffer) => {
        err += chunk.toString();
        const match = /listening on (\S+)/.exec(err);
        if (match?.[1]) resolve(match[1]);
      });
      child.once("exit", () => reject(new Error(`exited early: ${err}`)));
    });
    const health = await raw(url.replace("/mcp", "/healthz"));
    assert.equal(health.status, 200);
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    assert.equal(await exited, 0);
    await assert.rejects(raw(url.replace("/mcp", "/healthz")));
  });
});
