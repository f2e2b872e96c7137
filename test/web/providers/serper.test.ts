import assert from "node:assert/strict";
import { createSerperProvider } from "../../../src/web/providers/serper.js";
import { runProviderContract } from "./contract.js";
import { sendJson } from "./fake-vendor.js";

const KEY = "serper-test-key-0123456789";

runProviderContract({
  id: "serper",
  operation: "search",
  secret: KEY,
  create: (baseUrl) => createSerperProvider({ apiKey: KEY, baseUrl }),
  request: { query: "apple inc", maxResults: 2, timeRange: "day" },
  assertRequest(request) {
    assert.equal(request.method, "POST");
    assert.equal(request.path, "/search");
    assert.equal(request.headers["x-api-key"], KEY);
    assert.deepEqual(request.json(), { q: "apple inc", num: 2, tbs: "qdr:d" });
  },
  respondSuccess: (_request, response) =>
    sendJson(response, 200, {
      searchParameters: { q: "apple inc", type: "search", engine: "google" },
      answerBox: { title: "Apple Inc.", answer: "Tim Cook", link: "https://www.apple.com/leadership/" },
      organic: [
        {
          title: "Apple",
          link: "https://www.apple.com/",
          snippet: "Discover the innovative world of Apple.",
          position: 1,
        },
        {
          title: "Apple Inc. - Wikipedia",
          link: "https://en.wikipedia.org/wiki/Apple_Inc.",
          snippet: "American",
          date: "Jan 5, 2024",
          position: 2,
        },
        { title: "Third", link: "https://example.com/3", snippet: "cut", position: 3 },
      ],
      peopleAlsoAsk: [],
    }),
  assertOutcome(outcome) {
    assert.equal(outcome.answer, "Tim Cook");
    assert.deepEqual(outcome.results, [
      { title: "Apple", url: "https://www.apple.com/", snippet: "Discover the innovative world of Apple." },
      {
        title: "Apple Inc. - Wikipedia",
        url: "https://en.wikipedia.org/wiki/Apple_Inc.",
        snippet: "American",
        publishedAt: "Jan 5, 2024",
      },
    ]);
  },
  respondEmpty: (_request, response) =>
    sendJson(response, 200, { searchParameters: { q: "zzz" }, organic: [], credits: 1 }),
});
