/**
 * Each preset's binding against the fixture upstream that exposes the official servers' tool
 * names, argument names and output layouts: exactly which arguments we send, how the output
 * becomes rows, native content and metadata, and how focus is (or is not) forwarded. Only the
 * connection is replaced (a stdio child or loopback HTTP): no test contacts a vendor.
 */

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { resolveSettings, settingValue } from "../../../src/config/settings.js";
import { isEvidentError } from "../../../src/core/errors.js";
import { silentLogger } from "../../../src/core/logger.js";
import { createHttpClient } from "../../../src/net/client.js";
import { type ProviderContext, ProviderError } from "../../../src/web/provider.js";
import { type McpPresetId, mcpProviderConfigSchema } from "../../../src/web/providers/mcp/binding.js";
import {
  KEYLESS_DEFAULT_SEARCH_PRESETS,
  MCP_PRESETS,
  presetEntries,
  presetProviderId,
} from "../../../src/web/providers/mcp/presets.js";
import { createMcpProvider, type McpProvider } from "../../../src/web/providers/mcp/provider.js";
import { context } from "./context.js";
import { type HttpUpstream, startHttpUpstream } from "./fixtures/http-upstream.js";
import { type StdioUpstream, stdioUpstream } from "./fixtures/stdio-upstream.js";
import { FAKE_SECRET } from "./fixtures/upstream.js";

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("expected a rejection");
}

