import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  createVendorProvider,
  isVendorAdapter,
  VENDOR_ADAPTERS,
  VENDOR_ENVIRONMENT,
} from "../../../src/web/providers/catalog.js";

describe("vendor adapter catalog", () => {
  it("builds every adapter by name, with the adapter's name as its default id", () => {
    const providers = [
      createVendorProvider({ adapter: "tavily", apiKey: "k" }),
      createVendorProvider({ adapter: "brave", apiKey: "k" }),
      createVendorProvider({ adapter: "exa", apiKey: "k" }),
      createVendorProvider({ adapter: "searxng", baseUrl: "http://127.0.0.1:8888" }),
      createVendorProvider({ adapter: "serper", apiKey: "k" }),
      createVendorProvider({ adapter: "jina" }),
      createVendorProvider({ adapter: "firecrawl", apiKey: "k" }),
      createVendorProvider({ adapter: "responses", model: "m" }),
      createVendorProvider({ adapter: "duckduckgo" }),
    ];
    assert.deepEqual(
      providers.map((p) => [p.id, p.adapter]),
      VENDOR_ADAPTERS.map((name) => [name, name]),
    );
    for (const provider of providers) {
      assert.ok(provider.capabilities.search || provider.capabilities.read);
      assert.equal(provider.attemptDeadlineMs, undefined);
    }
  });

  it("keeps a configured id and attempt deadline", () => {
    const provider = createVendorProvider({
      adapter: "tavily",
      id: "tavily-eu",
      apiKey: "k",
      attemptDeadlineMs: 5_000,
    });
    assert.equal(provider.id, "tavily-eu");
    assert.equal(provider.adapter, "tavily");
    assert.equal(provider.attemptDeadlineMs, 5_000);
  });

  it("names the documented environment variables for every adapter", () => {
    for (const name of VENDOR_ADAPTERS) {
      assert.ok(isVendorAdapter(name));
      assert.ok(VENDOR_ENVIRONMENT[name].baseUrl.includes(`EVIDENT_${name.toUpperCase()}_BASE_URL`));
    }
    assert.deepEqual(VENDOR_ENVIRONMENT.brave.apiKey, ["BRAVE_SEARCH_API_KEY", "BRAVE_API_KEY"]);
    assert.ok(VENDOR_ENVIRONMENT.searxng.baseUrl.includes("SEARXNG_URL"));
    assert.equal(VENDOR_ENVIRONMENT.responses.other?.model, "EVIDENT_RESPONSES_MODEL");
    assert.equal(isVendorAdapter("mcp"), false);
  });

  it("adapters reach the network only through context.http, never fetch", () => {
    for (const name of VENDOR_ADAPTERS) {
      const source = readFileSync(new URL(`../../../src/web/providers/${name}.ts`, import.meta.url), "utf8");
      assert.doesNotMatch(source, /\bfetch\s*\(/, `${name} calls fetch`);
      assert.doesNotMatch(source, /from\s+"(undici|node:http|node:https)"/, `${name} imports a transport`);
    }
  });
});
