import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WEB_ENVELOPE_MIN_BUDGET_CHARS } from "../../src/core/limits.js";
import { buildReadEnvelope, buildSearchEnvelope, type Provenance } from "../../src/web/envelope.js";

const provenance: Provenance = {
  tool: "web_read",
  url: "https://example.com/page?x=1",
  mode: "route",
  attempted: ["a", "b"],
  used: ["b"],
  anonymous: ["b"],
  retrievedAt: "2026-01-01T00:00:00.000Z",
};
const warnings = ["a failed before b answered", "b may omit content"];

describe("web envelope: read", () => {
  it("S21: a huge page fits the budget; provenance and warnings are never clipped; truncated is true", () => {
    const page = `# Title\n\n${'Lorem ipsum "quoted" \\ é 😀 dolor sit amet.\n'.repeat(40_000)}`;
    for (const budget of [WEB_ENVELOPE_MIN_BUDGET_CHARS, 5_000, 40_000]) {
      const fitted = buildReadEnvelope({
        provenance,
        warnings,
        outcome: { title: "T", content: [{ type: "text", text: page }] },
        budgetChars: budget,
      });
      assert.ok(fitted.json.length <= budget, `${fitted.json.length} > ${budget}`);
      const data = JSON.parse(fitted.json);
      assert.deepEqual(data.provenance, provenance);
      assert.deepEqual(data.warnings, warnings);
      assert.equal(data.truncated, true);
      const kept = data.content[0].text as string;
      assert.ok(page.startsWith(kept));
      assert.ok(kept.length > 0);
      assert.deepEqual(data.contentChars, { kept: kept.length, total: page.length });
      assert.deepEqual(fitted.data, data);
    }
  });

  it("S21: a page that fits is whole and truncated is false", () => {
    const fitted = buildReadEnvelope({
      provenance,
      warnings: [],
      outcome: { content: [{ type: "text", text: "short page" }] },
      budgetChars: 40_000,
    });
    assert.equal(fitted.data.truncated, false);
    assert.deepEqual(fitted.data.content, [{ type: "text", text: "short page" }]);
  });

  it("S21: clipping keeps the longest prefix across parts, in order", () => {
    const parts = [
      { type: "text" as const, text: "first part. ".repeat(50) },
      { type: "json" as const, value: { a: "b".repeat(200) } },
      { type: "text" as const, text: "last part. ".repeat(500) },
    ];
    const fitted = buildReadEnvelope({
      provenance,
      warnings: [],
      outcome: { content: parts },
      budgetChars: 2_500,
    });
    assert.ok(fitted.json.length <= 2_500);
    assert.equal(fitted.data.truncated, true);
    const content = fitted.data.content;
    assert.deepEqual(content[0], parts[0]);
    assert.deepEqual(content[1], parts[1]);
    assert.equal(content[2]?.type, "text");
    assert.ok((parts[2]?.text ?? "").startsWith((content[2] as { text: string }).text));
  });

  it("S16: native text is kept byte for byte, in order", () => {
    const text = "  Keep *this* exactly\r\n\twith <html> & \u0000 odd chars  ";
    const fitted = buildReadEnvelope({
      provenance,
      warnings: [],
      outcome: {
        content: [
          { type: "text", text },
          { type: "text", text: "second" },
        ],
      },
      budgetChars: 40_000,
    });
    assert.deepEqual(fitted.data.content, [
      { type: "text", text },
      { type: "text", text: "second" },
    ]);
  });

  it("S18: a JSON part is not repeated when a text block already holds the same document", () => {
    const value = { markdown: "# hi", metadata: { title: "x", creditsUsed: 1 } };
    const text = JSON.stringify({ metadata: { creditsUsed: 1, title: "x" }, markdown: "# hi" }, null, 2);
    const same = buildReadEnvelope({
      provenance,
      warnings: [],
      outcome: {
        content: [
          { type: "text", text },
          { type: "json", value },
        ],
      },
      budgetChars: 40_000,
    });
    assert.deepEqual(same.data.content, [{ type: "text", text }]);
    const different = buildReadEnvelope({
      provenance,
      warnings: [],
      outcome: {
        content: [
          { type: "text", text },
          { type: "json", value: { ...value, extra: true } },
        ],
      },
      budgetChars: 40_000,
    });
    assert.equal(different.data.content.length, 2);
  });

  it("S17: only validated allowlisted metadata is kept", () => {
    const fitted = buildReadEnvelope({
      provenance,
      warnings: [],
      outcome: {
        content: [],
        metadata: {
          creditsUsed: 2,
          cacheState: "hit",
          cachedAt: "2026-01-01T00:00:00Z",
          secret: "x",
        } as never,
      },
      budgetChars: 40_000,
    });
    assert.deepEqual(fitted.data.metadata, {
      creditsUsed: 2,
      cacheState: "hit",
      cachedAt: "2026-01-01T00:00:00Z",
    });
    const invalid = buildReadEnvelope({
      provenance,
      warnings: [],
      outcome: {
        content: [],
        metadata: { creditsUsed: -1, cacheState: "warm", cachedAt: "yesterday-ish" } as never,
      },
      budgetChars: 40_000,
    });
    assert.equal(invalid.data.metadata, undefined);
  });

  it("keeps a page's stated description in the metadata, not a blank one", () => {
    const read = (description: string) =>
      buildReadEnvelope({
        provenance,
        warnings: [],
        outcome: { content: [], metadata: { description } },
        budgetChars: 40_000,
      }).data.metadata;
    assert.deepEqual(read("A folding garden chair of oiled oak."), {
      description: "A folding garden chair of oiled oak.",
    });
    assert.equal(read("   "), undefined);
  });

  it("S19: URLs written in the content are indexed too, after the reported links", () => {
    const fitted = buildReadEnvelope({
      provenance,
      warnings: [],
      outcome: {
        content: [
          {
            type: "text",
            text: "See [docs](https://docs.example.com/a) and https://b.example.org/x. Local: http://127.0.0.1/",
          },
        ],
        links: ["https://first.example.com/"],
      },
      budgetChars: 40_000,
    });
    assert.deepEqual(fitted.data.sources, [
      "https://first.example.com/",
      "https://docs.example.com/a",
      "https://b.example.org/x",
    ]);
  });

  it("S19: sources index public links only, deduplicated, bounded, without claiming fetch or verification", () => {
    const links = [
      "https://a.example.com/1",
      "https://a.example.com/1",
      "http://localhost/admin",
      "http://10.0.0.1/",
      "javascript:alert(1)",
      ...Array.from({ length: 500 }, (_, i) => `https://b.example.com/${i}`),
    ];
    const fitted = buildReadEnvelope({
      provenance,
      warnings: [],
      outcome: { content: [{ type: "text", text: "x".repeat(100_000) }], links },
      budgetChars: 20_000,
    });
    assert.ok(fitted.json.length <= 20_000);
    const sources = fitted.data.sources;
    assert.equal(sources[0], "https://a.example.com/1");
    assert.equal(new Set(sources).size, sources.length);
    assert.ok(sources.every((url) => url.startsWith("https://")));
    assert.ok((fitted.data.sourcesOmitted ?? 0) > 0);
    assert.ok(!/verified|fetched/.test(JSON.stringify(Object.keys(fitted.data))));
  });
});

