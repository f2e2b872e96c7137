/**
 * Presets for the vendors' official MCP servers: where the server is, which tools serve search and
 * read, and how our inputs map into their arguments. Tool and argument names are the ones those
 * servers expose today; docs/CONFIG.md ("Upstream MCP providers") names the repository file each
 * was confirmed in. A provider entry may override any part; overriding replaces that part whole.
 */
import type { McpConnection, McpPresetId, ToolBinding } from "./binding.js";
import { MCP_PRESET_IDS } from "./binding.js";

export interface McpPreset {
  readonly id: McpPresetId;
  readonly connection: McpConnection;
  readonly search?: ToolBinding;
  readonly read?: ToolBinding;
  /** Used without any operator credential (a documented keyless tier). */
  readonly anonymous: boolean;
}

/** Exa's hosted endpoint, restricted to the two tools we bind (its documented `tools` parameter). */
const EXA_HOSTED_URL = "https://mcp.exa.ai/mcp?tools=web_search_exa,web_fetch_exa";
/**
 * Exa's `web_fetch_exa` cuts pages at 3,000 characters unless told otherwise; ask for as much as
 * one envelope can hold, so that clipping stays ours and visible (`truncated`).
 */
const EXA_FETCH_MAX_CHARACTERS = 40_000;

const EXA_SEARCH: ToolBinding = {
  tool: "web_search_exa",
  arguments: { query: "$query", numResults: "$maxResults" },
  format: "exa",
};
const EXA_READ: ToolBinding = {
  tool: "web_fetch_exa",
  arguments: { urls: ["$url"], maxCharacters: EXA_FETCH_MAX_CHARACTERS },
  format: "exa",
};

export const MCP_PRESETS: Readonly<Record<McpPresetId, McpPreset>> = {
  "exa-hosted": {
    id: "exa-hosted",
    connection: { url: EXA_HOSTED_URL },
    search: EXA_SEARCH,
    read: EXA_READ,
    anonymous: true,
  },
  exa: {
    id: "exa",
    connection: { url: EXA_HOSTED_URL, headers: { "x-api-key": { env: "EXA_API_KEY" } } },
    search: EXA_SEARCH,
    read: EXA_READ,
    anonymous: false,
  },
  tavily: {
    id: "tavily",
    connection: {
      command: "npx",
      args: ["-y", "tavily-mcp@latest"],
      env: { TAVILY_API_KEY: { env: "TAVILY_API_KEY" } },
    },
    search: {
      tool: "tavily_search",
      arguments: {
        query: "$query",
        max_results: "$maxResults",
        time_range: "$timeRange",
        search_depth: "basic",
        topic: "general",
      },
      format: "tavily",
    },
    read: {
      tool: "tavily_extract",
      // `query` reranks the extracted chunks by relevance: that is what focus means here.
      arguments: { urls: ["$url"], extract_depth: "basic", format: "markdown", query: "$focus" },
      format: "tavily",
    },
    anonymous: false,
  },
  firecrawl: {
    id: "firecrawl",
    connection: {
      url: "https://mcp.firecrawl.dev/v2/mcp",
      headers: { Authorization: { env: "FIRECRAWL_API_KEY", prefix: "Bearer " } },
    },
    search: {
      tool: "firecrawl_search",
      arguments: { query: "$query", limit: "$maxResults" },
      format: "firecrawl",
    },
    read: {
      tool: "firecrawl_scrape",
      // Markdown of the main content; no focus mapping (an operator may add one in the binding).
      arguments: { url: "$url", formats: ["markdown"], onlyMainContent: true },
      format: "firecrawl",
    },
    anonymous: false,
  },
  jina: {
    id: "jina",
    connection: {
      url: "https://mcp.jina.ai/v1",
      headers: { Authorization: { env: "JINA_API_KEY", prefix: "Bearer " } },
    },
    search: {
      tool: "search_web",
      arguments: { query: "$query", num: "$maxResults" },
      format: "jina",
    },
    read: {
      tool: "read_url",
      // `question` narrows the page to the passages answering it: our focus.
      arguments: { url: "$url", question: "$focus" },
      format: "jina",
    },
    anonymous: false,
  },
};

/** The provider id a preset enabled through the environment gets: `mcp-<preset>`. */
export function presetProviderId(preset: McpPresetId): string {
  return `mcp-${preset}`;
}

/**
 * Keyless-default decision: which presets join the no-configuration search route after
 * `duckduckgo`. None. Exa's hosted tier is documented as anonymous and every response would name
 * it so, but joining it by default would add a fallback, and send every agent query to a second
 * third party, that no operator chose (DESIGN principle 4, S03). One variable opts in:
 * `EVIDENT_MCP_PRESETS=exa-hosted` plus `EVIDENT_SEARCH_ROUTE=duckduckgo,mcp-exa-hosted`.
 */
export const KEYLESS_DEFAULT_SEARCH_PRESETS: readonly McpPresetId[] = [];

export interface PresetEntry {
  readonly id: string;
  readonly entry: { readonly type: "mcp"; readonly preset: McpPresetId };
}

/**
 * Provider entries for the preset ids of `EVIDENT_MCP_PRESETS` (config/ splits the list).
 * Unknown ids are reported, not ignored, so a typo is a configuration error naming the value.
 */
export function presetEntries(names: readonly string[]): {
  readonly entries: PresetEntry[];
  readonly unknown: string[];
} {
  const entries: PresetEntry[] = [];
  const unknown: string[] = [];
  for (const name of names.map((part) => part.trim())) {
    if (name.length === 0) continue;
    if (!(MCP_PRESET_IDS as readonly string[]).includes(name)) {
      unknown.push(name);
      continue;
    }
    const preset = name as McpPresetId;
    if (!entries.some((found) => found.entry.preset === preset)) {
      entries.push({ id: presetProviderId(preset), entry: { type: "mcp", preset } });
    }
  }
  return { entries, unknown };
}
