import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { planSetup } from "../../src/config/setup-plan.js";

const CUSTOM_BINDING = {
  type: "mcp",
  connection: {
    url: "https://mcp.example.internal/mcp",
    headers: { Authorization: { env: "MY_TOKEN", prefix: "Bearer " } },
  },
  search: { tool: "search", arguments: { q: "$query" }, format: "json" },
};
const BEFORE = {
  providers: {
    tavily: { type: "tavily", apiKey: "tvly-saved-key-1234", searchDepth: "advanced" },
    brave: { type: "brave", apiKey: { env: "BRAVE_SEARCH_API_KEY" } },
    "my-search": CUSTOM_BINDING,
  },
  search: { route: ["tavily", "my-search"], intents: { news: ["brave"] } },
  read: { route: ["tavily", "direct"] },
  envelopeBudgetChars: 20_000,
};

describe("setup plan", () => {
  it("S07: setup preserves saved keys, custom bindings and usable routes, adds no fallback, saves complete routes", () => {
    const after = planSetup(BEFORE, {
      providers: [
        { id: "tavily", type: "tavily", key: { keep: true } },
        { id: "exa", type: "exa", key: { env: "EXA_API_KEY" } },
        { id: "mcp-exa-hosted", type: "mcp", preset: "exa-hosted" },
      ],
    });
    const providers = after.providers as Record<string, unknown>;
    assert.deepEqual(providers.tavily, BEFORE.providers.tavily, "the saved key and options are kept");
    assert.deepEqual(providers.brave, BEFORE.providers.brave);
    assert.deepEqual(providers["my-search"], CUSTOM_BINDING, "the custom binding is kept as it was");
    assert.deepEqual(providers.exa, { type: "exa", apiKey: { env: "EXA_API_KEY" } });
    assert.deepEqual(providers["mcp-exa-hosted"], { type: "mcp", preset: "exa-hosted" });
    assert.deepEqual(after.search, BEFORE.search, "routes not chosen stay as they were: no fallback added");
    assert.deepEqual(after.read, BEFORE.read);
    assert.equal(after.envelopeBudgetChars, 20_000);

    // A chosen route is saved whole, exactly as chosen (each id once), nothing appended.
    const routed = planSetup(BEFORE, { searchRoute: ["exa"], intents: { code: ["exa", "exa", "tavily"] } });
    assert.deepEqual(routed.search, {
      route: ["exa"],
      intents: { news: ["brave"], code: ["exa", "tavily"] },
    });
    // Rebinding a preset id that holds a custom binding keeps the custom binding.
    const rebound = planSetup(BEFORE, { providers: [{ id: "my-search", type: "mcp", preset: "exa" }] });
    assert.deepEqual((rebound.providers as Record<string, unknown>)["my-search"], CUSTOM_BINDING);
  });

  it("asked to, the keyless provider ends a chosen search or read route; intents and untouched routes stay as given", () => {
    const kept = planSetup(BEFORE, {
      searchRoute: ["brave"],
      readRoute: ["tavily"],
      intents: { private: ["my-search"] },
      keylessLast: true,
    });
    assert.deepEqual(kept.search, {
      route: ["brave", "duckduckgo"],
      intents: { news: ["brave"], private: ["my-search"] },
    });
    assert.deepEqual(kept.read, { route: ["tavily", "direct"] });
    // Already on the route, wherever the person put it: left there, not repeated.
    const placed = planSetup(BEFORE, { searchRoute: ["duckduckgo", "brave"], keylessLast: true });
    assert.deepEqual((placed.search as { route: string[] }).route, ["duckduckgo", "brave"]);
    // No route chosen: nothing is added to the one in the file.
    assert.deepEqual(planSetup(BEFORE, { locale: "en", keylessLast: true }).search, BEFORE.search);
    // Not asked: exactly as chosen.
    const exact = planSetup(BEFORE, { searchRoute: ["brave"], readRoute: ["tavily"] });
    assert.deepEqual((exact.search as { route: string[] }).route, ["brave"]);
    assert.deepEqual(exact.read, { route: ["tavily"] });
  });

  it("a new key replaces the saved one only when given; an id of another type is refused", () => {
    const after = planSetup(BEFORE, {
      providers: [{ id: "tavily", type: "tavily", key: { save: " tvly-new " } }],
    });
    assert.deepEqual((after.providers as Record<string, unknown>).tavily, {
      type: "tavily",
      apiKey: "tvly-new",
      searchDepth: "advanced",
    });
    assert.throws(() => planSetup(BEFORE, { providers: [{ id: "brave", type: "tavily" }] }), /of type brave/);
  });
});
