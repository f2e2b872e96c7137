/**
 * Brave Search: web search (`GET /res/v1/web/search`), key in `X-Subscription-Token`.
 *
 * `count` is capped at 20 by the API; `freshness` takes pd/pw/pm/py for our day/week/month/year.
 * `text_decorations=false` asks for snippets without Brave's highlight markup.
 * Wire shape: see docs/PROVIDERS.md (brave/brave-search-mcp-server).
 */
import type { Provider, ProviderContext, ProviderSearchOutcome, ProviderSearchRequest } from "../provider.js";
import { joinUrl, requestJson, unexpectedShape, withQuery } from "./shared/http.js";
import { deadlineOverride, presentKey, type VendorProviderOptions } from "./shared/options.js";
import { searchOutcome, toRow } from "./shared/outcome.js";
import { dateText, isRecord } from "./shared/values.js";

export const BRAVE_BASE_URL = "https://api.search.brave.com";
/** The largest `count` Brave's web search accepts. */
export const BRAVE_MAX_COUNT = 20;

const FRESHNESS = { day: "pd", week: "pw", month: "pm", year: "py" } as const;

export interface BraveProviderOptions extends VendorProviderOptions {
  readonly apiKey: string;
}

export function createBraveProvider(options: BraveProviderOptions): Provider {
  const id = options.id ?? "brave";
  const baseUrl = options.baseUrl ?? BRAVE_BASE_URL;
  const apiKey = presentKey(options.apiKey);
  if (apiKey === undefined) throw new TypeError(`${id}: an API key is required`);

  return {
    id,
    adapter: "brave",
    anonymous: false,
    capabilities: { search: true, read: false, focus: false },
    ...deadlineOverride(options),

    async search(request: ProviderSearchRequest, context: ProviderContext): Promise<ProviderSearchOutcome> {
      const url = withQuery(joinUrl(baseUrl, "/res/v1/web/search"), {
        q: request.query,
        count: String(Math.min(request.maxResults, BRAVE_MAX_COUNT)),
        freshness: request.timeRange === undefined ? undefined : FRESHNESS[request.timeRange],
        // Plain snippets: without this Brave wraps matched words in highlight markup.
        text_decorations: "false",
      });
      const body = await requestJson(id, context, {
        method: "GET",
        url,
        headers: { "x-subscription-token": apiKey },
      });
      if (!isRecord(body)) throw unexpectedShape(id);
      // Brave omits `web` entirely when nothing matched.
      if (body.web !== undefined && (!isRecord(body.web) || !Array.isArray(body.web.results))) {
        throw unexpectedShape(id);
      }
      const results = isRecord(body.web) && Array.isArray(body.web.results) ? body.web.results : [];
      const rows = results.map((item) =>
        isRecord(item)
          ? toRow({
              title: item.title,
              url: item.url,
              snippet: item.description,
              // `page_age` is an ISO date; `age` is prose ("2 days ago") and not a date.
              publishedAt: dateText(item.page_age),
            })
          : undefined,
      );
      return searchOutcome({ rows, maxResults: request.maxResults });
    },
  };
}
