/**
 * Slow clients cannot lock others out: a body is read, within its size cap and time limit,
 * before a concurrency slot is taken; headers and idle keep-alive connections time out.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type RunningHttpServer, startHttpServer } from "../../src/adapters/mcp/http-server.js";
import { type HttpSettings, resolveHttpSettings } from "../../src/config/http.js";
import { HTTP_MIN_TOKEN_CHARS } from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";
import { createTestRegistry } from "../fixtures/test-tools.js";
import { headOf, legacyHeaders, RawSocket, raw } from "./http-raw.js";

const TOKEN = `${"t".repeat(HTTP_MIN_TOKEN_CHARS)}-secret`;
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
/** A guard against a test waiting forever on main's behaviour, far above what it needs. */
const GUARD = { timeout: 60_000 };

async function withServer(
  overrides: Partial<HttpSettings>,
  run: (server: RunningHttpServer) => Promise<void>,
): Promise<void> {
  const settings = {
    ...resolveHttpSettings({ EVIDENT_AUTH_TOKEN: TOKEN, EVIDENT_HTTP_PORT: "0" }),
    ...overrides,
  };
  const server = await startHttpServer({ registry: createTestRegistry(), logger: silentLogger, settings });
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

/** Headers of a POST promising `length` body bytes; `expect` asks for 100 Continue. */
function postHead(length: number, expect: boolean): string {
  const lines = [
    "POST /mcp HTTP/1.1",
    "Host: 127.0.0.1",
    ...Object.entries(legacyHeaders(TOKEN)).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${length}`,
    ...(expect ? ["Expect: 100-continue"] : []),
  ];
  return `${lines.join("\r\n")}\r\n\r\n`;
}

describe("HTTP slow clients", () => {
  it("defect 2: requests still sending their body hold no concurrency slot", GUARD, async () => {
    await withServer({ maxConcurrentRequests: 2, bodyReadTimeoutMs: 60_000 }, async (server) => {
      const slow = [0, 1, 2, 3].map(() => new RawSocket(server.port));
      try {
        for (const socket of slow) socket.write(postHead(100, true));
        // 100 Continue is written when the server hands the request to its handler.
        for (const socket of slow) await socket.until((text) => text.includes("100 Continue"));
        for (const socket of slow) socket.write("{");
        const legit = await raw(server.url, { method: "POST", headers: legacyHeaders(TOKEN), body: LIST });
        assert.equal(legit.status, 200, legit.body);
        assert.match(legit.body, /"name":"echo"/);
      } finally {
        for (const socket of slow) socket.destroy();
      }
    });
  });

  it(
    "defect 2: a body that does not arrive within the read limit is answered 408 and the connection closed",
    GUARD,
    async () => {
      await withServer({ bodyReadTimeoutMs: 200 }, async (server) => {
        const socket = new RawSocket(server.port);
        try {
          socket.write(`${postHead(100, false)}{`);
          const answer = await socket.untilClosed();
          const { status, headers } = headOf(answer);
          assert.equal(status, 408);
          assert.equal(headers.connection, "close");
          assert.match(answer, /"code":"deadline_exceeded"/);
        } finally {
          socket.destroy();
        }
      });
    },
  );

  it(
    "defect 2: a client that never finishes its headers is disconnected after the headers timeout",
    GUARD,
    async () => {
      await withServer({ headersTimeoutMs: 200 }, async (server) => {
        const socket = new RawSocket(server.port);
        try {
          socket.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
          const answer = await socket.untilClosed();
          assert.equal(headOf(answer).status, 408);
        } finally {
          socket.destroy();
        }
      });
    },
  );

  it("closes an idle kept-alive connection after the idle timeout", GUARD, async () => {
    await withServer({ keepAliveTimeoutMs: 100 }, async (server) => {
      const socket = new RawSocket(server.port);
      try {
        socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        const answer = await socket.untilClosed();
        assert.equal(headOf(answer).status, 200);
      } finally {
        socket.destroy();
      }
    });
  });

  it(
    "a request refused on its headers closes the connection instead of reading the body it did not want",
    GUARD,
    async () => {
      await withServer({}, async (server) => {
        const socket = new RawSocket(server.port);
        try {
          socket.write(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
          );
          const answer = await socket.untilClosed();
          assert.equal(headOf(answer).status, 401);
          assert.equal(headOf(answer).headers.connection, "close");
        } finally {
          socket.destroy();
        }
      });
    },
  );
});
