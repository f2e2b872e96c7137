/**
 * CORS: a browser origin listed in EVIDENT_ALLOWED_ORIGINS gets a correct preflight and may read
 * the responses (errors included); any other origin stays 403, preflight included.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type RunningHttpServer, startHttpServer } from "../../src/adapters/mcp/http-server.js";
import { resolveHttpSettings } from "../../src/config/http.js";
import { HTTP_CORS_MAX_AGE_SECONDS, HTTP_MIN_TOKEN_CHARS } from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";
import { createTestRegistry } from "../fixtures/test-tools.js";
import { legacyHeaders, messagesOf, raw } from "./http-raw.js";

const TOKEN = `${"t".repeat(HTTP_MIN_TOKEN_CHARS)}-secret`;
const APP = "https://app.example.com";
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });

describe("HTTP CORS", () => {
  let server: RunningHttpServer;
  before(async () => {
    server = await startHttpServer({
      registry: createTestRegistry(),
      logger: silentLogger,
      settings: resolveHttpSettings({
        EVIDENT_AUTH_TOKEN: TOKEN,
        EVIDENT_HTTP_PORT: "0",
        EVIDENT_ALLOWED_ORIGINS: `${APP},https://other.example.com`,
      }),
    });
  });
  after(() => server.close());

  it("answers a listed origin's preflight without credentials, allowing what an MCP client sends", async () => {
    const res = await raw(server.url, {
      method: "OPTIONS",
      headers: {
        origin: APP,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, mcp-protocol-version",
      },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers["access-control-allow-origin"], APP);
    assert.match(String(res.headers["access-control-allow-methods"]), /\bPOST\b/);
    const allowed = String(res.headers["access-control-allow-headers"]).split(/,\s*/);
    for (const header of ["authorization", "content-type", "mcp-protocol-version", "accept"]) {
      assert.ok(allowed.includes(header), header);
    }
    assert.equal(res.headers["access-control-max-age"], String(HTTP_CORS_MAX_AGE_SECONDS));
    assert.match(String(res.headers.vary), /Origin/);
  });

  it("lets a listed origin read answers, failures included, and names only that origin", async () => {
    const ok = await raw(server.url, {
      method: "POST",
      headers: { ...legacyHeaders(TOKEN), origin: APP },
      body: LIST,
    });
    assert.equal(ok.status, 200);
    assert.equal(messagesOf(ok.body)[0]?.id, 1);
    assert.equal(ok.headers["access-control-allow-origin"], APP);
    assert.match(String(ok.headers["access-control-expose-headers"]), /mcp-session-id/);
    assert.match(String(ok.headers.vary), /Origin/);
    const denied = await raw(server.url, {
      method: "POST",
      headers: { ...legacyHeaders("wrong"), origin: APP },
      body: LIST,
    });
    assert.equal(denied.status, 401);
    assert.equal(denied.headers["access-control-allow-origin"], APP);
    assert.match(String(denied.headers["access-control-expose-headers"]), /www-authenticate/);
  });

  it("refuses any other origin with 403, preflight included, and grants it nothing", async () => {
    for (const method of ["OPTIONS", "POST"]) {
      const res = await raw(server.url, {
        method,
        headers: {
          ...legacyHeaders(TOKEN),
          origin: "https://evil.example",
          "access-control-request-method": "POST",
        },
        ...(method === "POST" ? { body: LIST } : {}),
      });
      assert.equal(res.status, 403, method);
      assert.equal(res.headers["access-control-allow-origin"], undefined, method);
    }
  });

  it("adds nothing for clients without an Origin (non-browser MCP clients)", async () => {
    const res = await raw(server.url, { method: "POST", headers: legacyHeaders(TOKEN), body: LIST });
    assert.equal(res.status, 200);
    assert.equal(res.headers["access-control-allow-origin"], undefined);
  });
});
