/**
 * A generic binding against a server nobody wrote for us: the MCP project's own
 * `@modelcontextprotocol/server-everything`, as a stdio child. Its `echo` tool serves both search
 * and read through placeholders, and `get-structured-content` shows the structured-copy rule on a
 * real server's output.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import { isEvidentError } from "../../../src/core/errors.js";
import { createMcpProvider, type McpProvider } from "../../../src/web/providers/mcp/provider.js";
import { context } from "./context.js";
import { childProcessesRunning, processAlive } from "./fixtures/stdio-upstream.js";

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

const connection = { command: process.execPath, args: [EVERYTHING, "stdio"] };

describe("generic binding against server-everything (stdio)", () => {
  let echo: McpProvider;
  let weather: McpProvider;
  before(() => {
    echo = createMcpProvider("everything", {
      type: "mcp",
      connection,
      search: { tool: "echo", arguments: { message: "$query" } },
      read: { tool: "echo", arguments: { message: "$url" } },
    });
    weather = createMcpProvider("weather", {
      type: "mcp",
      connection,
      read: { tool: "get-structured-content", arguments: { location: "Chicago" } },
    });
  });
  after(async () => {
    await Promise.all([echo.close(), weather.close()]);
    const children = childProcessesRunning(EVERYTHING);
    if (children !== undefined) assert.deepEqual(children, [], "server-everything children left running");
  });

  it("maps $query into echo's message; with no row layout the native text is the answer", async () => {
    assert.ok(echo.search);
    const outcome = await echo.search({ query: "hello upstream", maxResults: 5 }, context());
    assert.deepEqual(outcome, { answer: "Echo: hello upstream", results: [] });
  });

  it("S16: maps $url into echo's message and returns its native text unchanged", async () => {
    assert.ok(echo.read);
    const outcome = await echo.read({ url: "https://example.com/a?b=c#d" }, context());
    assert.deepEqual(outcome.content, [{ type: "text", text: "Echo: https://example.com/a?b=c#d" }]);
  });

  it("S05: declares no focus and refuses a focused read without calling", async () => {
    assert.equal(echo.capabilities.focus, false);
    assert.ok(echo.read);
    const read = echo.read;
    await assert.rejects(
      () => read({ url: "https://example.com/", focus: "x" }, context()),
      (error: unknown) => isEvidentError(error) && error.code === "focus_unsupported",
    );
  });

  it("S18: a real server's structured copy of its JSON text is not appended", async () => {
    assert.ok(weather.read);
    const outcome = await weather.read({ url: "https://example.com/ignored" }, context());
    assert.deepEqual(
      outcome.content.map((part) => part.type),
      ["text"],
    );
    assert.match((outcome.content[0] as { text: string }).text, /Light rain/);
  });

  it("S15: no server-everything child remains after close()", async () => {
    assert.ok(echo.search);
    await echo.search({ query: "ping", maxResults: 1 }, context());
    const pid = echo.upstreamPid;
    assert.ok(pid !== null && processAlive(pid));
    await echo.close();
    assert.equal(processAlive(pid), false);
  });
});
