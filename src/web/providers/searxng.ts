/**
 * SearXNG: an operator's own metasearch instance (`GET <base>/search?format=json`).
 *
 * SearXNG has no result count, so results are sliced here. JSON output must be enabled in the
 * instance's settings.yml (`search.formats`); without it SearXNG answers 403, which is a
 * configuration problem the operator must fix, reported as such. An optional key is sent as
 * Bearer for instances behind an authenticating proxy. Wire shape: see docs/PROVIDERS.md
 * (docs.searxng.org, Search API).
 */
import { ProviderError } from "../provider.js";
import { defineHttpProvider, type VendorProviderOptions } from "./shared/define.js";
import { unexpectedShape } from "./shared/http.js";
import { rowsOf, searchOutcome } from "./shared/outcome.js";
import { arrayOf, dateText, isRecord, text } from "./shared/values.js";

export interface SearxngProviderOptions extends VendorProviderOptions {
  /** The instance's base URL (`SEARXNG_URL`); required, SearXNG has no public default. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer` for instances behind an authenticating proxy. */
  readonly apiKey?: string;
}

export const SEARXNG_JSON_DISABLED_REASON =
  "searxng HTTP 403: the instance does not serve JSON; add `json` to `search.formats` in its settings.yml";

export const createSearxngProvider = defineHttpProvider<SearxngProviderOptions>({
  adapter: "searxng",
  // No baseUrl: the operator's own instance must be configured.
  auth: { header: "authorization", prefix: "Bearer ", required: false },
  statuses: {
    403: (id) =>
      new ProviderError(id, "configuration", SEARXNG_JSON_DISABLED_REASON.replace(/^searxng/, id), {
        status: 403,
      }),
  },

  search: {
    request: (request) => ({
      method: "GET",
      path: "/search",
      query: { q: request.query, format: "json", pageno: "1", time_range: request.timeRange },
    }),
    response: (body, request, { id }) => {
      if (!isRecord(body) || !Array.isArray(body.results)) throw unexpectedShape(id);
      const rows = rowsOf(body.results, (item) => ({
        title: item.title,
        url: item.url,
        snippet: item.content,
        publishedAt: dateText(item.publishedDate),
        author: item.author,
      }));
      return searchOutcome({ rows, maxResults: request.maxResults, answer: firstAnswer(body.answers) });
    },
  },
});

/** SearXNG answers are plain strings in older releases and `{answer, url}` objects in newer. */
function firstAnswer(answers: unknown): string | undefined {
  for (const answer of arrayOf(answers)) {
    const value = isRecord(answer) ? text(answer.answer) : text(answer);
    if (value !== undefined) return value;
  }
  return undefined;
}
