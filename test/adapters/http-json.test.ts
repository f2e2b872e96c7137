/**
 * Plain JSON answers over real loopback HTTP, as curl or a gateway sends them: a POST that asks
 * for no progress gets one JSON body; one that carries a progress token gets the SSE stream with
 * its progress; `Accept: application/json` alone is served, not refused (406).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type RunningHttpServer, startHttpServer } from "../../src/adapters/mcp/http-server.js";
import { resolveHttpSettings } from "../../src/config/http.js";
import { HTTP_MIN_TOKEN_CHARS } from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";
import { createTestRegistry } from "../fixtures/test-tools.js";
import { legacyHeaders } from "./http-raw.js";

const TOKEN = "j".repeat(HTTP_MIN_TOKEN_CHARS);

function echoCall(progressToken?: string): string {
  const params = {
    name: "echo",
    arguments: { text: "hi" },
    ...(progressToken === undefined ? {} : { _meta: { progressToken } }),
  };
  return JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params });
}

describe("HTTP: plain JSON answers unless the request asks for progress", () => {
  let server: RunningHttpServer;
  before(async () => {
    const settings = resolveHttpSettings({ EVIDENT_AUTH_TOKEN: TOKEN, EVIDENT_HTTP_PORT: "0" });
    server = await startHttpServer({ registry: createTestRegistry(), logger: silentLogger, settings });
  });
  after(() => server.close());

  const post = (body: string, headers: Record<string, string>) =>
    fetch(server.url, { method: "POST", headers: { ...legacyHeaders(TOKEN), ...headers }, body });

  it("a call without a progress token is answered with one JSON body", async () => {
    const response = await post(echoCall(), {});
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    const message = (await response.json()) as { id: number; result: { content: { text: string }[] } };
    assert.equal(message.id, 7);
    assert.equal(message.result.content[0]?.text, "hi");
  });

  it("Accept: application/json alone (curl-like) is served with JSON, not refused", async () => {
    for (const body of [echoCall(), JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })]) {
      const response = await post(body, { accept: "application/json" });
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
      assert.ok(((await response.json()) as { result?: unknown }).result !== undefined);
    }
  });

  it("a call with a progress token keeps the SSE stream, and its progress arrives on it", async () => {
    const response = await post(echoCall("p-1"), {});
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
    const text = await response.text();
    assert.match(text, /"method":"notifications\/progress".*"progressToken":"p-1"/);
    assert.match(text, /"result":\{"content":\[\{"type":"text","text":"hi"\}\]\},"jsonrpc":"2.0","id":7/);
  });

  it("a progress token from a client that reads JSON only is still answered, with JSON", async () => {
    const response = await post(echoCall("p-2"), { accept: "application/json" });
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(((await response.json()) as { id: number }).id, 7);
  });
});
