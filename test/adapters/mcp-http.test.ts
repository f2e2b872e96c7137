import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, describe, it } from "node:test";
import { type RunningHttpServer, startHttpServer } from "../../src/adapters/mcp/http-server.js";
import { resolveHttpSettings } from "../../src/config/http.js";
import { EvidentError } from "../../src/core/errors.js";
import { HTTP_MIN_TOKEN_CHARS } from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";
import { createTestRegistry, Gate } from "../fixtures/test-tools.js";
import { startTestServer } from "../helpers/http-server.js";
import { connectHttp, textOf } from "../helpers/mcp-client.js";
import { raw } from "./http-raw.js";

const TOKEN = `${"t".repeat(HTTP_MIN_TOKEN_CHARS)}-secret`;

const connect = (url: string, headers: Record<string, string>, negotiation: "legacy" | "auto" = "legacy") =>
  connectHttp(url, { name: "evident-test", headers, negotiation });

const INIT_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});
const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

describe("MCP Streamable HTTP", () => {
  let server: RunningHttpServer;
  const gate = new Gate();

  before(async () => {
    const settings = resolveHttpSettings({
      EVIDENT_AUTH_TOKEN: TOKEN,
      EVIDENT_HTTP_PORT: "0",
      EVIDENT_HTTP_MAX_BODY_BYTES: "4096",
      EVIDENT_HTTP_MAX_CONCURRENT: "2",
    });
    server = await startHttpServer({
      registry: createTestRegistry(gate),
      logger: silentLogger,
      settings,
      structured: true,
    });
  });

  after(async () => {
    gate.open();
    await server.close();
  });

  for (const negotiation of ["legacy", "auto"] as const) {
    it(`A02/A04: the SDK client with the token lists and calls tools (${negotiation} negotiation)`, async () => {
      const client = await connect(server.url, { authorization: `Bearer ${TOKEN}` }, negotiation);
      try {
        assert.equal(
          client.getNegotiatedProtocolVersion(),
          negotiation === "legacy" ? "2025-11-25" : "2026-07-28",
        );
        const { tools } = await client.listTools();
        assert.deepEqual(
          tools.map((t) => t.name),
          ["echo", "hold", "fail"],
        );
        const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
        assert.equal(textOf(result), "hi");
        // Cursor-bearing state is bound to the credential, never to the raw token.
        const caller = (result.structuredContent as { caller: string }).caller;
        assert.match(caller, /^http:[0-9a-f]{32}$/);
        assert.ok(!caller.includes(TOKEN));
      } finally {
        await client.close();
      }
    });
  }

  it("A02: serves without sticky state: no session id, and another replica answers the next call", async () => {
    const init = await raw(server.url, {
      method: "POST",
      headers: { ...JSON_HEADERS, authorization: `Bearer ${TOKEN}` },
      body: INIT_BODY,
    });
    assert.equal(init.status, 200);
    assert.equal(init.headers["mcp-session-id"], undefined);
    const replica = await startTestServer(TOKEN);
    try {
      const call = await raw(replica.url, {
        method: "POST",
        headers: { ...JSON_HEADERS, authorization: `Bearer ${TOKEN}`, "mcp-protocol-version": "2025-11-25" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "echo", arguments: { text: "x" } },
        }),
      });
      assert.equal(call.status, 200, call.body);
      assert.match(call.body, /"text":"x"/);
    } finally {
      await replica.close();
    }
  });

  it("without structured output (the default) answers with the text alone", async () => {
    const plain = await startTestServer(TOKEN);
    try {
      const client = await connect(plain.url, { authorization: `Bearer ${TOKEN}` });
      try {
        const { tools } = await client.listTools();
        for (const tool of tools) assert.equal(tool.outputSchema, undefined, tool.name);
        const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
        assert.equal(textOf(result), "hi");
        assert.equal(result.structuredContent, undefined);
      } finally {
        await client.close();
      }
    } finally {
      await plain.close();
    }
  });

  it("A07: invalid arguments are an invalid_arguments tool error over HTTP", async () => {
    const client = await connect(server.url, { authorization: `Bearer ${TOKEN}` });
    try {
      for (const [args, field] of [
        [{ text: "" }, "text"],
        [{ text: 1 }, "text"],
        [{ text: "a", nope: 1 }, "nope"],
        [{ text: "a", times: 7 }, "times"],
        [{ text: "y".repeat(500) }, "text"],
      ] as const) {
        const result = await client.callTool({ name: "echo", arguments: args });
        assert.equal(result.isError, true);
        const payload = JSON.parse(textOf(result));
        assert.equal(payload.error.code, "invalid_arguments");
        assert.equal(payload.error.field, field);
      }
      const failed = await client.callTool({ name: "fail", arguments: { query: "q" } });
      assert.equal(JSON.parse(textOf(failed)).error.code, "all_providers_failed");
    } finally {
      await client.close();
    }
  });

  it("streams progress notifications and carries cancellation to the tool", async () => {
    for (const negotiation of ["legacy", "auto"] as const) {
      const client = await connect(server.url, { authorization: `Bearer ${TOKEN}` }, negotiation);
      try {
        const updates: unknown[] = [];
        await client.callTool(
          { name: "echo", arguments: { text: "p" } },
          { onprogress: (p) => updates.push(p) },
        );
        assert.deepEqual(updates, [{ progress: 1, total: 2, message: "echoing" }], negotiation);
        const controller = new AbortController();
        const before = gate.cancelled;
        const held = client.callTool({ name: "hold", arguments: {} }, { signal: controller.signal });
        await gate.untilWaiting(1);
        controller.abort();
        await assert.rejects(held);
        await gate.untilCancelled(before + 1);
      } finally {
        await client.close();
      }
    }
  });

  it("A05: no token and a wrong token are 401 with WWW-Authenticate: Bearer", async () => {
    const variants: Array<Record<string, string>> = [
      {},
      { authorization: "Bearer wrong" },
      { authorization: `Basic ${TOKEN}` },
    ];
    for (const headers of variants) {
      const res = await raw(server.url, {
        method: "POST",
        headers: { ...JSON_HEADERS, ...headers },
        body: INIT_BODY,
      });
      assert.equal(res.status, 401);
      assert.match(String(res.headers["www-authenticate"]), /^Bearer/);
      assert.equal(JSON.parse(res.body).error.code, "unauthorized");
    }
    await assert.rejects(connect(server.url, {}));
    await assert.rejects(connect(server.url, { authorization: `Bearer ${TOKEN}x` }));
  });

  it("A12: the token is accepted only in the Authorization header", async () => {
    const res = await raw(`${server.url}?token=${TOKEN}`, {
      method: "POST",
      headers: JSON_HEADERS,
      body: INIT_BODY,
    });
    assert.equal(res.status, 401);
  });

  it("rejects a foreign Host or Origin with 403 (DNS rebinding)", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const badHost = await raw(server.url, {
      method: "POST",
      headers: { ...JSON_HEADERS, ...auth, host: "evil.example:80" },
      body: INIT_BODY,
    });
    assert.equal(badHost.status, 403);
    const badOrigin = await raw(server.url, {
      method: "POST",
      headers: { ...JSON_HEADERS, ...auth, origin: "https://evil.example" },
      body: INIT_BODY,
    });
    assert.equal(badOrigin.status, 403);
    const loopbackOrigin = await raw(server.url, {
      method: "POST",
      headers: { ...JSON_HEADERS, ...auth, origin: "http://localhost:3000" },
      body: INIT_BODY,
    });
    assert.equal(loopbackOrigin.status, 200);
  });

  it("A03: GET /healthz answers without a token and calls no tool", async () => {
    const arrivedBefore = gate.arrived;
    const res = await raw(server.url.replace("/mcp", "/healthz"));
    assert.equal(res.status, 200);
    const body = JSON.parse(res.body);
    assert.equal(body.status, "ok");
    assert.match(body.version, /^\d+\.\d+\.\d+/);
    assert.equal(gate.arrived, arrivedBefore);
  });

  it("answers 413 to an oversize body, declared or streamed", async () => {
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "ping",
      params: { pad: "x".repeat(10_000) },
    });
    const declared = await raw(server.url, {
      method: "POST",
      headers: { ...JSON_HEADERS, authorization: `Bearer ${TOKEN}` },
      body: big,
    });
    assert.equal(declared.status, 413);
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        server.url,
        {
          method: "POST",
          headers: { ...JSON_HEADERS, authorization: `Bearer ${TOKEN}`, "transfer-encoding": "chunked" },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      for (let i = 0; i < 10; i += 1) req.write("x".repeat(1_000));
      req.end();
    });
    assert.equal(chunked, 413);
  });

  it("answers 503 with Retry-After beyond the concurrency bound, and serves again after", async () => {
    const clients = await Promise.all(
      [0, 1].map(() => connect(server.url, { authorization: `Bearer ${TOKEN}` })),
    );
    const held = clients.map((c) => c.callTool({ name: "hold", arguments: {} }));
    await gate.untilWaiting(2);
    const res = await raw(server.url, {
      method: "POST",
      headers: { ...JSON_HEADERS, authorization: `Bearer ${TOKEN}` },
      body: INIT_BODY,
    });
    assert.equal(res.status, 503);
    assert.equal(res.headers["retry-after"], "1");
    gate.open();
    const results = await Promise.all(held);
    for (const result of results) assert.equal(textOf(result), "released");
    await Promise.all(clients.map((c) => c.close()));
    const again = await raw(server.url, {
      method: "POST",
      headers: { ...JSON_HEADERS, authorization: `Bearer ${TOKEN}` },
      body: INIT_BODY,
    });
    assert.equal(again.status, 200);
  });
});

