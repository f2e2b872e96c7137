/**
 * MCP bindings behind the real web router: the focus rule end to end (S05 refusal without a call,
 * S06 warning when forwarded), anonymous provenance for a keyless preset, and the Firecrawl usage
 * projection reaching the envelope. The upstream is the fixture as a stdio child; the agent URL
 * check resolves names through a stub that answers a public address, so nothing leaves loopback.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { isEvidentError } from "../../../src/core/errors.js";
import type { Provider } from "../../../src/web/provider.js";
import { createMcpProvider, type McpProvider } from "../../../src/web/providers/mcp/provider.js";
import { WebRouter } from "../../../src/web/router.js";
import { unusedHttp } from "./context.js";
import { type StdioUpstream, stdioUpstream } from "./fixtures/stdio-upstream.js";

describe("mcp providers behind the web router", () => {
  let upstream: StdioUpstream;
  let providers: Map<string, McpProvider>;
  let router: WebRouter;

  before(() => {
    upstream = stdioUpstream();
    const connection = upstream.connection;
    providers = new Map([
      [
        "mcp-exa-hosted",
        createMcpProvider("mcp-exa-hosted", { type: "mcp", preset: "exa-hosted", connection }),
      ],
      ["mcp-jina", createMcpProvider("mcp-jina", { type: "mcp", preset: "jina", connection })],
      ["mcp-firecrawl", createMcpProvider("mcp-firecrawl", { type: "mcp", preset: "firecrawl", connection })],
    ]);
    router = new WebRouter({
      providers: {
        has: (id) => providers.has(id),
        ids: () => [...providers.keys()],
        get: async (id) => providers.get(id) as Provider,
      },
      http: unusedHttp,
      searchRoute: ["mcp-exa-hosted"],
      readRoute: ["mcp-firecrawl"],
      callDeadlineMs: 20_000,
      envelopeBudgetChars: 40_000,
      allowPrivateNetwork: false,
      lookup: (_hostname, options, callback) => {
        if (options.all === true) callback(null, [{ address: "93.184.215.14", family: 4 }]);
        else callback(null, "93.184.215.14", 4);
      },
    });
  });
  after(async () => {
    await Promise.all([...providers.values()].map((provider) => provider.close()));
    upstream.dispose();
  });

  const calls = () => upstream.events().filter((event) => event.event === "call");

  it("S06: focus forwarded to a binding that maps it carries the may-omit-content warning", async () => {
    const result = await router.read(
      { url: "https://example.com/doc", reader: "mcp-jina", focus: "the refund policy" },
      new AbortController().signal,
    );
    assert.deepEqual(calls().at(-1)?.args, { url: "https://example.com/doc", question: "the refund policy" });
    assert.ok(
      result.data.warnings.some((warning) => /focus was forwarded to mcp-jina/.test(warning)),
      JSON.stringify(result.data.warnings),
    );
    assert.equal(result.data.provenance.url, "https://example.com/doc");
  });

  it("S05: a focused read through a reader without $focus is focus_unsupported and calls nothing", async () => {
    const before = calls().length;
    await assert.rejects(
      () =>
        router.read(
          { url: "https://example.com/doc", reader: "mcp-firecrawl", focus: "x" },
          new AbortController().signal,
        ),
      (error: unknown) => isEvidentError(error) && error.code === "focus_unsupported",
    );
    assert.equal(calls().length, before);
  });

  it("S17: the Firecrawl usage projection reaches the envelope's metadata", async () => {
    const result = await router.read({ url: "https://example.com/page" }, new AbortController().signal);
    assert.deepEqual(result.data.metadata, {
      creditsUsed: 1,
      cacheState: "miss",
      cachedAt: "2026-01-04T05:06:07.000Z",
    });
    assert.equal(result.data.title, "Firecrawl Page");
  });

  it("S08: a keyless preset is named anonymous in provenance", async () => {
    const result = await router.search(
      { query: "anonymous upstream", maxResults: 2 },
      new AbortController().signal,
    );
    assert.deepEqual(result.data.provenance.used, ["mcp-exa-hosted"]);
    assert.deepEqual(result.data.provenance.anonymous, ["mcp-exa-hosted"]);
  });
});
