/**
 * An upstream MCP provider's `tools/call` carries the caller's W3C trace context in `_meta`, as
 * the 2026-07-28 revision reserves `_meta.traceparent` and `tracestate` for it; a call without
 * one sends no such keys.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { silentLogger } from "../../src/core/logger.js";
import { traceContext } from "../../src/core/trace.js";
import { createHttpClient } from "../../src/net/client.js";
import { createMcpProvider, type McpProvider } from "../../src/web/providers/mcp/provider.js";
import { type HttpUpstream, startHttpUpstream } from "../web/mcp/fixtures/http-upstream.js";

const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("trace context to an upstream MCP server", () => {
  let upstream: HttpUpstream;
  let provider: McpProvider;
  const http = createHttpClient();
  before(async () => {
    upstream = await startHttpUpstream();
    provider = createMcpProvider("remote", { type: "mcp", preset: "exa", connection: { url: upstream.url } });
  });
  after(async () => {
    await provider.close();
    await http.close();
    await upstream.close();
  });

  const search = (query: string, traced: boolean) => {
    const trace = traced ? traceContext(TRACEPARENT, "vendor=1") : undefined;
    assert.ok(provider.search);
    return provider.search(
      { query, maxResults: 1 },
      {
        signal: new AbortController().signal,
        http,
        logger: silentLogger,
        ...(trace === undefined ? {} : { trace }),
      },
    );
  };
  const callOf = (query: string) =>
    upstream.events.find(
      (event) => event.event === "call" && (event.args as { query?: string } | undefined)?.query === query,
    );

  it("sends _meta.traceparent and tracestate with the bound tool call", async () => {
    await search("traced", true);
    assert.deepEqual(callOf("traced")?.meta, { traceparent: TRACEPARENT, tracestate: "vendor=1" });
  });

  it("sends no trace keys without a trace context", async () => {
    await search("untraced", false);
    const meta = (callOf("untraced")?.meta ?? {}) as Record<string, unknown>;
    assert.equal(meta.traceparent, undefined);
    assert.equal(meta.tracestate, undefined);
  });
});
