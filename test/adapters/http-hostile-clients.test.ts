/**
 * Issue 31, HTTP: the concurrency bound counts each call of a JSON-RPC batch; one client address
 * cannot hold every connection (nor /healthz); the Host header is parsed strictly; a wrong
 * Authorization header names its cause and never the token.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { describe, it } from "node:test";
import { ClientConnections, clientKey } from "../../src/adapters/mcp/http-clients.js";
import { createHttpHandler } from "../../src/adapters/mcp/http-handler.js";
import { type RunningHttpServer, startHttpServer } from "../../src/adapters/mcp/http-server.js";
import { type HttpSettings, resolveHttpSettings } from "../../src/config/http.js";
import { EvidentError } from "../../src/core/errors.js";
import { HTTP_MAX_CONNECTIONS_PER_CLIENT, HTTP_MIN_TOKEN_CHARS } from "../../src/core/limits.js";
import { type Logger, silentLogger } from "../../src/core/logger.js";
import { createTestRegistry, Gate } from "../fixtures/test-tools.js";
import { headOf, JSON_HEADERS, legacyHeaders, messagesOf, openCall, RawSocket, raw } from "./http-raw.js";

const TOKEN = `${"t".repeat(HTTP_MIN_TOKEN_CHARS)}-secret`;
/** A guard against a test waiting forever on main's behaviour, far above what it needs. */
const GUARD = { timeout: 60_000 };

async function withServer(
  overrides: Partial<HttpSettings>,
  run: (server: RunningHttpServer, gate: Gate) => Promise<void>,
  logger: Logger = silentLogger,
): Promise<void> {
  const settings = {
    ...resolveHttpSettings({ EVIDENT_AUTH_TOKEN: TOKEN, EVIDENT_HTTP_PORT: "0" }),
    ...overrides,
  };
  const gate = new Gate();
  const server = await startHttpServer({ registry: createTestRegistry(gate), logger, settings });
  try {
    await run(server, gate);
  } finally {
    gate.open();
    await server.close();
  }
}

const hold = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "hold", arguments: {} },
});
const batchOf = (count: number, first = 1) =>
  JSON.stringify(Array.from({ length: count }, (_, i) => hold(first + i)));

/** Headers of a batch: 2025-03-26, the revision with batches, or no protocol header at all. */
function batchHeaders(version: "2025-03-26" | "none"): Record<string, string> {
  const headers = { ...JSON_HEADERS, authorization: `Bearer ${TOKEN}` };
  return version === "none" ? headers : { ...headers, "mcp-protocol-version": version };
}

describe("issue 31 section 5: a batch's calls count against EVIDENT_HTTP_MAX_CONCURRENT", () => {
  for (const version of ["2025-03-26", "none"] as const) {
    it(`a batch of the bound takes every slot (protocol header: ${version})`, GUARD, async () => {
      await withServer({ maxConcurrentRequests: 4 }, async (server, gate) => {
        const batch = openCall(server.url, batchHeaders(version), batchOf(4));
        await gate.untilWaiting(4);
        // The batch holds all four slots: one more call, alone or in a batch, is 503.
        for (const body of [JSON.stringify(hold(10)), batchOf(2, 20)]) {
          // Read as it streams: admitted (as on main), it would hold until the gate opens.
          const refused = openCall(server.url, batchHeaders(version), body);
          assert.equal(await refused.started, 503);
          assert.match(await refused.ended, /"code":"overloaded"/);
        }
        assert.equal(gate.arrived, 4);
        gate.open();
        const answers = messagesOf(await batch.ended);
        assert.deepEqual(answers.map((answer) => answer.id).sort(), [1, 2, 3, 4]);
        // The slots are given back when the batch's answer has been sent.
        const again = await raw(server.url, {
          method: "POST",
          headers: batchHeaders(version),
          body: batchOf(4, 30),
        });
        assert.equal(again.status, 200, again.body);
        assert.equal(messagesOf(again.body).length, 4);
      });
    });

    it(
      `a batch larger than the bound is refused whole, no call run (protocol header: ${version})`,
      GUARD,
      async () => {
        await withServer({ maxConcurrentRequests: 4 }, async (server, gate) => {
          const call = openCall(server.url, batchHeaders(version), batchOf(50));
          assert.equal(await call.started, 400);
          const [answer] = messagesOf(await call.ended);
          assert.equal(answer?.id, null);
          assert.equal(answer?.error?.code, -32600);
          assert.match(JSON.stringify(answer), /batch of 50 requests exceeds the 4/);
          assert.equal(gate.arrived, 0);
          // Notifications take no call: a batch of the bound's calls plus notices is served.
          const notices = Array.from({ length: 6 }, () => ({
            jsonrpc: "2.0",
            method: "notifications/initialized",
          }));
          const mixed = JSON.stringify([...JSON.parse(batchOf(4)), ...notices]);
          gate.open();
          const served = await raw(server.url, {
            method: "POST",
            headers: batchHeaders(version),
            body: mixed,
          });
          assert.equal(served.status, 200, served.body);
          assert.equal(messagesOf(served.body).length, 4);
        });
      },
    );
  }
});

