import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ProviderError } from "../../../src/web/provider.js";
import { createExaProvider } from "../../../src/web/providers/exa.js";
import { runProviderContract } from "./contract.js";
import { sendJson } from "./fake-vendor.js";
import { rejection, withFake } from "./harness.js";

const KEY = "exa-test-key-0123456789";
const PAGE = "https://arxiv.org/abs/2307.06435";

runProviderContract({
  id: "exa",
  operation: "search",
  secret: KEY,
  create: (baseUrl) => createExaProvider({ apiKey: KEY, baseUrl }),
  request: { query: "survey of large language models", maxResults: 2, timeRange: "year" },
  assertRequest(request) {
    assert.equal(request.method, "POST");
    assert.equal(request.path, "/search");
    assert.equal(request.headers["x-api-key"], KEY);
    const body = request.json() as Record<string, unknown>;
    assert.equal(body.query, "survey of large language models");
    assert.equal(body.numResults, 2);
    assert.equal(body.type, "auto");
    assert.ok(typeof body.startPublishedDate === "string");
    const start = Date.parse(body.startPublishedDate as string);
    const yearAgo = Date.now() - 366 * 24 * 3600 * 1000;
    assert.ok(Math.abs(start - yearAgo) < 60_000, "a year back from now");
    assert.deepEqual(body.contents, { highlights: { numSentences: 3, highlightsPerUrl: 1 } });
  },
  respondSuccess: (_request, response) =>
    sendJson(response, 200, {
      requestId: "r1",
      results: [
        {
          id: PAGE,
          title: "A Comprehensive Overview of Large Language Models",
          url: PAGE,
          publishedDate: "2023-07-12T00:00:00.000Z",
          author: "Humza Naveed",
          highlights: ["Large Language Models have recently demonstrated remarkable capabilities."],
          highlightScores: [0.46],
        },
        { id: "x", title: "No highlights", url: "https://example.com/x", publishedDate: null, author: null },
      ],
      costDollars: { total: 0.005 },
    }),
  assertOutcome(outcome) {
    assert.deepEqual(outcome.results, [
      {
        title: "A Comprehensive Overview of Large Language Models",
        url: PAGE,
        snippet: "Large Language Models have recently demonstrated remarkable capabilities.",
        publishedAt: "2023-07-12T00:00:00.000Z",
        author: "Humza Naveed",
      },
      { title: "No highlights", url: "https://example.com/x" },
    ]);
  },
  respondEmpty: (_request, response) => sendJson(response, 200, { requestId: "r2", results: [] }),
});

runProviderContract({
  id: "exa",
  operation: "read",
  secret: KEY,
  create: (baseUrl) => createExaProvider({ apiKey: KEY, baseUrl }),
  request: { url: PAGE },
  assertRequest(request) {
    assert.equal(request.method, "POST");
    assert.equal(request.path, "/contents");
    assert.equal(request.headers["x-api-key"], KEY);
    const body = request.json() as Record<string, unknown>;
    assert.deepEqual(body.urls, [PAGE]);
    assert.equal(body.text, true);
  },
  respondSuccess: (_request, response) =>
    sendJson(response, 200, {
      requestId: "r3",
      results: [
        {
          id: PAGE,
          url: PAGE,
          title: "A Comprehensive Overview of Large Language Models",
          text: "Abstract Large Language Models (LLMs) have recently demonstrated...",
          extras: { links: ["https://arxiv.org/abs/2303.17580", "not a url"] },
        },
      ],
      statuses: [{ id: PAGE, status: "success" }],
    }),
  assertOutcome(outcome) {
    assert.equal(outcome.title, "A Comprehensive Overview of Large Language Models");
    assert.deepEqual(outcome.content, [
      { type: "text", text: "Abstract Large Language Models (LLMs) have recently demonstrated..." },
    ]);
    assert.deepEqual(outcome.links, ["https://arxiv.org/abs/2303.17580"]);
  },
  respondEmpty: (_request, response) =>
    sendJson(response, 200, { requestId: "r4", results: [], statuses: [] }),
});

describe("exa: vendor specifics", () => {
  it("turns a per-URL error in `statuses` into a failure naming the tag, not an empty page", async () => {
    await withFake(async (fake, context) => {
      fake.handle((_request, response) =>
        sendJson(response, 200, {
          requestId: "r5",
          results: [],
          statuses: [{ id: PAGE, status: "error", error: { tag: "CRAWL_NOT_FOUND", httpStatusCode: 404 } }],
        }),
      );
      const provider = createExaProvider({ apiKey: KEY, baseUrl: fake.baseUrl });
      const error = await rejection(provider.read?.({ url: PAGE }, context));
      assert.ok(error instanceof ProviderError);
      assert.equal(error.kind, "upstream");
      assert.equal(error.reason, "exa could not fetch the page (CRAWL_NOT_FOUND)");
    });
  });

  it("never copies an error tag that is not of the documented enum form", async () => {
    await withFake(async (fake, context) => {
      fake.handle((_request, response) =>
        sendJson(response, 200, {
          results: [],
          statuses: [{ id: PAGE, status: "error", error: { tag: "<script>secret sk-123</script>" } }],
        }),
      );
      const provider = createExaProvider({ apiKey: KEY, baseUrl: fake.baseUrl });
      const error = await rejection(provider.read?.({ url: PAGE }, context));
      assert.ok(error instanceof ProviderError);
      assert.equal(error.reason, "exa could not fetch the page");
    });
  });
});
