/**
 * Tavily: search (`POST /search`) and read (`POST /extract`), Bearer key.
 *
 * Read maps `focus` to the extract `query`, which Tavily uses to rerank and keep the chunks most
 * relevant to it: a real focus mapping, so the capability is declared. Wire shape: see
 * docs/PROVIDERS.md (Tavily's official JS client, tavily-ai/tavily-js).
 */
import { ProviderError } from "../provider.js";
import { defineHttpProvider, type VendorProviderOptions } from "./shared/define.js";
import { unexpectedShape } from "./shared/http.js";
import { readOutcome, rowsOf, searchOutcome } from "./shared/outcome.js";
import { arrayOf, isRecord, text } from "./shared/values.js";

export const TAVILY_BASE_URL = "https://api.tavily.com";

export interface TavilyProviderOptions extends VendorProviderOptions {
  readonly apiKey: string;
  /** `basic` (default, 1 credit) or `advanced` (2 credits, better recall). */
  readonly searchDepth?: "basic" | "advanced";
  /** `basic` (default) or `advanced` (tables, embedded content; slower). */
  readonly extractDepth?: "basic" | "advanced";
  /** Ask Tavily for its short generated answer (default true). */
  readonly includeAnswer?: boolean;
}

export const createTavilyProvider = defineHttpProvider<TavilyProviderOptions>({
  adapter: "tavily",
  baseUrl: TAVILY_BASE_URL,
  auth: { header: "authorization", prefix: "Bearer ", required: true },

  search: {
    request: (request, { options }) => ({
      method: "POST",
      path: "/search",
      body: {
        query: request.query,
        topic: "general",
        search_depth: options.searchDepth ?? "basic",
        max_results: request.maxResults,
        include_answer: options.includeAnswer ?? true,
        include_raw_content: false,
        ...(request.timeRange === undefined ? {} : { time_range: request.timeRange }),
      },
    }),
    response: (body, request, { id }) => {
      if (!isRecord(body) || !Array.isArray(body.results)) throw unexpectedShape(id);
      const rows = rowsOf(body.results, (item) => ({
        title: item.title,
        url: item.url,
        snippet: item.content,
        publishedAt: item.published_date,
      }));
      return searchOutcome({ rows, maxResults: request.maxResults, answer: body.answer });
    },
  },

  // GET /usage: the key's and the account's credit usage; it costs no credit.
  probe: {
    request: () => ({ method: "GET", path: "/usage" }),
    response: (body, _request, { id }) => {
      if (!isRecord(body) || !isRecord(body.key)) throw unexpectedShape(id);
    },
  },

  read: {
    focus: true,
    request: (request, { options }) => ({
      method: "POST",
      path: "/extract",
      body: {
        urls: [request.url],
        format: "markdown",
        extract_depth: options.extractDepth ?? "basic",
        ...(request.focus === undefined ? {} : { query: request.focus }),
      },
    }),
    response: (body, request, { id }) => {
      if (!isRecord(body) || !Array.isArray(body.results)) throw unexpectedShape(id);
      // One URL in: take its result (Tavily may normalize the URL, so fall back to the first).
      const results = body.results.filter(isRecord);
      const result = results.find((item) => item.url === request.url) ?? results[0];
      if (result === undefined) {
        const failed = arrayOf(body.failed_results).length > 0;
        const reason = failed ? `${id} could not extract the page` : `${id} returned no content for the page`;
        throw new ProviderError(id, "upstream", reason);
      }
      return readOutcome(id, { title: text(result.title), parts: [text(result.raw_content)] });
    },
  },
});
