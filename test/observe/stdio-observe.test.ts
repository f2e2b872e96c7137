/**
 * The same observability over MCP stdio, the built executable: a call's `_meta.traceparent`
 * reaches the loopback vendor's request, and the call's JSON log line on stderr carries a request
 * id and the trace id; stdout stays the protocol's.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { connectStdio } from "../helpers/mcp-client.js";
import { type Loopback, startLoopback } from "../net/loopback.js";

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const TRACEPARENT = `00-${TRACE_ID}-b7ad6b7169203331-01`;
const PROVIDER_KEY = "tvly-stdio-key-never-logged";

/** Resolves with the first JSON log line `stream` writes that satisfies `match`. */
function logLine(stream: Readable, match: (line: Record<string, unknown>) => boolean, seen: string[]) {
  return new Promise<Record<string, unknown>>((resolve) => {
    let buffered = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      buffered += chunk;
      let at = buffered.indexOf("\n");
      while (at >= 0) {
        const line = buffered.slice(0, at);
        buffered = buffered.slice(at + 1);
        seen.push(line);
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (match(parsed)) resolve(parsed);
        at = buffered.indexOf("\n");
      }
    });
  });
}

describe("what an operator sees over MCP stdio", () => {
  let base: string;
  let vendor: Loopback;
  before(async () => {
    base = await mkdtemp(join(tmpdir(), "evident-observe-stdio-"));
    vendor = await startLoopback((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ results: [{ title: "One", url: "https://example.org/one", content: "s" }] }));
    });
  });
  after(async () => {
    await vendor.close();
    await rm(base, { recursive: true, force: true });
  });

  it("a call's _meta.traceparent reaches the vendor and its JSON log line, with a request id", {
    timeout: 60_000,
  }, async () => {
    const { client, transport } = await connectStdio({
      name: "observe-test",
      cwd: base,
      stderr: "pipe",
      env: {
        PATH: process.env.PATH ?? "",
        HOME: base,
        XDG_CONFIG_HOME: join(base, "config"),
        EVIDENT_CACHE_DIR: join(base, "cache"),
        TAVILY_API_KEY: PROVIDER_KEY,
        EVIDENT_TAVILY_BASE_URL: vendor.url,
        EVIDENT_SEARCH_ROUTE: "tavily",
        EVIDENT_LOG_LEVEL: "debug",
      },
    });
    const seen: string[] = [];
    const callLine = logLine(transport.stderr as Readable, (line) => line.msg === "tool call", seen);
    try {
      const result = await client.callTool({
        name: "web_search",
        arguments: { query: "traced" },
        _meta: { traceparent: TRACEPARENT },
      });
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.equal(vendor.requests.at(-1)?.headers.traceparent, TRACEPARENT);
      const line = await callLine;
      assert.equal(line.traceId, TRACE_ID);
      assert.equal(line.tool, "web_search");
      assert.equal(line.outcome, "ok");
      assert.match(String(line.requestId), /^[0-9a-f-]{36}$/);
      for (const text of seen) assert.ok(!text.includes(PROVIDER_KEY), "no provider key in the log");
    } finally {
      await client.close();
    }
  });
});
