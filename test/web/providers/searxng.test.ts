import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ProviderError } from "../../../src/web/provider.js";
import { createSearxngProvider } from "../../../src/web/providers/searxng.js";
import { runProviderContract } from "./contract.js";
import { sendJson, sendText } from "./fake-vendor.js";
import { rejection, withFake } from "./harness.js";

const results = [
  {
    url: "https://searxng.org/",
    title: "SearXNG",
    content: "A privacy-respecting metasearch engine",
    engine: "duckduckgo",
    score: 3,
    publishedDate: null,
  },
  {
    url: "https://docs.searxng.org/",
    title: "Docs",
    content: "Welcome",
    engine: "google",
    score: 2,
    publishedDate: "2024-06-01T00:00:00",
  },
  { url: "https://github.com/searxng/searxng", title: "GitHub", content: "Source", engine: "bing", score: 1 },
];

runProviderContract({
  ownStatuses: [403],
  id: "searxng",
  operation: "search",
  create: (baseUrl) => createSearxngProvider({ baseUrl }),
  request: { query: "searxng", maxResults: 2, timeRange: "year" },
  assertRequest(request) {
    assert.equal(request.method, "GET");
    assert.equal(request.path, "/search");
    assert.equal(request.query.get("q"), "searxng");
    assert.equal(request.query.get("format"), "json");
    assert.equal(request.query.get("time_range"), "year");
    assert.equal(request.headers.authorization, undefined);
  },
  respondSuccess: (_request, response) =>
    sendJson(response, 200, {
      query: "searxng",
      number_of_results: 0,
      results,
      answers: [{ answer: "SearXNG is a metasearch engine.", url: "https://searxng.org/" }],
      corrections: [],
      infoboxes: [],
      suggestions: ["searx"],
      unresponsive_engines: [],
    }),
  assertOutcome(outcome) {
    assert.equal(outcome.answer, "SearXNG is a metasearch engine.");
    // SearXNG has no count parameter: the slice to maxResults happens here, in order.
    assert.deepEqual(outcome.results, [
      { title: "SearXNG", url: "https://searxng.org/", snippet: "A privacy-respecting metasearch engine" },
      {
        title: "Docs",
        url: "https://docs.searxng.org/",
        snippet: "Welcome",
        publishedAt: "2024-06-01T00:00:00",
      },
    ]);
  },
  respondEmpty: (_request, response) =>
    sendJson(response, 200, {
      query: "zzz",
      number_of_results: 0,
      results: [],
      answers: [],
      suggestions: [],
    }),
});

describe("searxng: vendor specifics", () => {
  it("turns the 403 of a JSON-less instance into a configuration error naming search.formats", async () => {
    await withFake(async (fake, context) => {
      fake.handle((_request, response) =>
        sendText(response, 403, "text/html", "<html><body>403 Forbidden</body></html>"),
      );
      const provider = createSearxngProvider({ baseUrl: fake.baseUrl });
      const error = await rejection(provider.search?.({ query: "q", maxResults: 5 }, context));
      assert.ok(error instanceof ProviderError);
      assert.equal(error.kind, "configuration");
      assert.equal(error.status, 403);
      assert.match(error.reason, /^searxng HTTP 403/);
      assert.match(error.reason, /search\.formats/);
      assert.match(error.reason, /settings\.yml/);
    });
  });

  it("accepts answers as plain strings (older releases) and sends a proxy key as Bearer", async () => {
    await withFake(async (fake, context) => {
      fake.handle((_request, response) => sendJson(response, 200, { results, answers: ["plain answer"] }));
      const provider = createSearxngProvider({ baseUrl: `${fake.baseUrl}/searx`, apiKey: "proxy-token" });
      const outcome = await provider.search?.({ query: "q", maxResults: 1 }, context);
      assert.equal(outcome?.answer, "plain answer");
      assert.equal(outcome?.results.length, 1);
      assert.equal(fake.requests.at(-1)?.path, "/searx/search");
      assert.equal(fake.requests.at(-1)?.headers.authorization, "Bearer proxy-token");
      assert.equal(fake.requests.at(-1)?.query.has("time_range"), false);
    });
  });

  it("is the operator's own instance, not an anonymous tier", () => {
    assert.equal(createSearxngProvider({ baseUrl: "http://127.0.0.1:8080" }).anonymous, false);
    assert.throws(() => createSearxngProvider({ baseUrl: "" }), /base URL is required/);
  });
});