/** A raw socket from `localAddress` (any of 127/8 reaches a loopback server), once connected. */
async function socketFrom(port: number, localAddress: string): Promise<RawSocket> {
  const socket = new RawSocket(port, "127.0.0.1", localAddress);
  await once(socket.socket, "connect");
  return socket;
}

describe("issue 31 section 6: one client address holds at most EVIDENT_HTTP_MAX_CONNECTIONS_PER_CLIENT", () => {
  it(
    "while one address holds its maximum of half-sent heads, its next connection is refused and /healthz answers others",
    GUARD,
    async () => {
      const warnings: string[] = [];
      const logger: Logger = { ...silentLogger, warn: (message) => warnings.push(message) };
      await withServer(
        { maxConnectionsPerClient: 4, headersTimeoutMs: 30_000 },
        async (server) => {
          const held: RawSocket[] = [];
          try {
            for (let i = 0; i < 4; i += 1) {
              const socket = await socketFrom(server.port, "127.0.0.2");
              socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
              held.push(socket);
            }
            // The fifth connection of that address: answered 503 and closed before it sends a byte.
            const fifth = await socketFrom(server.port, "127.0.0.2");
            const refused = await fifth.untilClosed();
            assert.equal(headOf(refused).status, 503, refused);
            assert.equal(headOf(refused).headers.connection, "close");
            assert.equal(headOf(refused).headers["retry-after"], "1");
            assert.match(refused, /"code":"overloaded"/);
            assert.deepEqual(warnings, [
              "per-client connection limit reached; closing that client's new connections",
            ]);
            // Another address is served meanwhile.
            const health = await raw(`http://127.0.0.1:${server.port}/healthz`);
            assert.equal(health.status, 200, health.body);
            // The held connections were not touched: each still finishes its request.
            for (const socket of held) {
              socket.write("1\r\nConnection: close\r\n\r\n");
              assert.equal(headOf(await socket.untilClosed()).status, 200);
            }
            // Their closes give the address its slots back.
            let accepted: string | undefined;
            for (let attempt = 0; attempt < 100 && accepted === undefined; attempt += 1) {
              const socket = await socketFrom(server.port, "127.0.0.2");
              socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
              const answer = await socket.untilClosed();
              if (headOf(answer).status === 200) accepted = answer;
            }
            assert.ok(accepted, "the address never got a connection back");
          } finally {
            for (const socket of held) socket.destroy();
          }
        },
        logger,
      );
    },
  );

  it("keys clients by address: IPv4, IPv4-mapped IPv6 alike, and IPv6 by its /64", () => {
    assert.equal(clientKey("203.0.113.7"), "203.0.113.7");
    assert.equal(clientKey("::ffff:203.0.113.7"), "203.0.113.7");
    assert.equal(clientKey("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
    assert.equal(clientKey("2001:0DB8:0001:0002:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64");
    assert.equal(clientKey("2001:db8::1"), "2001:db8:0:0::/64");
    assert.equal(clientKey("::1"), "0:0:0:0::/64");
    assert.equal(clientKey("fe80::1%eth0"), "fe80:0:0:0::/64");
    assert.equal(clientKey("64:ff9b::192.0.2.1"), "64:ff9b:0:0::/64");
    assert.equal(clientKey(undefined), undefined);
  });

  it("reads EVIDENT_HTTP_MAX_CONNECTIONS_PER_CLIENT as a positive integer, 64 unset", () => {
    const env = { EVIDENT_AUTH_TOKEN: TOKEN };
    assert.equal(resolveHttpSettings(env).maxConnectionsPerClient, HTTP_MAX_CONNECTIONS_PER_CLIENT);
    assert.equal(HTTP_MAX_CONNECTIONS_PER_CLIENT, 64);
    assert.equal(
      resolveHttpSettings({ ...env, EVIDENT_HTTP_MAX_CONNECTIONS_PER_CLIENT: "512" }).maxConnectionsPerClient,
      512,
    );
    for (const value of ["0", "-1", "1.5", "many"]) {
      assert.throws(
        () => resolveHttpSettings({ ...env, EVIDENT_HTTP_MAX_CONNECTIONS_PER_CLIENT: value }),
        (error: unknown) =>
          error instanceof EvidentError &&
          error.code === "configuration_error" &&
          error.message.includes("EVIDENT_HTTP_MAX_CONNECTIONS_PER_CLIENT"),
        value,
      );
    }
  });

  it("counts connections per key and gives each back once", () => {
    const clients = new ClientConnections(2);
    const first = clients.admit("a");
    const second = clients.admit("a");
    assert.ok(first && second);
    assert.equal(clients.admit("a"), undefined);
    assert.ok(clients.admit("b"));
    first();
    first();
    assert.equal(clients.held("a"), 1);
    second();
    assert.equal(clients.held("a"), 0);
    assert.equal(clients.clients, 1);
  });
});

describe("issue 31 section 7: the Host header is a host and an optional port, nothing else", () => {
  const allowedHosts = ["localhost", "127.0.0.1", "[::1]", "example.com", "[2001:db8::1]"];
  const malformed = [
    "[::1]evil.com",
    "localhost:80@evil.com",
    "user@localhost",
    "localhost/evil",
    "localhost:",
    "localhost:8o",
    "localhost:99999",
    "localhost:80:80",
    "[::1",
    "[::1]:",
    "[evil.com]",
    "[::1]x:80",
    "local host",
    "localhost, evil.com",
    "localhost?x",
  ];
  const valid = [
    "localhost",
    "localhost:8787",
    "LOCALHOST",
    "127.0.0.1",
    "127.0.0.1:80",
    "[::1]",
    "[::1]:8787",
    "example.com",
    "Example.COM:443",
    "[2001:DB8::1]:9",
  ];

  for (const list of ["an allow list", "no allow list"] as const) {
    it(`refuses malformed values 403 naming the cause (${list})`, GUARD, async () => {
      await withServer(
        { allowedHosts: list === "an allow list" ? allowedHosts : undefined },
        async (server) => {
          for (const host of malformed) {
            const res = await raw(server.url, {
              method: "POST",
              headers: { ...legacyHeaders(TOKEN), host },
              body: "{}",
            });
            assert.equal(res.status, 403, `${host}: ${res.body}`);
            assert.match(res.body, /"code":"forbidden".*Malformed Host header/, host);
          }
        },
      );
    });
  }

  it("holds for the web-standard handler too (serverless hosts)", async () => {
    const settings = resolveHttpSettings({ EVIDENT_AUTH_TOKEN: TOKEN });
    const handler = createHttpHandler({ registry: createTestRegistry(), logger: silentLogger, settings });
    try {
      for (const host of ["[::1]evil.com", "localhost:80@evil.com"]) {
        const res = await handler.fetch(
          new Request("http://127.0.0.1/mcp", {
            method: "POST",
            headers: { ...legacyHeaders(TOKEN), host },
            body: "{}",
          }),
        );
        assert.equal(res.status, 403, host);
        assert.match(await res.text(), /Malformed Host header/);
      }
      const junk = await handler.fetch(
        new Request("http://127.0.0.1/mcp", {
          method: "POST",
          headers: { ...legacyHeaders(TOKEN), authorization: `Bearer ${TOKEN} junk` },
          body: "{}",
        }),
      );
      assert.equal(junk.status, 401);
      assert.match(await junk.text(), /more than one value follows Bearer/);
    } finally {
      await handler.close();
    }
  });

  it(
    "refuses a request with no Host header where hosts are listed, through the Node server",
    GUARD,
    async () => {
      await withServer({ allowedHosts }, async (server) => {
        // HTTP/1.0 lets a request omit Host; the URL the server builds must not stand in for it.
        const socket = new RawSocket(server.port);
        try {
          socket.write(`POST /mcp HTTP/1.0\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 2\r\n\r\n{}`);
          const received = await socket.untilClosed();
          assert.equal(headOf(received).status, 403, received);
          assert.match(received, /"code":"forbidden".*Missing Host header/);
        } finally {
          socket.destroy();
        }
      });
    },
  );

  it("accepts names, IPv4 and bracketed IPv6, with and without a port", GUARD, async () => {
    await withServer({ allowedHosts }, async (server) => {
      for (const host of valid) {
        // No token: the answer is the token's 401, so the Host check has passed.
        const res = await raw(server.url, { method: "POST", headers: { ...JSON_HEADERS, host }, body: "{}" });
        assert.equal(res.status, 401, `${host}: ${res.body}`);
      }
      const other = await raw(server.url, {
        method: "POST",
        headers: { ...JSON_HEADERS, host: "evil.com:80" },
        body: "{}",
      });
      assert.equal(other.status, 403);
      assert.match(other.body, /Host \\"evil.com\\" is not allowed/);
    });
  });
});

describe("issue 31 section 7: a wrong Authorization header names its cause, never the token", () => {
  it(
    "A05: each shape is 401 with its own cause; none quotes the token, in the answer or the log",
    GUARD,
    async () => {
      const logged: string[] = [];
      const record = (message: string, fields?: Record<string, unknown>) =>
        logged.push(message, JSON.stringify(fields ?? {}));
      const logger: Logger = { debug: record, info: record, warn: record, error: record };
      const cases: Array<[string | undefined, RegExp]> = [
        [undefined, /Missing bearer token/],
        ["", /Missing bearer token/],
        [`Bearer ${TOKEN} junk`, /more than one value follows Bearer/],
        [`Bearer ${TOKEN},junk`, /character a bearer token cannot carry/],
        [`Bearer ${TOKEN}"`, /character a bearer token cannot carry/],
        ["Bearer", /Bearer is not followed by a token/],
        [`Basic ${TOKEN}`, /must use the Bearer scheme/],
        [TOKEN, /must use the Bearer scheme/],
        [`Bearer ${TOKEN}x`, /Invalid bearer token/],
      ];
      await withServer(
        {},
        async (server) => {
          for (const [authorization, cause] of cases) {
            const headers: Record<string, string> = { ...JSON_HEADERS, "mcp-protocol-version": "2025-11-25" };
            if (authorization !== undefined) headers.authorization = authorization;
            const res = await raw(server.url, { method: "POST", headers, body: "{}" });
            assert.equal(res.status, 401, `${authorization}: ${res.body}`);
            assert.match(res.body, /"code":"unauthorized"/);
            assert.match(res.body, cause, `${authorization}: ${res.body}`);
            assert.equal(res.body.includes(TOKEN.slice(0, HTTP_MIN_TOKEN_CHARS)), false);
            assert.equal(res.headers["www-authenticate"], 'Bearer realm="evident"');
          }
          // The same token, sent well, is served; extra spaces between scheme and token are fine.
          for (const authorization of [`Bearer ${TOKEN}`, `bearer   ${TOKEN}  `]) {
            const ok = await raw(server.url, {
              method: "POST",
              headers: { ...legacyHeaders(TOKEN), authorization },
              body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
            });
            assert.equal(ok.status, 200, ok.body);
          }
        },
        logger,
      );
      assert.equal(logged.join("\n").includes(TOKEN.slice(0, HTTP_MIN_TOKEN_CHARS)), false);
    },
  );
});