describe("web envelope: search", () => {
  const searchProvenance: Provenance = {
    ...provenance,
    tool: "web_search",
    query: "q",
    url: undefined,
  } as Provenance;
  const many = (id: string, n: number) => ({
    results: Array.from({ length: n }, (_, i) => ({
      title: `${id} ${i}`,
      url: `https://${id}.example.com/${i}`,
      snippet: `${id} snippet ${i} `.repeat(30),
    })),
  });

  it("S21: many rows fit the budget, every provider keeps its top rows, omitted rows are counted", () => {
    const fitted = buildSearchEnvelope({
      provenance: searchProvenance,
      warnings,
      providerErrors: { c: "c HTTP 429" },
      outcomes: [
        { id: "a", outcome: many("a", 20) },
        { id: "b", outcome: many("b", 20) },
      ],
      budgetChars: 6_000,
    });
    assert.ok(fitted.json.length <= 6_000);
    const data = fitted.data;
    assert.equal(data.truncated, true);
    assert.deepEqual(data.warnings, warnings);
    assert.deepEqual(data.providerErrors, { c: "c HTTP 429" });
    assert.equal(data.results.a?.results[0]?.url, "https://a.example.com/0");
    assert.equal(data.results.b?.results[0]?.url, "https://b.example.com/0");
    const kept = (data.results.a?.results.length ?? 0) + (data.results.b?.results.length ?? 0);
    assert.ok(kept < 40);
    assert.equal((data.omittedResults ?? 0) + kept, 40);
  });

  it("S19: search sources are the public result URLs, once each", () => {
    const fitted = buildSearchEnvelope({
      provenance: searchProvenance,
      warnings: [],
      outcomes: [
        {
          id: "a",
          outcome: {
            results: [
              { title: "x", url: "https://x.example.com/" },
              { title: "l", url: "http://127.0.0.1/" },
            ],
          },
        },
        { id: "b", outcome: { results: [{ title: "x", url: "https://x.example.com/" }] } },
      ],
      budgetChars: 40_000,
    });
    assert.deepEqual(fitted.data.sources, ["https://x.example.com/"]);
    assert.equal(fitted.data.truncated, false);
    assert.equal(fitted.data.omittedResults, undefined);
  });

  it("S21: a long answer is clipped to a prefix rather than dropped", () => {
    const answer = "The answer is long. ".repeat(2_000);
    const fitted = buildSearchEnvelope({
      provenance: searchProvenance,
      warnings: [],
      outcomes: [{ id: "m", outcome: { answer, results: many("m", 3).results } }],
      budgetChars: 3_000,
    });
    assert.ok(fitted.json.length <= 3_000);
    const kept = fitted.data.results.m?.answer ?? "";
    assert.ok(kept.length > 1_000 && answer.startsWith(kept));
    assert.equal(fitted.data.truncated, true);
  });
});
