/**
 * The binding as data: the config schema, how our inputs map into upstream arguments, and how an
 * upstream result becomes native content, validated metadata and rows. Pure functions, no server.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bindingUses, mapArguments } from "../../../src/web/providers/mcp/arguments.js";
import { mcpProviderConfigSchema, type ToolBinding } from "../../../src/web/providers/mcp/binding.js";
import {
  firecrawlMetadata,
  nativeContent,
  upstreamErrorReason,
} from "../../../src/web/providers/mcp/output.js";
import { parseSearch, yamlScalars } from "../../../src/web/providers/mcp/rows.js";
import { rowsOf, searchOutcome } from "../../../src/web/providers/shared/outcome.js";
import { deepEqual } from "../../../src/web/providers/shared/values.js";

describe("mcpProviderConfigSchema", () => {
  it("accepts a preset alone", () => {
    assert.equal(mcpProviderConfigSchema.safeParse({ type: "mcp", preset: "exa-hosted" }).success, true);
  });

  it("accepts a custom stdio binding with credential references", () => {
    const parsed = mcpProviderConfigSchema.safeParse({
      type: "mcp",
      connection: { command: "npx", args: ["-y", "some-mcp"], env: { KEY: { env: "SOME_KEY" } } },
      read: { tool: "fetch", arguments: { url: "$url", question: "$focus", depth: 2, flags: [true, null] } },
      attemptDeadlineMs: 5_000,
    });
    assert.equal(parsed.success, true);
  });

  it("accepts a custom HTTP binding with a prefixed header reference", () => {
    const parsed = mcpProviderConfigSchema.safeParse({
      type: "mcp",
      connection: {
        url: "https://mcp.example/v1",
        headers: { Authorization: { env: "K", prefix: "Bearer " } },
      },
      search: { tool: "search", arguments: { q: "$query", n: "$maxResults", when: "$timeRange" } },
    });
    assert.equal(parsed.success, true);
  });

  it("names an unknown placeholder by its path", () => {
    const parsed = mcpProviderConfigSchema.safeParse({
      type: "mcp",
      connection: { url: "https://mcp.example/v1" },
      search: { tool: "search", arguments: { q: "$querry" } },
    });
    assert.equal(parsed.success, false);
    assert.deepEqual(parsed.error?.issues[0]?.path, ["search", "arguments", "q"]);
  });

  it("rejects unknown keys, a missing connection without preset, and a binding-less entry", () => {
    assert.equal(mcpProviderConfigSchema.safeParse({ type: "mcp", preset: "exa", extra: 1 }).success, false);
    const noConnection = mcpProviderConfigSchema.safeParse({ type: "mcp", search: { tool: "s" } });
    assert.deepEqual(noConnection.error?.issues[0]?.path, ["connection"]);
    const noBinding = mcpProviderConfigSchema.safeParse({ type: "mcp", connection: { command: "x" } });
    assert.deepEqual(noBinding.error?.issues[0]?.path, ["search"]);
    assert.equal(mcpProviderConfigSchema.safeParse({ type: "mcp", preset: "nope" }).success, false);
    assert.equal(
      mcpProviderConfigSchema.safeParse({
        type: "mcp",
        connection: { url: "file:///etc/passwd" },
        search: { tool: "s" },
      }).success,
      false,
    );
  });
});

describe("mapArguments", () => {
  const binding: ToolBinding = {
    tool: "t",
    arguments: {
      query: "$query",
      max: "$maxResults",
      when: "$timeRange",
      urls: ["$url"],
      nested: { question: "$focus", constant: "basic" },
      flag: true,
    },
  };

  it("replaces placeholders with our inputs and keeps constants", () => {
    assert.deepEqual(
      mapArguments(binding, {
        query: "q",
        maxResults: 7,
        timeRange: "week",
        url: "https://a.example/",
        focus: "f",
      }),
      {
        query: "q",
        max: 7,
        when: "week",
        urls: ["https://a.example/"],
        nested: { question: "f", constant: "basic" },
        flag: true,
      },
    );
  });

  it("leaves out keys and array elements whose input is absent, never sending them empty", () => {
    assert.deepEqual(mapArguments(binding, { query: "q", maxResults: 3 }), {
      query: "q",
      max: 3,
      urls: [],
      nested: { constant: "basic" },
      flag: true,
    });
  });

  it("finds placeholders anywhere in the binding", () => {
    assert.equal(bindingUses(binding, "$focus"), true);
    assert.equal(bindingUses({ tool: "t", arguments: { url: "$url" } }, "$focus"), false);
    assert.equal(bindingUses(undefined, "$focus"), false);
  });
});

describe("nativeContent", () => {
  it("S16: keeps text blocks in upstream order, unchanged, and puts structured content after them", () => {
    const native = nativeContent({
      content: [
        { type: "text", text: "second? no, first" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "text", text: "  then this, spacing kept  " },
        { type: "resource_link", uri: "https://linked.example/doc", name: "doc" },
      ],
      structuredContent: { answer: 42 },
    });
    assert.deepEqual(native.parts, [
      { type: "text", text: "second? no, first" },
      { type: "text", text: "  then this, spacing kept  " },
      { type: "json", value: { answer: 42 } },
    ]);
    assert.deepEqual(native.links, ["https://linked.example/doc"]);
    assert.equal(native.skipped, 1);
  });

  it("S18: drops the structured copy when one JSON text block holds every field with deeply equal values", () => {
    const structured = { b: [1, { c: "x" }], a: "same" };
    const native = nativeContent({
      content: [{ type: "text", text: JSON.stringify({ a: "same", b: [1, { c: "x" }], extra: true }) }],
      structuredContent: structured,
    });
    assert.deepEqual(
      native.parts.map((part) => part.type),
      ["text"],
    );
  });

  it("S18: keeps the structured copy when a value differs, an array is reordered, or fields are split", () => {
    const cases = [
      [{ a: "same", b: [1, 2] }, [JSON.stringify({ a: "same", b: [2, 1] })]],
      [{ a: "same" }, [JSON.stringify({ a: "Same" })]],
      [{ a: 1, b: 2 }, [JSON.stringify({ a: 1 }), JSON.stringify({ b: 2 })]],
      [{ a: 1 }, ["not json { a: 1 }"]],
    ] as const;
    for (const [structured, texts] of cases) {
      const native = nativeContent({
        content: texts.map((text) => ({ type: "text", text })),
        structuredContent: structured,
      });
      assert.equal(native.parts.at(-1)?.type, "json", JSON.stringify(structured));
    }
  });

  it("compares JSON with key order irrelevant and arrays exact", () => {
    assert.equal(deepEqual({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 }), true);
    assert.equal(deepEqual([1, 2], [2, 1]), false);
    assert.equal(deepEqual({ a: 1 }, { a: 1, b: undefined }), false);
  });
});

describe("firecrawlMetadata", () => {
  const document = (metadata: Record<string, unknown>) => ({ markdown: "# Page", metadata });

  it("S17: projects only validated creditsUsed, cacheState and cachedAt", () => {
    const metadata = firecrawlMetadata({
      content: [
        {
          type: "text",
          text: JSON.stringify(
            document({
              creditsUsed: 2,
              cacheState: "hit",
              cachedAt: "2026-01-04T05:06:07Z",
              title: "T",
              costUsd: 9,
            }),
          ),
        },
      ],
    });
    assert.deepEqual(metadata, { creditsUsed: 2, cacheState: "hit", cachedAt: "2026-01-04T05:06:07Z" });
  });

  it("S17: structured content wins over JSON text, never merged or summed", () => {
    const metadata = firecrawlMetadata({
      content: [{ type: "text", text: JSON.stringify(document({ creditsUsed: 1, cachedAt: "2026-01-01" })) }],
      structuredContent: document({ creditsUsed: 5 }),
    });
    assert.deepEqual(metadata, { creditsUsed: 5 });
  });

  it("S17: invalid values are dropped and JSON text is the fallback", () => {
    const metadata = firecrawlMetadata({
      content: [{ type: "text", text: JSON.stringify(document({ creditsUsed: 3, cacheState: "miss" })) }],
      structuredContent: document({ creditsUsed: -1, cacheState: "stale", cachedAt: "yesterday-ish" }),
    });
    assert.deepEqual(metadata, { creditsUsed: 3, cacheState: "miss" });
  });

  it("S17: unknown or nested layouts stay opaque and page text is never searched", () => {
    assert.equal(
      firecrawlMetadata({
        content: [{ type: "text", text: JSON.stringify({ data: document({ creditsUsed: 1 }) }) }],
      }),
      undefined,
    );
    assert.equal(
      firecrawlMetadata({
        content: [{ type: "text", text: "Markdown page. creditsUsed: 7, cacheState: hit" }],
      }),
      undefined,
    );
    assert.equal(firecrawlMetadata({ content: [], structuredContent: { creditsUsed: 1 } }), undefined);
  });
});

describe("upstreamErrorReason", () => {
  it("never repeats upstream text, keeping at most an HTTP status", () => {
    const reason = upstreamErrorReason("mcp-exa", "web_search_exa", {
      content: [{ type: "text", text: "Search error (429): key sk-secret-123 exhausted at internal.host" }],
      isError: true,
    });
    assert.equal(reason, "mcp-exa upstream tool web_search_exa reported HTTP 429");
    assert.equal(
      upstreamErrorReason("p", "t", { content: [{ type: "text", text: "boom sk-secret" }], isError: true }),
      "p upstream tool t reported an error",
    );
  });
});

describe("parseSearch", () => {
  it("reads Exa blocks separated by --- lines", () => {
    const text = [
      "Title: One\nURL: https://one.example/\nPublished: 2026-01-01\nAuthor: Ann\nHighlights:\nFirst.\nStill first.",
      "Title: Two\nURL: https://two.example/\nText: Body two",
      "Title: No URL here",
    ].join("\n\n---\n\n");
    const parsed = parseSearch("exa", { content: [{ type: "text", text }] });
    assert.deepEqual(parsed.rows, [
      {
        title: "One",
        url: "https://one.example/",
        snippet: "First.\nStill first.",
        publishedAt: "2026-01-01",
        author: "Ann",
      },
      { title: "Two", url: "https://two.example/", snippet: "Body two" },
    ]);
  });

  it("reads Tavily's answer and Title/URL/Content groups", () => {
    const text =
      "Answer: It is 42.\nDetailed Results:\n\nTitle: A\nURL: https://a.example/\nContent: Snippet A\nRaw Content: raw\n\nTitle: B\nURL: https://b.example/\nContent: Snippet B";
    const parsed = parseSearch("tavily", { content: [{ type: "text", text }] });
    assert.equal(parsed.answer, "It is 42.");
    assert.deepEqual(parsed.rows, [
      { title: "A", url: "https://a.example/", snippet: "Snippet A" },
      { title: "B", url: "https://b.example/", snippet: "Snippet B" },
    ]);
  });

  it("reads Jina's one YAML block per result", () => {
    const parsed = parseSearch("jina", {
      content: [
        {
          type: "text",
          text: 'title: "Quoted: title"\nurl: https://j.example/1\ndescription: >-\n  folded\n  text\ndate: 2026-01-03\n',
        },
        { type: "text", text: "title: 'It''s'\nurl: https://j.example/2\n" },
      ],
    });
    assert.deepEqual(parsed.rows, [
      {
        title: "Quoted: title",
        url: "https://j.example/1",
        snippet: "folded text",
        publishedAt: "2026-01-03",
      },
      { title: "It's", url: "https://j.example/2" },
    ]);
    assert.deepEqual(yamlScalars("content: |-\n  a\n  b\nnext: 1"), { content: "a\nb", next: "1" });
  });

  it("reads JSON result arrays (Firecrawl's web list), structured content first", () => {
    const parsed = parseSearch("firecrawl", {
      content: [
        { type: "text", text: JSON.stringify({ web: [{ url: "https://t.example/", title: "Text" }] }) },
      ],
      structuredContent: {
        data: { web: [{ url: "https://s.example/", title: "Structured", description: "d" }] },
      },
    });
    assert.deepEqual(parsed.rows, [{ title: "Structured", url: "https://s.example/", snippet: "d" }]);
  });

  it("keeps a row only for a URL an HTTP adapter would keep: trimmed, parsed, no whitespace inside", () => {
    const web = [
      { url: "  https://kept.example/a  ", title: "Padded" },
      { url: "http://[::1", title: "Unparsable" },
      { url: "https://x.example/a b", title: "Text after a URL" },
      { url: "ftp://x.example/", title: "Not http" },
    ];
    const upstream = parseSearch("json", { content: [{ type: "text", text: JSON.stringify({ web }) }] });
    const vendor = searchOutcome({ rows: rowsOf(web, (item) => item), maxResults: 10 });
    const expected = [{ title: "Padded", url: "https://kept.example/a" }];
    assert.deepEqual(upstream.rows, expected);
    assert.deepEqual(vendor.results, expected);
  });

  it("yields no rows for an unknown layout rather than guessing", () => {
    assert.deepEqual(
      parseSearch("exa", { content: [{ type: "text", text: "free prose https://x.example/" }] }).rows,
      [],
    );
    assert.deepEqual(
      parseSearch("none", { content: [{ type: "text", text: "Title: A\nURL: https://a/" }] }).rows,
      [],
    );
  });
});
