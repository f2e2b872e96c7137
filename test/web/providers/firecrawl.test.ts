import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ProviderError } from "../../../src/web/provider.js";
import { createFirecrawlProvider, projectFirecrawlMetadata } from "../../../src/web/providers/firecrawl.js";
import { runProviderContract } from "./contract.js";
import { sendJson } from "./fake-vendor.js";
import { rejection, withFake } from "./harness.js";

const KEY = "fc-test-key-0123456789";
const PAGE = "https://example.com/docs/page?lang=en";

const scrapeAnswer = (metadata: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  success: true,
  data: {
    markdown: "# Docs\n\nMain content only.",
    links: ["https://example.com/docs/next", "javascript:void(0)"],
    metadata: {
      title: "Docs",
      url: PAGE,
      sourceURL: PAGE,
      statusCode: 200,
      contentType: "text/html",
      ...metadata,
    },
    ...extra,
  },
});

runProviderContract({
  id: "firecrawl",
  operation: "read",
  secret: KEY,
  create: (baseUrl) => createFirecrawlProvider({ apiKey: KEY, baseUrl }),
  request: { url: PAGE },
  assertRequest(request) {
    assert.equal(request.method, "POST");
    assert.equal(request.path, "/v2/scrape");
    assert.equal(request.headers.authorization, `Bearer ${KEY}`);
    const body = request.json() as Record<string, unknown>;
    assert.equal(body.url, PAGE);
    assert.equal(body.onlyMainContent, true);
    assert.deepEqual(body.formats, ["markdown", "links"]);
  },
  respondSuccess: (_request, response) =>
    sendJson(
      response,
      200,
      scrapeAnswer({ cacheState: "hit", cachedAt: "2026-11-29T10:00:00.000Z", creditsUsed: 1 }),
    ),
  assertOutcome(outcome) {
    assert.equal(outcome.title, "Docs");
    assert.deepEqual(outcome.content, [{ type: "text", text: "# Docs\n\nMain content only." }]);
    assert.deepEqual(outcome.links, ["https://example.com/docs/next"]);
    assert.deepEqual(outcome.metadata, {
      creditsUsed: 1,
      cacheState: "hit",
      cachedAt: "2026-11-29T10:00:00.000Z",
    });
  },
  respondEmpty: (_request, response) =>
    sendJson(response, 200, {
      success: true,
      data: { markdown: "", metadata: { title: "Blank", statusCode: 200 } },
    }),
});

runProviderContract({
  id: "firecrawl",
  operation: "search",
  secret: KEY,
  create: (baseUrl) => createFirecrawlProvider({ apiKey: KEY, baseUrl }),
  request: { query: "firecrawl v2", maxResults: 2, timeRange: "week" },
  assertRequest(request) {
    assert.equal(request.method, "POST");
    assert.equal(request.path, "/v2/search");
    assert.equal(request.headers.authorization, `Bearer ${KEY}`);
    assert.deepEqual(request.json(), { query: "firecrawl v2", limit: 2, tbs: "qdr:w" });
  },
  respondSuccess: (_request, response) =>
    sendJson(response, 200, {
      success: true,
      data: {
        web: [
          {
            url: "https://docs.firecrawl.dev/",
            title: "Firecrawl Docs",
            description: "Turn websites into LLM-ready data",
            position: 1,
          },
          {
            url: "https://github.com/firecrawl/firecrawl",
            title: "GitHub",
            description: "Source",
            position: 2,
          },
          { url: "https://example.com/3", title: "Third", description: "cut", position: 3 },
        ],
      },
      creditsUsed: 2,
    }),
  assertOutcome(outcome) {
    assert.deepEqual(outcome.results, [
      {
        title: "Firecrawl Docs",
        url: "https://docs.firecrawl.dev/",
        snippet: "Turn websites into LLM-ready data",
      },
      { title: "GitHub", url: "https://github.com/firecrawl/firecrawl", snippet: "Source" },
    ]);
  },
  respondEmpty: (_request, response) => sendJson(response, 200, { success: true, data: { web: [] } }),
});

