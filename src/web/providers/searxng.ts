/**
 * SearXNG: an operator's own metasearch instance (`GET <base>/search?format=json`).
 *
 * SearXNG has no result count, so results are sliced here. JSON output must be enabled in the
 * instance's settings.yml (`search.formats`); without it SearXNG answers 403, which is a
 * configuration problem the operator must fix, reported as such. An optional key is sent as
 * Bearer for instances behind an authenticating proxy. Wire shape: see docs/PROVIDERS.md
 * (docs.searxng.org, Search API).
 */
import type { HttpResponse } from "../../net/http-client.js";
import type { Provider, ProviderContext, ProviderSearchOutcome, ProviderSearchRequest } from "../provider.js";
import { ProviderError } from "../provider.js";
import { joinUrl, requestJson, unexpectedShape, withQuery } from "./shared/http.js";
import { deadlineOverride, presentKey, type VendorProviderOptions } from "./shared/options.js";
import { searchOutcome, toRow } from "./shared/outcome.js";
import { arrayOf, dateText, isRecord, text } from "./shared/values.js";

export interface SearxngProviderOptions extends VendorProviderOptions {
  /** The instance's base URL (`SEARXNG_URL`); required, SearXNG has no public default. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer` for instances behind an authenticating proxy. */
  readonly apiKey?: string;
}

export const SEARXNG_JSON_DISABLED_REASON =
  "searxng HTTP 403: the instance does not serve JSON; add `json` to `search.formats` in its settings.yml";

export function createSearxngProvider(options: SearxngProviderOptions): Provider {
  const id = options.id ?? "searxng";
  if (text(options.baseUrl) === undefined) throw new TypeError(`${id}: a base URL is required`);
  const apiKey = presentKey(options.apiKey);
  const headers: Record<string, string> = apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` };

  const onStatus = (response: HttpResponse): ProviderError | undefined =>
    response.status === 403
      ? new ProviderError(id, "configuration", SEARXNG_JSON_DISABLED_REASON.replace(/^searxng/, id), {
          status: 403,
        })
      : undefined;

  return {
    id,
    adapter: "searxng",
    // The operator's own instance: configured, so not an anonymous third-party tier.
    anonymous: false,
    capabilities: { search: true, read: false, focus: false },
    ...deadlineOverride(options),

    async search(request: ProviderSearchRequest, context: ProviderContext): Promise<ProviderSearchOutcome> {
      const url = withQuery(joinUrl(options.baseUrl, "/search"), {
        q: request.query,
        format: "json",
        pageno: "1",
        time_range: request.timeRange,
      });
      const body = await requestJson(id, context, { method: "GET", url, headers }, { onStatus });
      if (!isRecord(body) || !Array.isArray(body.results)) throw unexpectedShape(id);
      const rows = body.results.map((item) =>
        isRecord(item)
          ? toRow({
              title: item.title,
              url: item.url,
              snippet: item.content,
              publishedAt: dateText(item.publishedDate),
              author: item.author,
            })
          : undefined,
      );
      return searchOutcome({ rows, maxResults: request.maxResults, answer: firstAnswer(body.answers) });
    },
  };
}

/** SearXNG answers are plain strings in older releases and `{answer, url}` objects in newer. */
function firstAnswer(answers: unknown): string | undefined {
  for (const answer of arrayOf(answers)) {
    const value = isRecord(answer) ? text(answer.answer) : text(answer);
    if (value !== undefined) return value;
  }
  return undefined;
}