describe("mcp presets against the fixture upstream (stdio)", () => {
  let upstream: StdioUpstream;
  const providers = new Map<McpPresetId, McpProvider>();
  before(() => {
    upstream = stdioUpstream();
    for (const preset of ["exa", "tavily", "firecrawl", "jina"] as const) {
      providers.set(
        preset,
        createMcpProvider(`mcp-${preset}`, { type: "mcp", preset, connection: upstream.connection }),
      );
    }
  });
  after(async () => {
    await Promise.all([...providers.values()].map((provider) => provider.close()));
    upstream.dispose();
  });

  const provider = (preset: McpPresetId): McpProvider => {
    const found = providers.get(preset);
    assert.ok(found);
    return found;
  };
  const lastCall = (tool: string) =>
    upstream
      .events()
      .filter((e) => e.event === "call" && e.tool === tool)
      .at(-1);

  it("exa: web_search_exa with query and numResults; rows from the --- blocks", async () => {
    const exa = provider("exa");
    assert.ok(exa.search);
    const outcome = await exa.search({ query: "mcp", maxResults: 3, timeRange: "week" }, context());
    assert.deepEqual(lastCall("web_search_exa")?.args, { query: "mcp", numResults: 3 });
    assert.equal(outcome.results.length, 3);
    assert.deepEqual(outcome.results[0], {
      title: "Result 1 for mcp",
      url: "https://example.com/exa/1",
      snippet: "Highlight 1 line one.\nHighlight 1 line two.",
      publishedAt: "2026-01-02",
      author: "Author 1",
    });
    assert.deepEqual(outcome.warnings, ['mcp-exa cannot filter by time; timeRange "week" was not applied']);
  });

  it("exa: web_fetch_exa with urls [url] and a large maxCharacters; native text kept", async () => {
    const exa = provider("exa");
    assert.ok(exa.read);
    const outcome = await exa.read({ url: "https://a.example/page?x=1" }, context());
    assert.deepEqual(lastCall("web_fetch_exa")?.args, {
      urls: ["https://a.example/page?x=1"],
      maxCharacters: 40_000,
    });
    assert.equal(outcome.title, "Exa Page");
    assert.deepEqual(outcome.content, [
      {
        type: "text",
        text: "# Exa Page\nURL: https://a.example/page?x=1\nPublished: 2026-01-02\n\nExa page body.",
      },
    ]);
    assert.equal(exa.capabilities.focus, false);
  });

  it("tavily: tavily_search maps query, max_results and time_range; answer and rows from its text", async () => {
    const tavily = provider("tavily");
    assert.ok(tavily.search);
    const outcome = await tavily.search({ query: "news", maxResults: 2, timeRange: "day" }, context());
    assert.deepEqual(lastCall("tavily_search")?.args, {
      query: "news",
      max_results: 2,
      time_range: "day",
      search_depth: "basic",
      topic: "general",
    });
    assert.equal(outcome.answer, "Tavily answer.");
    assert.deepEqual(outcome.results, [
      { title: "Tavily 1", url: "https://example.com/tavily/1", snippet: "Snippet 1" },
      { title: "Tavily 2", url: "https://example.com/tavily/2", snippet: "Snippet 2" },
    ]);
    assert.equal(outcome.warnings, undefined);
  });

  it("S05: tavily forwards focus as tavily_extract's query", async () => {
    const tavily = provider("tavily");
    assert.ok(tavily.read);
    assert.equal(tavily.capabilities.focus, true);
    const outcome = await tavily.read({ url: "https://a.example/doc", focus: "pricing" }, context());
    assert.deepEqual(lastCall("tavily_extract")?.args, {
      urls: ["https://a.example/doc"],
      extract_depth: "basic",
      format: "markdown",
      query: "pricing",
    });
    assert.match(JSON.stringify(outcome.content), /Extracted https:\/\/a\.example\/doc for pricing/);
    await tavily.read({ url: "https://a.example/doc" }, context());
    assert.deepEqual(lastCall("tavily_extract")?.args, {
      urls: ["https://a.example/doc"],
      extract_depth: "basic",
      format: "markdown",
    });
  });

  it("firecrawl: firecrawl_search with query and limit; rows from the JSON web list", async () => {
    const firecrawl = provider("firecrawl");
    assert.ok(firecrawl.search);
    const outcome = await firecrawl.search({ query: "docs", maxResults: 2 }, context());
    assert.deepEqual(lastCall("firecrawl_search")?.args, { query: "docs", limit: 2 });
    assert.deepEqual(outcome.results[1], {
      title: "Firecrawl 2",
      url: "https://example.com/firecrawl/2",
      snippet: "Description 2",
    });
  });

  it("S17: firecrawl_scrape with Markdown and main content; usage projected from the document", async () => {
    const firecrawl = provider("firecrawl");
    assert.ok(firecrawl.read);
    const outcome = await firecrawl.read({ url: "https://a.example/fc" }, context());
    assert.deepEqual(lastCall("firecrawl_scrape")?.args, {
      url: "https://a.example/fc",
      formats: ["markdown"],
      onlyMainContent: true,
    });
    assert.equal(outcome.title, "Firecrawl Page");
    assert.deepEqual(outcome.metadata, {
      creditsUsed: 1,
      cacheState: "miss",
      cachedAt: "2026-01-04T05:06:07.000Z",
    });
    assert.equal(outcome.content.length, 1);
    assert.equal(outcome.content[0]?.type, "text", "the original JSON text is kept as it came");
  });

  it("S17: structured usage wins over the JSON text; invalid or nested usage is left out", async () => {
    const firecrawl = provider("firecrawl");
    assert.ok(firecrawl.read);
    const diff = await firecrawl.read({ url: "https://a.example/fc:structured-diff" }, context());
    assert.deepEqual(diff.metadata, {
      creditsUsed: 5,
      cacheState: "hit",
      cachedAt: "2026-01-04T05:06:07.000Z",
    });
    assert.deepEqual(
      diff.content.map((part) => part.type),
      ["text", "json"],
      "a structured copy that differs is distinct evidence",
    );
    const invalid = await firecrawl.read({ url: "https://a.example/fc:invalid" }, context());
    assert.equal(invalid.metadata, undefined);
    const nested = await firecrawl.read({ url: "https://a.example/fc:nested" }, context());
    assert.equal(nested.metadata, undefined);
  });

  it("S18: a structured copy equal to the JSON text (any key order) is not appended", async () => {
    const firecrawl = provider("firecrawl");
    assert.ok(firecrawl.read);
    const outcome = await firecrawl.read({ url: "https://a.example/fc:structured" }, context());
    assert.deepEqual(
      outcome.content.map((part) => part.type),
      ["text"],
    );
  });

  it("S05: firecrawl maps no focus: a focused read is focus_unsupported and makes no call", async () => {
    const firecrawl = provider("firecrawl");
    assert.ok(firecrawl.read);
    assert.equal(firecrawl.capabilities.focus, false);
    const calls = upstream.events().filter((e) => e.event === "call").length;
    const error = await rejection(firecrawl.read({ url: "https://a.example/fc", focus: "price" }, context()));
    assert.ok(isEvidentError(error));
    assert.equal(error.code, "focus_unsupported");
    assert.equal(upstream.events().filter((e) => e.event === "call").length, calls, "no upstream call");
  });

  it("jina: search_web with query and num; one row per YAML block", async () => {
    const jina = provider("jina");
    assert.ok(jina.search);
    const outcome = await jina.search({ query: "jina", maxResults: 2 }, context());
    assert.deepEqual(lastCall("search_web")?.args, { query: "jina", num: 2 });
    assert.deepEqual(outcome.results, [
      {
        title: "Jina: 1",
        url: "https://example.com/jina/1",
        snippet: "Jina description 1 continued.",
        publishedAt: "2026-01-03",
      },
      {
        title: "Jina: 2",
        url: "https://example.com/jina/2",
        snippet: "Jina description 2 continued.",
        publishedAt: "2026-01-03",
      },
    ]);
  });

  it("S05: jina forwards focus as read_url's question, and reads without it otherwise", async () => {
    const jina = provider("jina");
    assert.ok(jina.read);
    assert.equal(jina.capabilities.focus, true);
    const focused = await jina.read({ url: "https://a.example/j", focus: "what answers?" }, context());
    assert.deepEqual(lastCall("read_url")?.args, { url: "https://a.example/j", question: "what answers?" });
    assert.match(JSON.stringify(focused.content), /The passage that answers\./);
    const plain = await jina.read({ url: "https://a.example/j" }, context());
    assert.deepEqual(lastCall("read_url")?.args, { url: "https://a.example/j" });
    assert.equal(plain.title, "Jina Page");
  });

  it("an upstream isError is a provider failure whose reason never repeats the upstream text", async () => {
    const exa = provider("exa");
    assert.ok(exa.search);
    const error = await rejection(exa.search({ query: "fault:error", maxResults: 1 }, context()));
    assert.ok(error instanceof ProviderError);
    assert.equal(error.kind, "upstream");
    assert.equal(error.reason, "mcp-exa upstream tool web_search_exa reported HTTP 429");
    assert.ok(!error.message.includes(FAKE_SECRET));
  });
});

