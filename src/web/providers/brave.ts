/**
 * Brave Search: web search (`GET /res/v1/web/search`), key in `X-Subscription-Token`.
 *
 * `count` is capped at 20 by the API; `freshness` takes pd/pw/pm/py for our day/week/month/year.
 * `text_decorations=false` asks for snippets without Brave's highlight markup.
 * Wire shape: see docs/PROVIDERS.md (brave/brave-search-mcp-server).
 */
import { defineHttpProvider, type VendorProviderOptions } from "./shared/define.js";
import { unexpectedShape } from "./shared/http.js";
import { rowsOf, searchOutcome } from "./shared/outcome.js";
import { dateText, isRecord } from "./shared/values.js";

export const BRAVE_BASE_URL = "https://api.search.brave.com";
/** The largest `count` Brave's web search accepts. */
export const BRAVE_MAX_COUNT = 20;

const FRESHNESS = { day: "pd", week: "pw", month: "pm", year: "py" } as const;

export interface BraveProviderOptions extends VendorProviderOptions {
  readonly apiKey: string;
}

export const createBraveProvider = defineHttpProvider<BraveProviderOptions>({
  adapter: "brave",
  baseUrl: BRAVE_BASE_URL,
  auth: { header: "x-subscription-token", required: true },

  search: {
    request: (request) => ({
      method: "GET",
      path: "/res/v1/web/search",
      query: {
        q: request.query,
        count: String(Math.min(request.maxResults, BRAVE_MAX_COUNT)),
        freshness: request.timeRange === undefined ? undefined : FRESHNESS[request.timeRange],
        // Plain snippets: without this Brave wraps matched words in highlight markup.
        text_decorations: "false",
      },
    }),
    response: (body, request, { id }) => {
      if (!isRecord(body)) throw unexpectedShape(id);
      // Brave omits `web` entirely when nothing matched.
      if (body.web !== undefined && (!isRecord(body.web) || !Array.isArray(body.web.results))) {
        throw unexpectedShape(id);
      }
      const rows = rowsOf(isRecord(body.web) ? body.web.results : [], (item) => ({
        title: item.title,
        url: item.url,
        snippet: item.description,
        // `page_age` is an ISO date; `age` is prose ("2 days ago") and not a date.
        publishedAt: dateText(item.page_age),
      }));
      return searchOutcome({ rows, maxResults: request.maxResults });
    },
  },
});
