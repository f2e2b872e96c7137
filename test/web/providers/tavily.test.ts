import assert from "node:assert/strict";
import { createTavilyProvider } from "../../../src/web/providers/tavily.js";
import { runProviderContract } from "./contract.js";
import { sendJson } from "./fake-vendor.js";

const KEY = "tvly-test-key-0123456789";
const PAGE = "https://example.com/article?id=42#top";

runProviderContract({
  id: "tavily",
  operation: "search",
  secret: KEY,
  create: (baseUrl) => createTavilyProvider({ apiKey: KEY, baseUrl }),
  request: { query: "node streams backpressure", maxResults: 2, timeRange: "week" },
  assertRequest(request) {
    assert.equal(request.method, "POST");
    assert.equal(request.path, "/search");
    assert.equal(request.headers.authorization, `Bearer ${KEY}`);
    const body = request.json() as Record<string, unknown>;
    assert.equal(body.query, "node streams backpressure");
    assert.equal(body.max_results, 2);
    assert.equal(body.time_range, "week");
    assert.equal(body.search_depth, "basic");
    assert.equal(body.include_answer, true);
    assert.equal("api_key" in body, false, "the key travels in the header only");
  },
  respondSuccess: (_request, response) =>
    sendJson(response, 200, {
      query: "node streams backpressure",
      answer: "Backpressure pauses the producer until the consumer drains.",
      images: [],
      results: [
        {
          title: "Backpressuring in Streams",
          url: "https://nodejs.org/en/learn/modules/backpressuring-in-streams",
          content: "When data is produced faster than it is consumed...",
          score: 0.91,
          published_date: "2024-03-01",
          raw_content: null,
        },
        {
          title: "Stream docs",
          url: "https://nodejs.org/api/stream.html",
          content: "The stream module",
          score: 0.8,
        },
        { title: "Third", url: "https://example.org/third", content: "cut by maxResults", score: 0.5 },
      ],
      response_time: 0.42,
      request_id: "req-1",
    }),
  assertOutcome(outcome) {
    assert.equal(outcome.answer, "Backpressure pauses the producer until the consumer drains.");
    assert.deepEqual(outcome.results[0], {
      title: "Backpressuring in Streams",
      url: "https://nodejs.org/en/learn/modules/backpressuring-in-streams",
      snippet: "When data is produced faster than it is consumed...",
      publishedAt: "2024-03-01",
    });
    assert.equal(outcome.results.length, 2);
  },
  respondEmpty: (_request, response) =>
    sendJson(response, 200, { query: "q", answer: "", images: [], results: [], response_time: 0.1 }),
});

runProviderContract({
  id: "tavily",
  operation: "read",
  secret: KEY,
  create: (baseUrl) => createTavilyProvider({ apiKey: KEY, baseUrl }),
  request: { url: PAGE, focus: "pricing table" },
  assertRequest(request) {
    assert.equal(request.method, "POST");
    assert.equal(request.path, "/extract");
    assert.equal(request.headers.authorization, `Bearer ${KEY}`);
    const body = request.json() as Record<string, unknown>;
    assert.deepEqual(body.urls, [PAGE], "the exact requested URL is sent");
    assert.equal(body.query, "pricing table", "focus maps to the extract query");
    assert.equal(body.format, "markdown");
  },
  respondSuccess: (_request, response) =>
    sendJson(response, 200, {
      results: [
        { url: PAGE, raw_content: "# Pricing\n\n| plan | price |\n|---|---|\n| free | 0 |", images: [] },
      ],
      failed_results: [],
      response_time: 0.3,
    }),
  assertOutcome(outcome) {
    assert.deepEqual(outcome.content, [
      { type: "text", text: "# Pricing\n\n| plan | price |\n|---|---|\n| free | 0 |" },
    ]);
  },
  respondEmpty: (_request, response) =>
    sendJson(response, 200, { results: [], failed_results: [{ url: PAGE, error: "Failed to fetch" }] }),
});