describe("mcp presets: credentials and connection over HTTP", () => {
  let upstream: HttpUpstream;
  // An HTTP upstream is reached through the provider context's client, as every provider's is.
  const http = createHttpClient();
  const httpContext = (): ProviderContext => ({
    signal: new AbortController().signal,
    http,
    logger: silentLogger,
  });
  before(async () => {
    upstream = await startHttpUpstream();
  });
  after(async () => {
    await http.close();
    await upstream.close();
  });

  it("resolves credential references at connect time into the configured headers", async () => {
    const provider = createMcpProvider(
      "keyed",
      {
        type: "mcp",
        preset: "jina",
        connection: {
          url: upstream.url,
          headers: { Authorization: { env: "FIXTURE_JINA_KEY", prefix: "Bearer " }, "x-api-key": "literal" },
        },
      },
      { env: { FIXTURE_JINA_KEY: "jina-key-123" } },
    );
    try {
      assert.ok(provider.read);
      await provider.read({ url: "https://a.example/k" }, httpContext());
      const init = upstream.events.filter((event) => event.event === "initialize").at(-1);
      assert.equal(init?.authorization, "Bearer jina-key-123");
      assert.equal(init?.apiKey, "literal");
    } finally {
      await provider.close();
    }
  });

  it("S08: a missing credential is a configuration failure naming the variable, never an anonymous call", async () => {
    const provider = createMcpProvider(
      "keyless-by-mistake",
      {
        type: "mcp",
        preset: "exa",
        connection: { url: upstream.url, headers: { "x-api-key": { env: "NOPE_KEY" } } },
      },
      { env: {} },
    );
    try {
      assert.ok(provider.search);
      const before = upstream.events.length;
      const error = await rejection(provider.search({ query: "q", maxResults: 1 }, httpContext()));
      assert.ok(error instanceof ProviderError);
      assert.equal(error.kind, "configuration");
      assert.equal(
        error.reason,
        "keyless-by-mistake needs the environment variable NOPE_KEY, which is not set",
      );
      assert.equal(upstream.events.length, before, "nothing reached the upstream");
    } finally {
      await provider.close();
    }
  });
});

