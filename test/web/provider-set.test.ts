import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ProviderSpec } from "../../src/config/load.js";
import { silentLogger } from "../../src/core/logger.js";
import { ProviderError } from "../../src/web/provider.js";
import { ProviderSet } from "../../src/web/provider-set.js";

const deps = { env: {}, logger: silentLogger };

function specs(list: ProviderSpec[]): Map<string, ProviderSpec> {
  return new Map(list.map((spec) => [spec.id, spec]));
}

describe("provider set", () => {
  it("builds every adapter from config-shaped options under the configured id", async () => {
    const list: ProviderSpec[] = [
      {
        id: "t",
        adapter: "tavily",
        source: "config-file",
        options: { apiKey: "k", searchDepth: "advanced" },
      },
      { id: "b", adapter: "brave", source: "config-file", options: { apiKey: "k" } },
      { id: "e", adapter: "exa", source: "config-file", options: { apiKey: "k", readMaxCharacters: 1000 } },
      { id: "s", adapter: "searxng", source: "config-file", options: { baseUrl: "http://127.0.0.1:1" } },
      { id: "se", adapter: "serper", source: "config-file", options: { apiKey: "k" } },
      { id: "j", adapter: "jina", source: "config-file", options: {} },
      { id: "f", adapter: "firecrawl", source: "config-file", options: { apiKey: "k" } },
      { id: "r", adapter: "responses", source: "config-file", options: { model: "m" } },
      { id: "d", adapter: "duckduckgo", source: "default", options: {} },
      { id: "direct", adapter: "direct", source: "default", options: { attemptDeadlineMs: 1234 } },
      { id: "m", adapter: "mcp", source: "config-file", options: { type: "mcp", preset: "exa-hosted" } },
    ];
    const set = new ProviderSet(specs(list), deps);
    try {
      for (const spec of list) {
        const provider = await set.get(spec.id);
        assert.equal(provider.id, spec.id);
        assert.equal(provider.adapter, spec.adapter);
      }
      assert.equal((await set.get("direct")).attemptDeadlineMs, 1234);
      // Keyless providers say so; keyed ones do not.
      assert.equal((await set.get("d")).anonymous, true);
      assert.equal((await set.get("j")).anonymous, true);
      assert.equal((await set.get("t")).anonymous, false);
      assert.equal((await set.get("m")).anonymous, true);
      // The same instance every time: built once.
      assert.equal(await set.get("t"), await set.get("t"));
    } finally {
      await set.close();
    }
  });

  it("S11: a provider that cannot be built explains itself on every call", async () => {
    const set = new ProviderSet(
      specs([
        {
          id: "t",
          adapter: "tavily",
          source: "config-file",
          options: {},
          unavailable: "the environment variable X is not set",
        },
        { id: "b", adapter: "brave", source: "config-file", options: {} },
      ]),
      deps,
    );
    for (const id of ["t", "b"]) {
      const provider = await set.get(id);
      await assert.rejects(
        provider.search?.({ query: "q", maxResults: 5 }, { signal: new AbortController().signal } as never) ??
          Promise.resolve(),
        (error: unknown) =>
          error instanceof ProviderError &&
          error.kind === "configuration" &&
          error.reason.startsWith(`${id} is not usable`),
      );
    }
    await set.close();
  });

  it("close() closes each built provider once, concurrent calls included", async () => {
    let closes = 0;
    const set = new ProviderSet(
      specs([{ id: "x", adapter: "direct", source: "default", options: {} }]),
      deps,
      {
        direct: async () => ({
          id: "x",
          adapter: "direct",
          anonymous: true,
          capabilities: { search: false, read: true, focus: false },
          close: async () => {
            closes++;
          },
        }),
      },
    );
    await set.get("x");
    await Promise.all([set.close(), set.close()]);
    assert.equal(closes, 1);
  });
});
