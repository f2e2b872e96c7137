import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createJinaProvider } from "../../../src/web/providers/jina.js";
import { runProviderContract } from "./contract.js";
import { sendJson } from "./fake-vendor.js";
import { withFake } from "./harness.js";

const KEY = "jina_test_key_0123456789";
const PAGE = "https://example.com/#/spa-route?x=1";

const readerAnswer = {
  code: 200,
  status: 20000,
  data: {
    title: "Example Domain",
    url: PAGE,
    content: "This domain is for use in illustrative examples in documents.",
    links: [
      ["More information", "https://www.iana.org/domains/example"],
      ["mail", "mailto:someone@example.com"],
    ],
  },
};

runProviderContract({
  id: "jina",
  operation: "read",
  secret: KEY,
  create: (baseUrl) => createJinaProvider({ apiKey: KEY, baseUrl }),
  request: { url: PAGE },
  assertRequest(request) {
    assert.equal(request.method, "POST");
    assert.equal(request.path, "/");
    assert.equal(request.headers.authorization, `Bearer ${KEY}`);
    assert.match(String(request.headers.accept), /application\/json/);
    // POST with the URL in the body keeps the fragment, which a GET path would lose.
    assert.deepEqual(request.json(), { url: PAGE });
  },
  respondSuccess: (_request, response) => sendJson(response, 200, readerAnswer),
  assertOutcome(outcome) {
    assert.equal(outcome.title, "Example Domain");
    assert.deepEqual(outcome.content, [
      { type: "text", text: "This domain is for use in illustrative examples in documents." },
    ]);
    assert.deepEqual(outcome.links, ["https://www.iana.org/domains/example"]);
  },
  respondEmpty: (_request, response) =>
    sendJson(response, 200, { code: 200, data: { title: "Empty", url: PAGE, content: "" } }),
});

runProviderContract({
  id: "jina",
  operation: "search",
  secret: KEY,
  create: (baseUrl) => createJinaProvider({ apiKey: KEY, baseUrl }),
  request: { query: "jina reader", maxResults: 2 },
  assertRequest(request) {
    assert.equal(request.method, "POST");
    assert.equal(request.path, "/");
    assert.equal(request.headers.authorization, `Bearer ${KEY}`);
    assert.equal(request.headers["x-respond-with"], "no-content");
    assert.deepEqual(request.json(), { q: "jina reader", num: 2 });
  },
  respondSuccess: (_request, response) =>
    sendJson(response, 200, {
      code: 200,
      data: [
        { title: "Reader API", url: "https://jina.ai/reader", description: "Read URLs", date: "2024-05-15" },
        {
          title: "GitHub",
          url: "https://github.com/jina-ai/reader",
          description: "",
          content: "Source code",
        },
        { title: "Third", url: "https://example.com/3", description: "cut" },
      ],
    }),
  assertOutcome(outcome) {
    assert.deepEqual(outcome.results, [
      { title: "Reader API", url: "https://jina.ai/reader", snippet: "Read URLs", publishedAt: "2024-05-15" },
      { title: "GitHub", url: "https://github.com/jina-ai/reader", snippet: "Source code" },
    ]);
    assert.equal(outcome.warnings, undefined);
  },
  respondEmpty: (_request, response) => sendJson(response, 200, { code: 200, data: [] }),
});

describe("jina: vendor specifics", () => {
  it("S08: without a key the reader is explicitly anonymous, sends no credential and offers no search", async () => {
    await withFake(async (fake, context) => {
      fake.handle((_request, response) => sendJson(response, 200, readerAnswer));
      const provider = createJinaProvider({ baseUrl: fake.baseUrl });
      assert.equal(provider.anonymous, true);
      assert.deepEqual(provider.capabilities, { search: false, read: true, focus: true });
      assert.equal(provider.search, undefined);
      await provider.read?.({ url: PAGE }, context);
      assert.equal(fake.requests.at(-1)?.headers.authorization, undefined);
      assert.equal(createJinaProvider({ apiKey: KEY }).anonymous, false);
    });
  });

  it("maps focus to a question-grounded read and returns the passages", async () => {
    await withFake(async (fake, context) => {
      fake.handle((request, response) => {
        const body = request.json() as Record<string, unknown>;
        if ("q" in body && "url" in body) {
          sendJson(response, 200, {
            results: [{ title: "Example Domain", snippet: "It is for illustrative examples." }],
          });
        } else sendJson(response, 200, readerAnswer);
      });
      const provider = createJinaProvider({ apiKey: KEY, baseUrl: fake.baseUrl });
      const outcome = await provider.read?.({ url: PAGE, focus: "what is it for?" }, context);
      assert.equal(fake.requests.length, 1, "no full read when passages came back");
      const sent = fake.requests[0]?.json() as Record<string, unknown>;
      assert.equal(sent.q, "what is it for?");
      assert.equal(sent.url, PAGE);
      assert.equal(fake.requests[0]?.headers.authorization, `Bearer ${KEY}`);
      assert.deepEqual(outcome?.content, [{ type: "text", text: "It is for illustrative examples." }]);
    });
  });

  it("says so when the question found no passage, and returns the whole page", async () => {
    await withFake(async (fake, context) => {
      fake.handle((request, response) => {
        const body = request.json() as Record<string, unknown>;
        if ("q" in body) sendJson(response, 200, { results: [] });
        else sendJson(response, 200, readerAnswer);
      });
      const provider = createJinaProvider({ apiKey: KEY, baseUrl: fake.baseUrl });
      const outcome = await provider.read?.({ url: PAGE, focus: "unrelated" }, context);
      assert.equal(fake.requests.length, 2);
      assert.deepEqual(outcome?.warnings, [
        "jina found no passage answering the focus; the whole page is returned",
      ]);
      assert.equal(outcome?.content[0]?.type, "text");
    });
  });

  it("reports Jina's `data: null` refusal as a failure, not an empty page", async () => {
    await withFake(async (fake, context) => {
      fake.handle((_request, response) =>
        sendJson(response, 200, {
          data: null,
          code: 451,
          name: "SecurityCompromiseError",
          readableMessage: "blocked",
        }),
      );
      const provider = createJinaProvider({ baseUrl: fake.baseUrl });
      await assert.rejects(provider.read?.({ url: PAGE }, context) ?? Promise.resolve(), {
        name: "ProviderError",
        reason: "jina could not read the page",
      });
    });
  });

  it("warns that a time range was not applied to search", async () => {
    await withFake(async (fake, context) => {
      fake.handle((_request, response) =>
        sendJson(response, 200, { data: [{ title: "t", url: "https://example.com/", description: "d" }] }),
      );
      const provider = createJinaProvider({ apiKey: KEY, baseUrl: fake.baseUrl });
      const outcome = await provider.search?.({ query: "q", maxResults: 3, timeRange: "day" }, context);
      assert.deepEqual(outcome?.warnings, ['jina cannot filter by time; timeRange "day" was not applied']);
    });
  });
});
