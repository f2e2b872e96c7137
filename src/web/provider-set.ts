/**
 * From provider specs (resolved configuration) to live providers: one factory per adapter,
 * loaded on first use, each provider built once and closed once.
 *
 * Adapter modules are imported lazily: a route that only ever uses `duckduckgo` never loads the
 * MCP client, and `tools/list` loads none of them.
 */
import { canRead, canSearch, type ProviderSpec } from "../config/load.js";
import type { AdapterName } from "../config/schema.js";
import {
  type ChildEnvironment,
  type ReaderSettings,
  type Setting,
  settingValue,
} from "../config/settings.js";
import type { Logger } from "../core/logger.js";
import { type Provider, ProviderError } from "./provider.js";

export interface ProviderFactoryDeps {
  /** The caller's environment (config/ settings' childEnvironment): what `mcp` upstreams get. */
  readonly env: ChildEnvironment;
  /** The direct reader's threads (EVIDENT_WEB_READ_*); limits.ts's defaults without. */
  readonly reader?: Setting<ReaderSettings>;
  readonly logger: Logger;
}

/** Builds one provider from its spec. Options come from the config layer, already validated. */
export type ProviderFactory = (spec: ProviderSpec, deps: ProviderFactoryDeps) => Promise<Provider>;

// Factories receive `{ id, ...options }`: the config schema and the adapters' option interfaces
// use the same key names, so no key is translated here.
const withId = (spec: ProviderSpec) => ({ id: spec.id, ...spec.options }) as never;

export const PROVIDER_FACTORIES: Readonly<Record<AdapterName, ProviderFactory>> = {
  tavily: async (spec) => (await import("./providers/tavily.js")).createTavilyProvider(withId(spec)),
  brave: async (spec) => (await import("./providers/brave.js")).createBraveProvider(withId(spec)),
  exa: async (spec) => (await import("./providers/exa.js")).createExaProvider(withId(spec)),
  searxng: async (spec) => (await import("./providers/searxng.js")).createSearxngProvider(withId(spec)),
  serper: async (spec) => (await import("./providers/serper.js")).createSerperProvider(withId(spec)),
  jina: async (spec) => (await import("./providers/jina.js")).createJinaProvider(withId(spec)),
  firecrawl: async (spec) => (await import("./providers/firecrawl.js")).createFirecrawlProvider(withId(spec)),
  responses: async (spec) => (await import("./providers/responses.js")).createResponsesProvider(withId(spec)),
  duckduckgo: async (spec) =>
    (await import("./providers/duckduckgo.js")).createDuckDuckGoProvider(withId(spec)),
  direct: async (spec, deps) =>
    (await import("./providers/direct/provider.js")).createDirectProvider(
      withId(spec),
      deps.reader === undefined ? undefined : settingValue(deps.reader),
    ),
  mcp: async (spec, deps) =>
    (await import("./providers/mcp/provider.js")).createMcpProvider(spec.id, spec.options as never, {
      env: deps.env,
      logger: deps.logger,
    }),
};

export class ProviderSet {
  readonly #specs: ReadonlyMap<string, ProviderSpec>;
  readonly #deps: ProviderFactoryDeps;
  readonly #factories: Readonly<Record<string, ProviderFactory>>;
  readonly #built = new Map<string, Promise<Provider>>();
  #closing: Promise<void> | undefined;

  constructor(
    specs: ReadonlyMap<string, ProviderSpec>,
    deps: ProviderFactoryDeps,
    factories: Readonly<Record<string, ProviderFactory>> = PROVIDER_FACTORIES,
  ) {
    this.#specs = specs;
    this.#deps = deps;
    this.#factories = factories;
  }

  has(id: string): boolean {
    return this.#specs.has(id);
  }

  /** Every provider id, or those that can do `capability` (so errors list only usable ids). */
  ids(capability?: "search" | "read"): string[] {
    const able = capability === "search" ? canSearch : capability === "read" ? canRead : () => true;
    return [...this.#specs.values()].filter(able).map((spec) => spec.id);
  }

  spec(id: string): ProviderSpec | undefined {
    return this.#specs.get(id);
  }

  /** The provider of that id, built on first use; a spec that cannot be built yields a stub that explains. */
  get(id: string): Promise<Provider> {
    let built = this.#built.get(id);
    if (built === undefined) {
      built = this.#build(id);
      this.#built.set(id, built);
    }
    return built;
  }

  async #build(id: string): Promise<Provider> {
    const spec = this.#specs.get(id);
    if (spec === undefined) throw new Error(`unknown provider ${id}`);
    if (spec.unavailable !== undefined) return unavailableProvider(spec, spec.unavailable);
    const factory = this.#factories[spec.adapter];
    if (factory === undefined) return unavailableProvider(spec, `no adapter named ${spec.adapter}`);
    try {
      return await factory(spec, this.#deps);
    } catch (thrown) {
      // Factories reject options they cannot work with (a missing key); the message names the
      // option, never its value.
      this.#deps.logger.warn(`provider ${id} could not be built`, { cause: thrown });
      const message = thrown instanceof Error ? thrown.message : "its options were rejected";
      return unavailableProvider(spec, message.replace(/^[^:]*:\s*/, ""));
    }
  }

  /** Closes every provider built so far, once; concurrent calls await the same teardown. */
  close(): Promise<void> {
    this.#closing ??= Promise.allSettled(
      [...this.#built.values()].map(async (pending) => {
        const provider = await pending;
        await provider.close?.();
      }),
    ).then(() => undefined);
    return this.#closing;
  }
}

/** A provider that cannot work as configured: every call fails with a configuration reason. */
function unavailableProvider(spec: ProviderSpec, why: string): Provider {
  const fail = async (): Promise<never> => {
    throw new ProviderError(spec.id, "configuration", `${spec.id} is not usable: ${why}`);
  };
  return {
    id: spec.id,
    adapter: spec.adapter,
    anonymous: false,
    // Declared capable so the call reaches `fail` and the agent learns why, instead of "cannot search".
    capabilities: { search: true, read: true, focus: true },
    search: fail,
    read: fail,
  };
}
