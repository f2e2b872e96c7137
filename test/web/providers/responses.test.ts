import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ProviderError } from "../../../src/web/provider.js";
import { createResponsesProvider } from "../../../src/web/providers/responses.js";
import { runProviderContract } from "./contract.js";
import { sendJson } from "./fake-vendor.js";
import { rejection, withFake } from "./harness.js";

const KEY = "sk-test-key-0123456789";
const ANSWER = "Paris is the capital of France ([wikipedia.org](https://en.wikipedia.org/wiki/Paris)).";

const responseBody = (output: unknown[], status = "completed") => ({
  id: "resp_1",
  object: "response",
  status,
  model: "test-model",
  output,
});

const searchCall = { type: "web_search_call", id: "ws_1", status: "completed" };
const message = (text: string, annotations: unknown[]) => ({
  type: "message",
  id: "msg_1",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text, annotations }],
});
const citation = (url: string, title: string, start = 31, end = 86) => ({
  type: "url_citation",
  start_index: start,
  end_index: end,
  url,
  title,
});

runProviderContract({
  id: "responses",
  operation: "search",
  secret: KEY,
  create: (baseUrl) => createResponsesProvider({ apiKey: KEY, baseUrl, model: "test-model" }),
  request: { query: "capital of France", maxResults: 2 },
  assertRequest(request) {
    assert.equal(request.method, "POST");
    assert.equal(request.path, "/v1/responses");
    assert.equal(request.headers.authorization, `Bearer ${KEY}`);
    assert.deepEqual(request.json(), {
      model: "test-model",
      input: "capital of France",
      tools: [{ type: "web_search" }],
    });
  },
  respondSuccess: (_request, response) =>
    sendJson(
      response,
      200,
      responseBody([
        searchCall,
        message(ANSWER, [
          citation("https://en.wikipedia.org/wiki/Paris", "Paris - Wikipedia"),
          citation("https://en.wikipedia.org/wiki/Paris", "Paris - Wikipedia (again)"),
          citation("https://www.britannica.com/place/Paris", "Paris | Britannica"),
          citation("https://example.com/third", "Third"),
        ]),
      ]),
    ),
  assertOutcome(outcome) {
    assert.equal(outcome.answer, ANSWER);
    assert.deepEqual(outcome.results, [
      { title: "Paris - Wikipedia", url: "https://en.wikipedia.org/wiki/Paris" },
      { title: "Paris | Britannica", url: "https://www.britannica.com/place/Paris" },
    ]);
  },
  respondEmpty: (_request, response) => sendJson(response, 200, responseBody([searchCall])),
});

describe("responses: vendor specifics", () => {
  it("collects url_citation annotations across messages, skipping other annotations and non-http URLs", async () => {
    await withFake(async (fake, context) => {
      fake.handle((_request, response) =>
        sendJson(
          response,
          200,
          responseBody([
            message("First part.", [
              { type: "file_citation", file_id: "file-1", index: 0 },
              citation("javascript:alert(1)", "bad"),
              citation("https://a.example/", "A"),
            ]),
            { type: "reasoning", id: "rs_1", summary: [] },
            message("Second part.", [citation("https://b.example/", "B")]),
          ]),
        ),
      );
      const provider = createResponsesProvider({ baseUrl: fake.baseUrl, model: "m", apiKey: KEY });
      const outcome = await provider.search?.({ query: "q", maxResults: 10, timeRange: "week" }, context);
      assert.equal(outcome?.answer, "First part.\n\nSecond part.");
      assert.deepEqual(
        outcome?.results.map((row) => row.url),
        ["https://a.example/", "https://b.example/"],
      );
      assert.deepEqual(outcome?.warnings, [
        'responses cannot filter by time; timeRange "week" was not applied',
      ]);
    });
  });

  it("reports a failed response as a failure and an incomplete one with a warning", async () => {
    await withFake(async (fake, context) => {
      const provider = createResponsesProvider({ baseUrl: fake.baseUrl, model: "m" });
      fake.handle((_request, response) => sendJson(response, 200, responseBody([], "failed")));
      const error = await rejection(provider.search?.({ query: "q", maxResults: 3 }, context));
      assert.ok(error instanceof ProviderError);
      assert.equal(error.kind, "upstream");

      fake.handle((_request, response) =>
        sendJson(
          response,
          200,
          responseBody([message("Partial", [citation("https://a.example/", "A", 0, 3)])], "incomplete"),
        ),
      );
      const outcome = await provider.search?.({ query: "q", maxResults: 3 }, context);
      assert.deepEqual(outcome?.warnings, ["responses reported the answer as incomplete"]);
      assert.equal(fake.requests.at(-1)?.headers.authorization, undefined, "no key, no Authorization header");
    });
  });

  it("requires a model", () => {
    assert.throws(() => createResponsesProvider({ model: " " }), /model is required/);
  });
});
