/**
 * The vendor HTTP adapters by name: one factory call for the config layer, and the environment
 * variables each adapter's documentation promises, in one table. The config layer owns reading
 * the environment and the config file; this module only says which adapter needs what.
 */
import type { Provider } from "../provider.js";
import { type BraveProviderOptions, createBraveProvider } from "./brave.js";
import { createDuckDuckGoProvider, type DuckDuckGoProviderOptions } from "./duckduckgo.js";
import { createExaProvider, type ExaProviderOptions } from "./exa.js";
import { createFirecrawlProvider, type FirecrawlProviderOptions } from "./firecrawl.js";
import { createJinaProvider, type JinaProviderOptions } from "./jina.js";
import { createResponsesProvider, type ResponsesProviderOptions } from "./responses.js";
import { createSearxngProvider, type SearxngProviderOptions } from "./searxng.js";
import { createSerperProvider, type SerperProviderOptions } from "./serper.js";
import { createTavilyProvider, type TavilyProviderOptions } from "./tavily.js";

export const VENDOR_ADAPTERS = [
  "tavily",
  "brave",
  "exa",
  "searxng",
  "serper",
  "jina",
  "firecrawl",
  "responses",
  "duckduckgo",
] as const;

export type VendorAdapter = (typeof VENDOR_ADAPTERS)[number];

export type VendorProviderConfig =
  | ({ readonly adapter: "tavily" } & TavilyProviderOptions)
  | ({ readonly adapter: "brave" } & BraveProviderOptions)
  | ({ readonly adapter: "exa" } & ExaProviderOptions)
  | ({ readonly adapter: "searxng" } & SearxngProviderOptions)
  | ({ readonly adapter: "serper" } & SerperProviderOptions)
  | ({ readonly adapter: "jina" } & JinaProviderOptions)
  | ({ readonly adapter: "firecrawl" } & FirecrawlProviderOptions)
  | ({ readonly adapter: "responses" } & ResponsesProviderOptions)
  | ({ readonly adapter: "duckduckgo" } & DuckDuckGoProviderOptions);

export function isVendorAdapter(value: unknown): value is VendorAdapter {
  return typeof value === "string" && (VENDOR_ADAPTERS as readonly string[]).includes(value);
}

/** Builds a vendor provider; throws a TypeError when a required key, URL or model is missing. */
export function createVendorProvider(config: VendorProviderConfig): Provider {
  switch (config.adapter) {
    case "tavily":
      return createTavilyProvider(config);
    case "brave":
      return createBraveProvider(config);
    case "exa":
      return createExaProvider(config);
    case "searxng":
      return createSearxngProvider(config);
    case "serper":
      return createSerperProvider(config);
    case "jina":
      return createJinaProvider(config);
    case "firecrawl":
      return createFirecrawlProvider(config);
    case "responses":
      return createResponsesProvider(config);
    case "duckduckgo":
      return createDuckDuckGoProvider(config);
  }
}

export interface VendorEnvironment {
  /** Variables holding the key, first present wins; empty when the adapter takes none. */
  readonly apiKey: readonly string[];
  /** Whether the adapter is unusable without a key (the hosted API refuses anonymous calls). */
  readonly apiKeyRequired: boolean;
  /** The base URL override (`EVIDENT_<ID>_BASE_URL`), plus any vendor-specific name. */
  readonly baseUrl: readonly string[];
  /** Other options read from the environment, by option name. */
  readonly other?: Readonly<Record<string, string>>;
}

/**
 * Environment variables per adapter, as issue 4 and docs/PROVIDERS.md name them. A provider is
 * available from the environment when its required key (or, for SearXNG, its URL; for
 * Responses, its base URL and model) is present; jina and duckduckgo are usable keyless.
 */
export const VENDOR_ENVIRONMENT: Readonly<Record<VendorAdapter, VendorEnvironment>> = {
  tavily: { apiKey: ["TAVILY_API_KEY"], apiKeyRequired: true, baseUrl: ["EVIDENT_TAVILY_BASE_URL"] },
  brave: {
    apiKey: ["BRAVE_SEARCH_API_KEY", "BRAVE_API_KEY"],
    apiKeyRequired: true,
    baseUrl: ["EVIDENT_BRAVE_BASE_URL"],
  },
  exa: { apiKey: ["EXA_API_KEY"], apiKeyRequired: true, baseUrl: ["EVIDENT_EXA_BASE_URL"] },
  searxng: { apiKey: [], apiKeyRequired: false, baseUrl: ["SEARXNG_URL", "EVIDENT_SEARXNG_BASE_URL"] },
  serper: { apiKey: ["SERPER_API_KEY"], apiKeyRequired: true, baseUrl: ["EVIDENT_SERPER_BASE_URL"] },
  jina: { apiKey: ["JINA_API_KEY"], apiKeyRequired: false, baseUrl: ["EVIDENT_JINA_BASE_URL"] },
  firecrawl: { apiKey: ["FIRECRAWL_API_KEY"], apiKeyRequired: true, baseUrl: ["EVIDENT_FIRECRAWL_BASE_URL"] },
  responses: {
    apiKey: ["EVIDENT_RESPONSES_API_KEY"],
    apiKeyRequired: false,
    baseUrl: ["EVIDENT_RESPONSES_BASE_URL"],
    other: { model: "EVIDENT_RESPONSES_MODEL" },
  },
  duckduckgo: { apiKey: [], apiKeyRequired: false, baseUrl: ["EVIDENT_DUCKDUCKGO_BASE_URL"] },
};