describe("firecrawl: vendor specifics", () => {
  it("S17: projects only validated creditsUsed, cacheState and cachedAt", () => {
    assert.deepEqual(
      projectFirecrawlMetadata({ creditsUsed: 5, cacheState: "miss", cachedAt: "2026-01-02T03:04:05Z" }),
      {
        creditsUsed: 5,
        cacheState: "miss",
        cachedAt: "2026-01-02T03:04:05Z",
      },
    );
    for (const bad of [
      { creditsUsed: "5" },
      { creditsUsed: -1 },
      { creditsUsed: Number.POSITIVE_INFINITY },
      { cacheState: "stale" },
      { cacheState: true },
      { cachedAt: "yesterday" },
      { cachedAt: 1_700_000_000 },
    ]) {
      assert.deepEqual(projectFirecrawlMetadata(bad), {}, JSON.stringify(bad));
    }
    // Other metadata fields (and page text) never leak into the projection.
    assert.deepEqual(
      projectFirecrawlMetadata({ title: "t", scrapeId: "s", proxyUsed: "basic", creditsUsed: 0 }),
      {
        creditsUsed: 0,
      },
    );
  });

  it("S17: invalid fields are dropped one by one; a read with none reports no metadata", async () => {
    await withFake(async (fake, context) => {
      fake.handle((_request, response) =>
        sendJson(
          response,
          200,
          scrapeAnswer(
            { creditsUsed: "1", cacheState: "hit", cachedAt: "not a date" },
            {
              markdown: "creditsUsed: 999, cacheState: miss",
            },
          ),
        ),
      );
      const provider = createFirecrawlProvider({ apiKey: KEY, baseUrl: fake.baseUrl });
      const outcome = await provider.read?.({ url: PAGE }, context);
      assert.deepEqual(outcome?.metadata, { cacheState: "hit" });

      fake.handle((_request, response) => sendJson(response, 200, scrapeAnswer({ creditsUsed: null })));
      const bare = await provider.read?.({ url: PAGE }, context);
      assert.equal(bare?.metadata, undefined);
    });
  });

  it("maps focus to the question format and returns the answer before the markdown", async () => {
    await withFake(async (fake, context) => {
      fake.handle((_request, response) =>
        sendJson(response, 200, scrapeAnswer({ creditsUsed: 5 }, { answer: "It costs 5 credits." })),
      );
      const provider = createFirecrawlProvider({ apiKey: KEY, baseUrl: fake.baseUrl });
      const outcome = await provider.read?.({ url: PAGE, focus: "How much does it cost?" }, context);
      const body = fake.requests.at(-1)?.json() as Record<string, unknown>;
      assert.deepEqual(body.formats, [
        "markdown",
        "links",
        { type: "question", question: "How much does it cost?" },
      ]);
      assert.deepEqual(outcome?.content, [
        { type: "text", text: "It costs 5 credits." },
        { type: "text", text: "# Docs\n\nMain content only." },
      ]);
    });
  });

  it("reports `success: false` as a vendor failure and warns about an error status of the page", async () => {
    await withFake(async (fake, context) => {
      const provider = createFirecrawlProvider({ apiKey: KEY, baseUrl: fake.baseUrl });
      fake.handle((_request, response) =>
        sendJson(response, 200, { success: false, error: "boom sk-secret" }),
      );
      const error = await rejection(provider.read?.({ url: PAGE }, context));
      assert.ok(error instanceof ProviderError);
      assert.equal(error.kind, "upstream");
      assert.equal(error.reason, "firecrawl reported a failure");

      fake.handle((_request, response) => sendJson(response, 200, scrapeAnswer({ statusCode: 404 })));
      const outcome = await provider.read?.({ url: PAGE }, context);
      assert.deepEqual(outcome?.warnings, ["firecrawl reports that the page answered HTTP 404"]);
    });
  });

  it("works without a key against a self-hosted instance", async () => {
    await withFake(async (fake, context) => {
      fake.handle((_request, response) => sendJson(response, 200, scrapeAnswer({})));
      const provider = createFirecrawlProvider({ baseUrl: fake.baseUrl });
      await provider.read?.({ url: PAGE }, context);
      assert.equal(fake.requests.at(-1)?.headers.authorization, undefined);
      assert.equal(provider.anonymous, false);
    });
  });
});
