/**
 * Protocol faults are protocol errors on every transport: an unknown tool is JSON-RPC -32602
 * (2025-11-25 specification, tools/call), and JSON-RPC batches are refused under the protocol
 * revisions that removed them.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { RunningHttpServer } from "../../src/adapters/mcp/http-server.js";
import { HTTP_MIN_TOKEN_CHARS } from "../../src/core/limits.js";
import { TEST_CLI } from "../fixtures/spawned.js";
import { startTestServer } from "../helpers/http-server.js";
import { JSON_HEADERS, legacyHeaders, messagesOf, raw } from "./http-raw.js";

const TOKEN = `${"t".repeat(HTTP_MIN_TOKEN_CHARS)}-secret`;
const list = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list", params: {} });

describe("unknown tool name", () => {
  let server: RunningHttpServer;
  before(async () => {
    server = await startTestServer(TOKEN);
  });
  after(() => server.close());

  const connections = {
    stdio: () =>
      new StdioClientTransport({
        command: process.execPath,
        args: [TEST_CLI, "mcp"],
        stderr: "ignore",
      }),
    http: () =>
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
  };
  for (const [transport, open] of Object.entries(connections)) {
    for (const negotiation of ["legacy", "auto"] as const) {
      it(`is a JSON-RPC error -32602, not a tool result (${transport}, ${negotiation})`, async () => {
        const client = new Client(
          { name: "evident-test", version: "1.0.0" },
          negotiation === "auto" ? { versionNegotiation: { mode: "auto" } } : {},
        );
        await client.connect(open());
        try {
          await assert.rejects(
            client.callTool({ name: "no_such_tool", arguments: {} }),
            (error: unknown) =>
              error instanceof ProtocolError && error.code === -32602 && /no_such_tool/.test(error.message),
          );
          // The connection still serves.
          const echoed = await client.callTool({ name: "echo", arguments: { text: "ok" } });
          assert.equal(echoed.isError ?? false, false);
        } finally {
          await client.close();
        }
      });
    }
  }
});

describe("JSON-RPC batches over HTTP", () => {
  let server: RunningHttpServer;
  before(async () => {
    server = await startTestServer(TOKEN);
  });
  after(() => server.close());

  for (const version of ["2025-06-18", "2025-11-25"]) {
    it(`are refused under protocol revision ${version}, which removed them`, async () => {
      const res = await raw(server.url, {
        method: "POST",
        headers: { ...legacyHeaders(TOKEN), "mcp-protocol-version": version },
        body: JSON.stringify([list(1), list(2)]),
      });
      assert.equal(res.status, 400, res.body);
      const [answer] = messagesOf(res.body);
      assert.equal(answer?.id, null);
      assert.equal(answer?.error?.code, -32600);
    });
  }

  it("holding initialize are refused", async () => {
    const res = await raw(server.url, {
      method: "POST",
      headers: { ...JSON_HEADERS, authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify([
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-03-26",
            capabilities: {},
            clientInfo: { name: "b", version: "1" },
          },
        },
      ]),
    });
    assert.equal(res.status, 400, res.body);
    assert.equal(messagesOf(res.body)[0]?.error?.code, -32600);
  });

  it("are served under 2025-03-26, the revision that has them", async () => {
    const res = await raw(server.url, {
      method: "POST",
      headers: { ...legacyHeaders(TOKEN), "mcp-protocol-version": "2025-03-26" },
      body: JSON.stringify([list(1), list(2)]),
    });
    assert.equal(res.status, 200, res.body);
    const ids = messagesOf(res.body)
      .map((message) => message.id)
      .sort();
    assert.deepEqual(ids, [1, 2]);
  });
});
