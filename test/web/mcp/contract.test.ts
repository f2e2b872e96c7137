/**
 * The shared provider contract (test/web/providers/contract.ts), run through an MCP binding. The
 * loopback fake speaks MCP's Streamable HTTP wire (JSON responses) for the success and empty
 * cases; the contract's fault cases (401 / 429 / 503, malformed JSON, HTML, a stalled or oversized
 * body, cancellation) then hit the tool call of an established session, which is where an upstream
 * MCP server fails in practice.
 */
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { createMcpProvider } from "../../../src/web/providers/mcp/provider.js";
import { runProviderContract } from "../providers/contract.js";
import type { RecordedRequest } from "../providers/fake-vendor.js";

const SESSION = "contract-session-1";
const TOKEN = "mcp-contract-token-5150";

interface ToolCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** An MCP endpoint: initialize, the initialized notification, GET/DELETE, and tools/call. */
function mcpWire(answer: (call: ToolCall) => unknown) {
  return (request: RecordedRequest, response: ServerResponse): void => {
    if (request.method === "GET") {
      response.writeHead(405).end();
      return;
    }
    if (request.method === "DELETE") {
      response.writeHead(200).end();
      return;
    }
    const message = request.json() as {
      id?: number | string;
      method: string;
      params?: Record<string, unknown>;
    };
    if (message.id === undefined) {
      response.writeHead(202).end();
      return;
    }
    const result =
      message.method === "initialize"
        ? {
            protocolVersion: (message.params?.protocolVersion as string | undefined) ?? "2025-06-18",
            capabilities: { tools: {} },
            serverInfo: { name: "contract-fake", version: "1.0.0" },
          }
        : message.method === "tools/call"
          ? answer(message.params as unknown as ToolCall)
          : {};
    const body = JSON.stringify({ jsonrpc: "2.0", id: message.id, result });
    response.writeHead(200, { "content-type": "application/json", "mcp-session-id": SESSION });
    response.end(body);
  };
}

/** A tools/call carries the trace context in `params._meta`; other messages carry none by design. */
function metaTrace(request: RecordedRequest): { traceparent?: unknown; tracestate?: unknown } | undefined {
  if (request.method !== "POST") return undefined;
  const message = request.json() as { method?: string; params?: { _meta?: Record<string, unknown> } };
  if (message.method !== "tools/call") return undefined;
  const meta = message.params?._meta ?? {};
  return { traceparent: meta.traceparent, tracestate: meta.tracestate };
}

function lastToolCall(request: RecordedRequest): ToolCall {
  assert.equal(request.method, "POST");
  assert.equal(request.path, "/mcp");
  assert.equal(request.headers.authorization, `Bearer ${TOKEN}`);
  assert.equal(request.headers["mcp-session-id"], SESSION);
  const message = request.json() as { method: string; params: ToolCall };
  assert.equal(message.method, "tools/call");
  return message.params;
}

const connection = (baseUrl: string) => ({
  url: `${baseUrl}/mcp`,
  headers: { Authorization: { env: "CONTRACT_MCP_TOKEN", prefix: "Bearer " } },
});
const env = { CONTRACT_MCP_TOKEN: TOKEN };

runProviderContract({
  id: "mcp-search",
  operation: "search",
  secret: TOKEN,
  traceOf: metaTrace,
  create: (baseUrl) =>
    createMcpProvider(
      "mcp-search",
      {
        type: "mcp",
        connection: connection(baseUrl),
        search: {
          tool: "web_search_exa",
          arguments: { query: "$query", numResults: "$maxResults" },
          format: "exa",
        },
      },
      { env },
    ),
  request: { query: "mcp contract", maxResults: 2 },
  assertRequest(request) {
    const call = lastToolCall(request);
    assert.deepEqual(call, { name: "web_search_exa", arguments: { query: "mcp contract", numResults: 2 } });
  },
  respondSuccess: mcpWire(() => ({
    content: [
      {
        type: "text",
        text: [
          "Title: One\nURL: https://one.example/\nHighlights:\nFirst.",
          "Title: Two\nURL: https://two.example/\nHighlights:\nSecond.",
          "Title: Three\nURL: https://three.example/\nHighlights:\nCut by maxResults.",
        ].join("\n\n---\n\n"),
      },
    ],
  })),
  respondEmpty: mcpWire(() => ({ content: [] })),
  assertOutcome(outcome) {
    assert.deepEqual(outcome.results, [
      { title: "One", url: "https://one.example/", snippet: "First." },
      { title: "Two", url: "https://two.example/", snippet: "Second." },
    ]);
  },
});

runProviderContract({
  id: "mcp-read",
  operation: "read",
  secret: TOKEN,
  traceOf: metaTrace,
  create: (baseUrl) =>
    createMcpProvider(
      "mcp-read",
      {
        type: "mcp",
        connection: connection(baseUrl),
        read: {
          tool: "firecrawl_scrape",
          arguments: { url: "$url", formats: ["markdown"], onlyMainContent: true },
          format: "firecrawl",
        },
      },
      { env },
    ),
  request: { url: "https://example.com/article?id=7#top" },
  assertRequest(request) {
    const call = lastToolCall(request);
    assert.deepEqual(call, {
      name: "firecrawl_scrape",
      arguments: {
        url: "https://example.com/article?id=7#top",
        formats: ["markdown"],
        onlyMainContent: true,
      },
    });
  },
  respondSuccess: mcpWire(() => ({
    content: [
      {
        type: "text",
        text: JSON.stringify({
          markdown: "# Article\n\nBody.",
          metadata: { title: "Article", creditsUsed: 1, cacheState: "hit", cachedAt: "2026-02-03T04:05:06Z" },
        }),
      },
    ],
  })),
  respondEmpty: mcpWire(() => ({ content: [] })),
  assertOutcome(outcome) {
    assert.equal(outcome.title, "Article");
    assert.deepEqual(outcome.metadata, {
      creditsUsed: 1,
      cacheState: "hit",
      cachedAt: "2026-02-03T04:05:06Z",
    });
    assert.equal(outcome.content.length, 1);
  },
});
