/**
 * defineHttpProvider: a vendor given only as a description (endpoint, auth, mappings, status
 * meanings) passes the same provider contract as the built-in adapters, and the helper's own
 * rules (required and blank keys, key-only operations, anonymity, a vendor's own statuses) hold.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ProviderError } from "../../../src/web/provider.js";
import { defineHttpProvider, type VendorProviderOptions } from "../../../src/web/providers/shared/define.js";
import { unexpectedShape } from "../../../src/web/providers/shared/http.js";
import { readOutcome, rowsOf, searchOutcome } from "../../../src/web/providers/shared/outcome.js";
import { isRecord, text } from "../../../src/web/providers/shared/values.js";
import { runProviderContract } from "./contract.js";
import { sendJson } from "./fake-vendor.js";
import { rejection, withFake } from "./harness.js";

const KEY = "acme-test-key-0123456789";

interface AcmeOptions extends VendorProviderOptions {
  readonly apiKey?: string;
}

/** A made-up vendor: search needs a key, read does not; 418 means "quota spent". */
const acme = (required: boolean) =>
  defineHttpProvider<AcmeOptions>({
    adapter: "acme",
    baseUrl: "https://api.acme.invalid",
    auth: { header: "x-acme-key", prefix: "Key ", required },
    anonymous: "without-key",
    statuses: { 418: (id) => new ProviderError(id, "upstream", `${id} quota is spent`) },
    search: {
      requiresKey: true,
      request: (request) => ({ method: "GET", path: "/find", query: { q: request.query } }),
      response: (body, request, { id }) => {
        if (!isRecord(body) || !Array.isArray(body.hits)) throw unexpectedShape(id);
        const rows = rowsOf(body.hits, (hit) => ({ title: hit.name, url: hit.href }));
        return searchOutcome({ rows, maxResults: request.maxResults });
      },
    },
    read: {
      request: (request) => ({ method: "POST", path: "/page", body: { url: request.url } }),
      response: (body, _request, { id }) =>
        readOutcome(id, { parts: [isRecord(body) ? text(body.text) : undefined] }),
    },
  });

const createAcme = acme(false);

runProviderContract({
  id: "acme",
  operation: "search",
  secret: KEY,
  create: (baseUrl) => createAcme({ apiKey: KEY, baseUrl }),
  request: { query: "anvils", maxResults: 1 },
  assertRequest(request) {
    assert.equal(request.method, "GET");
    assert.equal(request.path, "/find");
    assert.equal(request.query.get("q"), "anvils");
    assert.equal(request.headers["x-acme-key"], `Key ${KEY}`);
    assert.equal(request.headers.accept, "application/json");
  },
  respondSuccess: (_request, response) =>
    sendJson(response, 200, {
      hits: [
        { name: "Anvil", href: "https://acme.example/anvil" },
        { name: "Second", href: "https://acme.example/2" },
      ],
    }),
  assertOutcome(outcome) {
    assert.deepEqual(outcome.results, [{ title: "Anvil", url: "https://acme.example/anvil" }]);
  },
  respondEmpty: (_request, response) => sendJson(response, 200, { hits: [] }),
  ownStatuses: [418],
});

describe("defineHttpProvider", () => {
  it("refuses a missing or blank required key at creation, naming the provider", () => {
    assert.throws(
      () => acme(true)({ apiKey: "  ", id: "acme-eu" }),
      /^TypeError: acme-eu: an API key is required$/,
    );
    assert.throws(() => acme(true)({}), /an API key is required/);
  });

  it("without a key: anonymous, no key-only operation, no credential sent", async () => {
    await withFake(async (fake, context) => {
      fake.handle((_request, response) => sendJson(response, 200, { text: "page text" }));
      const provider = createAcme({ apiKey: " ", baseUrl: fake.baseUrl });
      assert.equal(provider.anonymous, true);
      assert.deepEqual(provider.capabilities, { search: false, read: true, focus: false });
      assert.equal(provider.search, undefined);
      const outcome = await provider.read?.({ url: "https://acme.example/a" }, context);
      assert.deepEqual(outcome?.content, [{ type: "text", text: "page text" }]);
      assert.equal(fake.requests[0]?.headers["x-acme-key"], undefined);
      assert.deepEqual(fake.requests[0]?.json(), { url: "https://acme.example/a" });
    });
  });

  it("reads a status the vendor gives its own meaning through the description", async () => {
    await withFake(async (fake, context) => {
      fake.handle((_request, response) => sendJson(response, 418, { error: "RAW" }));
      const provider = createAcme({ apiKey: KEY, baseUrl: fake.baseUrl, attemptDeadlineMs: 1234 });
      assert.equal(provider.attemptDeadlineMs, 1234);
      const error = await rejection(provider.search?.({ query: "q", maxResults: 1 }, context));
      assert.ok(error instanceof ProviderError);
      assert.equal(error.reason, "acme quota is spent");
      assert.equal(error.failure, "upstream");
    });
  });

  it("a vendor without a documented base URL needs a configured one", () => {
    const bare = defineHttpProvider<VendorProviderOptions>({ adapter: "bare" });
    assert.throws(() => bare({ baseUrl: " " }), /^TypeError: bare: a base URL is required$/);
    assert.throws(() => bare({}), /a base URL is required/);
  });
});
