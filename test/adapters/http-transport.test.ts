/**
 * The HTTP transport against careless and hostile clients: connections beyond the bound, and
 * request methods no MCP client sends (found by the sixth adversarial pass, see
 * bench/hardening/RESULTS.md).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type RunningHttpServer, startHttpServer } from "../../src/adapters/mcp/http-server.js";
import { type HttpSettings, resolveHttpSettings } from "../../src/config/http.js";
import { HTTP_MIN_TOKEN_CHARS } from "../../src/core/limits.js";
import type { Logger } from "../../src/core/logger.js";
import { createTestRegistry } from "../fixtures/test-tools.js";
import { legacyHeaders, RawSocket, raw } from "./http-raw.js";

const TOKEN = `${"t".repeat(HTTP_MIN_TOKEN_CHARS)}-secret`;
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
/** A guard against a test waiting forever on main's behaviour, far above what it needs. */
const GUARD = { timeout: 60_000 };

interface Logged {
  readonly level: string;
  readonly message: string;
}

async function withServer(
  overrides: Partial<HttpSettings>,
  run: (server: RunningHttpServer, logged: Logged[]) => Promise<void>,
): Promise<void> {
  const settings = {
    ...resolveHttpSettings({ EVIDENT_AUTH_TOKEN: TOKEN, EVIDENT_HTTP_PORT: "0" }),
    ...overrides,
  };
  const logged: Logged[] = [];
  const record = (level: string) => (message: string) => logged.push({ level, message });
  const logger: Logger = {
    debug: record("debug"),
    info: record("info"),
    warn: record("warn"),
    error: record("error"),
  };
  const server = await startHttpServer({ registry: createTestRegistry(), logger, settings });
  try {
    await run(server, logged);
  } finally {
    await server.close();
  }
}

const HEALTH = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

/** A kept-alive connection the server has accepted and answered once. */
async function heldConnection(port: number): Promise<RawSocket> {
  const socket = new RawSocket(port);
  socket.write(HEALTH);
  await socket.until((text) => text.includes('"status":"ok"'));
  return socket;
}

describe("HTTP transport", () => {
  it(
    "holds at most maxConnections connections: a further one is closed unanswered, and serving goes on",
    GUARD,
    async () => {
      await withServer({ maxConnections: 2, keepAliveTimeoutMs: 60_000 }, async (server, logged) => {
        const held = [await heldConnection(server.port), await heldConnection(server.port)];
        const extra = new RawSocket(server.port);
        try {
          extra.write(HEALTH);
          // Closed, or answered (as a server without the bound does): whichever comes first.
          const received = await extra.until((text) => text.length > 0);
          assert.equal(received, "", "a connection beyond the bound gets no answer");
          assert.ok(
            logged.some((entry) => entry.level === "warn" && /connection limit/.test(entry.message)),
            "the operator is told",
          );
          // One held connection ends (the client closes, the server then closes its side):
          // the next connection is served.
          const [first] = held as [RawSocket, RawSocket];
          first.socket.end();
          await first.untilClosed();
          const legit = await raw(server.url, { method: "POST", headers: legacyHeaders(TOKEN), body: LIST });
          assert.equal(legit.status, 200, legit.body);
          assert.match(legit.body, /"name":"echo"/);
        } finally {
          extra.destroy();
          for (const socket of held) socket.destroy();
        }
      });
    },
  );

  it(
    "answers TRACE, PUT, HEAD and other methods on /mcp 405 with Allow: POST, logging no error",
    GUARD,
    async () => {
      await withServer({}, async (server, logged) => {
        for (const method of ["TRACE", "PUT", "PATCH", "HEAD", "PROPFIND"]) {
          const answer = await raw(server.url, { method, headers: legacyHeaders(TOKEN) });
          assert.equal(answer.status, 405, `${method}: ${answer.body}`);
          assert.equal(answer.headers.allow, "POST", method);
        }
        assert.deepEqual(
          logged.filter((entry) => entry.level === "error"),
          [],
        );
        const legit = await raw(server.url, { method: "POST", headers: legacyHeaders(TOKEN), body: LIST });
        assert.equal(legit.status, 200, legit.body);
      });
    },
  );
});
