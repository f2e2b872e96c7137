import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { ProviderError } from "../../../src/web/provider.js";
import { createDuckDuckGoProvider, unwrapRedirect } from "../../../src/web/providers/duckduckgo.js";
import { runProviderContract } from "./contract.js";
import { sendText } from "./fake-vendor.js";
import { rejection, withFake } from "./harness.js";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");
const RESULTS = fixture("duckduckgo-results.html");
const NO_RESULTS = fixture("duckduckgo-no-results.html");
const ANOMALY = fixture("duckduckgo-anomaly.html");
const HTML = "text/html; charset=UTF-8";

runProviderContract({
  id: "duckduckgo",
  operation: "search",
  contentType: HTML,
  create: (baseUrl) => createDuckDuckGoProvider({ baseUrl }),
  request: { query: "node streams", maxResults: 3, timeRange: "week" },
  assertRequest(request) {
    assert.equal(request.method, "GET");
    assert.equal(request.path, "/html/");
    assert.equal(request.query.get("q"), "node streams");
    assert.equal(request.query.get("df"), "w");
    assert.equal(request.headers.authorization, undefined);
    assert.ok(String(request.headers["user-agent"]).length > 0);
  },
  respondSuccess: (_request, response) => sendText(response, 200, HTML, RESULTS),
  assertOutcome(outcome) {
    assert.deepEqual(outcome.results, [
      {
        title: "Stream | Node.js v22 Documentation",
        url: "https://nodejs.org/api/stream.html?v=1#readable",
        snippet: "A stream is an abstract interface for working with streaming data in Node.js.",
      },
      {
        title: "Backpressuring in Streams",
        url: "https://nodejs.org/en/learn/modules/backpressuring-in-streams",
        snippet: "Backpressure happens when data builds up behind a buffer.",
      },
      { title: "Direct link", url: "https://example.org/direct" },
    ]);
  },
  respondEmpty: (_request, response) => sendText(response, 200, HTML, NO_RESULTS),
  assertEmpty(outcome) {
    // An explicit "No results." page: empty, and said out loud.
    assert.deepEqual(outcome.results, []);
    assert.deepEqual(outcome.warnings, ["duckduckgo reported no results for this query"]);
  },
});

describe("duckduckgo: vendor specifics", () => {
  it("unwraps DDG redirect links in every form and drops internal or hostile ones", () => {
    assert.equal(
      unwrapRedirect("//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fx%3Fy%3D1&rut=z"),
      "https://a.example/x?y=1",
    );
    assert.equal(
      unwrapRedirect("https://duckduckgo.com/l/?uddg=http%3A%2F%2Fb.example%2F"),
      "http://b.example/",
    );
    assert.equal(unwrapRedirect("https://c.example/page"), "https://c.example/page");
    assert.equal(unwrapRedirect("//d.example/page"), "https://d.example/page");
    assert.equal(unwrapRedirect("/y.js?ad=1"), undefined);
    assert.equal(unwrapRedirect("//duckduckgo.com/l/?uddg=javascript%3Aalert(1)"), undefined);
    assert.equal(unwrapRedirect("//duckduckgo.com/l/?rut=only"), undefined);
    assert.equal(unwrapRedirect(""), undefined);
    assert.equal(unwrapRedirect(null), undefined);
  });

  it("is anonymous and refuses a bot-check page (HTTP 202 or a challenge form) as a failure", async () => {
    await withFake(async (fake, context) => {
      const provider = createDuckDuckGoProvider({ baseUrl: fake.baseUrl });
      assert.equal(provider.anonymous, true);
      for (const status of [202, 200]) {
        fake.handle((_request, response) => sendText(response, status, HTML, ANOMALY));
        const error = await rejection(provider.search?.({ query: "q", maxResults: 5 }, context));
        assert.ok(error instanceof ProviderError);
        assert.equal(error.kind, "upstream");
        assert.equal(error.reason, "duckduckgo refused the query with a bot check");
      }
    });
  });

  it("never returns an empty success for a page it could not parse", async () => {
    await withFake(async (fake, context) => {
      const provider = createDuckDuckGoProvider({ baseUrl: fake.baseUrl });
      fake.handle((_request, response) =>
        sendText(
          response,
          200,
          HTML,
          '<html><body><div class="serp-v2"><a href="https://x.example/">x</a></div></body></html>',
        ),
      );
      const error = await rejection(provider.search?.({ query: "q", maxResults: 5 }, context));
      assert.ok(error instanceof ProviderError);
      assert.equal(error.kind, "malformed");
      assert.equal(error.reason, "duckduckgo page had no parsable results");
    });
  });

  it("sends no time filter when none is asked and honours a configured user agent", async () => {
    await withFake(async (fake, context) => {
      fake.handle((_request, response) => sendText(response, 200, HTML, RESULTS));
      const provider = createDuckDuckGoProvider({ baseUrl: fake.baseUrl, userAgent: "test-agent/1" });
      const outcome = await provider.search?.({ query: "q", maxResults: 1 }, context);
      assert.equal(outcome?.results.length, 1);
      assert.equal(fake.requests.at(-1)?.query.has("df"), false);
      assert.equal(fake.requests.at(-1)?.headers["user-agent"], "test-agent/1");
    });
  });

  it("imports linkedom lazily, so MCP startup does not pay for it", () => {
    const source = readFileSync(new URL("../../../src/web/providers/duckduckgo.ts", import.meta.url), "utf8");
    assert.doesNotMatch(source, /^import[^;]*from\s+"linkedom"/m);
    assert.match(source, /await import\("linkedom"\)/);
  });
});
