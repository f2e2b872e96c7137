import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createBraveProvider } from "../../../src/web/providers/brave.js";
import { runProviderContract } from "./contract.js";
import { sendJson } from "./fake-vendor.js";
import { withFake } from "./harness.js";

const KEY = "BSA-test-key-0123456789";

runProviderContract({
  id: "brave",
  operation: "search",
  secret: KEY,
  create: (baseUrl) => createBraveProvider({ apiKey: KEY, baseUrl }),
  request: { query: "rust borrow checker", maxResults: 2, timeRange: "month" },
  assertRequest(request) {
    assert.equal(request.method, "GET");
    assert.equal(request.path, "/res/v1/web/search");
    assert.equal(request.headers["x-subscription-token"], KEY);
    assert.equal(request.headers.authorization, undefined);
    assert.match(String(request.headers.accept), /application\/json/);
    assert.equal(request.query.get("q"), "rust borrow checker");
    assert.equal(request.query.get("count"), "2");
    assert.equal(request.query.get("freshness"), "pm");
    assert.equal(request.query.get("text_decorations"), "false");
  },
  respondSuccess: (_request, response) =>
    sendJson(response, 200, {
      type: "search",
      query: { original: "rust borrow checker" },
      web: {
        type: "search",
        results: [
          {
            title: "The borrow checker",
            url: "https://doc.rust-lang.org/book/ch04-02-references-and-borrowing.html",
            description: "References and borrowing",
            age: "2 days ago",
            page_age: "2024-05-02T10:00:00",
            profile: { name: "Rust" },
          },
          { title: "No date", url: "https://example.com/b", description: "second", age: "3 weeks ago" },
          { title: "Third", url: "https://example.com/c", description: "cut" },
        ],
      },
    }),
  assertOutcome(outcome) {
    assert.deepEqual(outcome.results, [
      {
        title: "The borrow checker",
        url: "https://doc.rust-lang.org/book/ch04-02-references-and-borrowing.html",
        snippet: "References and borrowing",
        publishedAt: "2024-05-02T10:00:00",
      },
      // `age` is prose, not a date: it never becomes publishedAt.
      { title: "No date", url: "https://example.com/b", snippet: "second" },
    ]);
    assert.equal("answer" in outcome, false);
  },
  respondEmpty: (_request, response) => sendJson(response, 200, { type: "search", query: { original: "x" } }),
});

describe("brave: vendor specifics", () => {
  it("caps count at 20 and sends no freshness without a time range", async () => {
    await withFake(async (fake, context) => {
      fake.handle((_request, response) => sendJson(response, 200, { web: { results: [] } }));
      const provider = createBraveProvider({ apiKey: KEY, baseUrl: `${fake.baseUrl}/proxy/` });
      await provider.search?.({ query: "q", maxResults: 50 }, context);
      const sent = fake.requests.at(-1);
      assert.equal(sent?.path, "/proxy/res/v1/web/search", "a base URL with a path prefix is kept");
      assert.equal(sent?.query.get("count"), "20");
      assert.equal(sent?.query.has("freshness"), false);
    });
  });

  it("refuses to be built without a key", () => {
    assert.throws(() => createBraveProvider({ apiKey: " " }), /API key is required/);
  });
});