describe("HTTP settings", () => {
  it("A02: refuse to start without a token, or with a short one, unless anonymous is explicit", () => {
    assert.throws(() => resolveHttpSettings({}), /EVIDENT_AUTH_TOKEN/);
    assert.throws(
      () => resolveHttpSettings({ EVIDENT_AUTH_TOKEN: "x".repeat(HTTP_MIN_TOKEN_CHARS - 1) }),
      /at least/,
    );
    assert.deepEqual(resolveHttpSettings({ EVIDENT_ALLOW_ANONYMOUS: "true" }).tokens, []);
    assert.deepEqual(resolveHttpSettings({ EVIDENT_AUTH_TOKEN: TOKEN }).tokens, [TOKEN]);
  });

  it("defect 5: refuses a token no client could send (blank, a trailing newline, inner spaces), naming the variable", () => {
    // Each message says what is wrong, so the operator can fix the secret without guessing.
    for (const [label, token, why] of [
      ["spaces only", " ".repeat(HTTP_MIN_TOKEN_CHARS), /ends with whitespace/],
      ["a trailing newline", `${TOKEN}\n`, /ends with whitespace \(a newline/],
      ["a trailing CRLF", `${TOKEN}\r\n`, /ends with whitespace/],
      ["inner spaces", `${"a".repeat(20)} ${"b".repeat(20)}`, /contains whitespace/],
      ["a leading space", ` ${TOKEN}`, /contains whitespace/],
      ["a tab", `${TOKEN}\t`, /ends with whitespace/],
      ["a non-ASCII letter", `${TOKEN}é`, /a character a bearer token cannot carry/],
    ] as const) {
      assert.throws(
        () => resolveHttpSettings({ EVIDENT_AUTH_TOKEN: token }),
        (error: unknown) =>
          error instanceof EvidentError &&
          error.code === "configuration_error" &&
          error.details.key === "EVIDENT_AUTH_TOKEN" &&
          /EVIDENT_AUTH_TOKEN/.test(error.message) &&
          why.test(error.message) &&
          (token.trim() === "" || !error.message.includes(token.trim())),
        label,
      );
    }
  });

  it("defect 5: refuses EVIDENT_ALLOW_ANONYMOUS=true together with a token, naming both", () => {
    for (const env of [
      { EVIDENT_ALLOW_ANONYMOUS: "true", EVIDENT_AUTH_TOKEN: TOKEN },
      { EVIDENT_ALLOW_ANONYMOUS: "true", EVIDENT_AUTH_TOKENS: `${TOKEN}a,${TOKEN}b` },
    ]) {
      assert.throws(
        () => resolveHttpSettings(env),
        (error: unknown) =>
          error instanceof EvidentError &&
          error.code === "configuration_error" &&
          /EVIDENT_ALLOW_ANONYMOUS/.test(error.message) &&
          /EVIDENT_AUTH_TOKENS?/.test(error.message),
      );
    }
    assert.throws(
      () => resolveHttpSettings({ EVIDENT_ALLOW_ANONYMOUS: "yes" }),
      /EVIDENT_ALLOW_ANONYMOUS must be true or false/,
    );
    assert.deepEqual(
      resolveHttpSettings({ EVIDENT_ALLOW_ANONYMOUS: "false", EVIDENT_AUTH_TOKEN: TOKEN }).tokens,
      [TOKEN],
    );
  });

  it("EVIDENT_AUTH_TOKENS: one token per client, each checked like EVIDENT_AUTH_TOKEN, no duplicates", () => {
    const settings = resolveHttpSettings({
      EVIDENT_AUTH_TOKENS: `${TOKEN}-a,${TOKEN}-b`,
      EVIDENT_AUTH_TOKEN: TOKEN,
    });
    assert.deepEqual(settings.tokens, [TOKEN, `${TOKEN}-a`, `${TOKEN}-b`]);
    for (const [value, why] of [
      [`${TOKEN}-a,`, /EVIDENT_AUTH_TOKENS entry 2 is empty/],
      [`${TOKEN}-a, ${TOKEN}-b`, /EVIDENT_AUTH_TOKENS entry 2/],
      [`${TOKEN}-a,short`, /EVIDENT_AUTH_TOKENS entry 2 is 5 characters/],
      [`${TOKEN}-a,${TOKEN}-a`, /EVIDENT_AUTH_TOKENS entry 2 repeats/],
    ] as const) {
      assert.throws(
        () => resolveHttpSettings({ EVIDENT_AUTH_TOKENS: value }),
        (error: unknown) =>
          error instanceof EvidentError &&
          error.details.key === "EVIDENT_AUTH_TOKENS" &&
          why.test(error.message),
        value,
      );
    }
  });

  it("reads host and port from EVIDENT_HTTP_* then PORT, and loopback binding allows only loopback hosts", () => {
    const base = { EVIDENT_AUTH_TOKEN: TOKEN };
    assert.equal(resolveHttpSettings(base).port, 8787);
    assert.equal(resolveHttpSettings({ ...base, PORT: "9000" }).port, 9000);
    assert.equal(resolveHttpSettings({ ...base, PORT: "9000", EVIDENT_HTTP_PORT: "9100" }).port, 9100);
    assert.throws(() => resolveHttpSettings({ ...base, EVIDENT_HTTP_PORT: "http" }), /port/);
    const loopback = resolveHttpSettings(base);
    assert.equal(loopback.host, "127.0.0.1");
    assert.ok(loopback.allowedHosts?.includes("localhost"));
    assert.ok(!loopback.allowedHosts?.includes("example.com"));
    const open = resolveHttpSettings({
      ...base,
      EVIDENT_HTTP_HOST: "0.0.0.0",
      EVIDENT_ALLOWED_HOSTS: "mcp.example.com",
    });
    assert.deepEqual(open.allowedHosts, ["mcp.example.com"]);
  });
});