describe("mcp preset definitions", () => {
  it("every preset is a valid provider entry and binds the official tool names", () => {
    const tools = Object.fromEntries(
      Object.values(MCP_PRESETS).map((preset) => [preset.id, [preset.search?.tool, preset.read?.tool]]),
    );
    assert.deepEqual(tools, {
      "exa-hosted": ["web_search_exa", "web_fetch_exa"],
      exa: ["web_search_exa", "web_fetch_exa"],
      tavily: ["tavily_search", "tavily_extract"],
      firecrawl: ["firecrawl_search", "firecrawl_scrape"],
      jina: ["search_web", "read_url"],
    });
    for (const preset of Object.values(MCP_PRESETS)) {
      assert.equal(
        mcpProviderConfigSchema.safeParse({
          type: "mcp",
          connection: preset.connection,
          search: preset.search,
          read: preset.read,
        }).success,
        true,
        preset.id,
      );
    }
  });

  it("focus capability follows the binding: Tavily and Jina map it, Exa and Firecrawl do not", () => {
    const focus = Object.fromEntries(
      (["exa-hosted", "exa", "tavily", "firecrawl", "jina"] as const).map((preset) => [
        preset,
        createMcpProvider(`p-${preset}`, { type: "mcp", preset }).capabilities.focus,
      ]),
    );
    assert.deepEqual(focus, { "exa-hosted": false, exa: false, tavily: true, firecrawl: false, jina: true });
    const custom = createMcpProvider("fc-focus", {
      type: "mcp",
      preset: "firecrawl",
      read: {
        tool: "firecrawl_scrape",
        arguments: { url: "$url", formats: ["markdown"], jsonOptions: { prompt: "$focus" } },
      },
    });
    assert.equal(custom.capabilities.focus, true, "an operator binding may add focus");
  });

  it("keyless default: the Exa hosted preset is anonymous and keyless, but joins no default route", () => {
    const hosted = MCP_PRESETS["exa-hosted"];
    assert.equal(hosted.anonymous, true);
    assert.ok(!("headers" in hosted.connection) || hosted.connection.headers === undefined);
    assert.equal(createMcpProvider("h", { type: "mcp", preset: "exa-hosted" }).anonymous, true);
    assert.equal(createMcpProvider("k", { type: "mcp", preset: "exa" }).anonymous, false);
    assert.deepEqual(KEYLESS_DEFAULT_SEARCH_PRESETS, []);
  });

  it("EVIDENT_MCP_PRESETS enables presets as mcp-<preset> providers and reports unknown names", () => {
    const { entries, unknown } = presetEntries(
      settingValue(
        resolveSettings({ EVIDENT_MCP_PRESETS: " exa-hosted, tavily,,exa-hosted,bogus " }).web.mcpPresets,
      ),
    );
    assert.deepEqual(entries, [
      { id: "mcp-exa-hosted", entry: { type: "mcp", preset: "exa-hosted" } },
      { id: "mcp-tavily", entry: { type: "mcp", preset: "tavily" } },
    ]);
    assert.deepEqual(unknown, ["bogus"]);
    assert.deepEqual(presetEntries(settingValue(resolveSettings({}).web.mcpPresets)).entries, []);
    assert.equal(presetProviderId("jina"), "mcp-jina");
  });
});
