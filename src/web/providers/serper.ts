/**
 * Serper (Google results): search (`POST /search`), key in `X-API-KEY`.
 *
 * The result URL is `link`. A time range becomes Google's `tbs=qdr:<d|w|m|y>`. The answer box,
 * when Google shows one, becomes the answer. Wire shape: see docs/PROVIDERS.md.
 */
import type { Provider, ProviderContext, ProviderSearchOutcome, ProviderSearchRequest } from "../provider.js";
import { joinUrl, requestJson, unexpectedShape } from "./shared/http.js";
import { deadlineOverride, presentKey, type VendorProviderOptions } from "./shared/options.js";
import { googleTbs, searchOutcome, toRow } from "./shared/outcome.js";
import { dateText, isRecord, text } from "./shared/values.js";

export const SERPER_BASE_URL = "https://google.serper.dev";

export interface SerperProviderOptions extends VendorProviderOptions {
  readonly apiKey: string;
}

export function createSerperProvider(options: SerperProviderOptions): Provider {
  const id = options.id ?? "serper";
  const baseUrl = options.baseUrl ?? SERPER_BASE_URL;
  const apiKey = presentKey(options.apiKey);
  if (apiKey === undefined) throw new TypeError(`${id}: an API key is required`);

  return {
    id,
    adapter: "serper",
    anonymous: false,
    capabilities: { search: true, read: false, focus: false },
    ...deadlineOverride(options),

    async search(request: ProviderSearchRequest, context: ProviderContext): Promise<ProviderSearchOutcome> {
      const tbs = googleTbs(request.timeRange);
      const body = await requestJson(id, context, {
        method: "POST",
        url: joinUrl(baseUrl, "/search"),
        headers: { "x-api-key": apiKey },
        body: { q: request.query, num: request.maxResults, ...(tbs === undefined ? {} : { tbs }) },
      });
      if (!isRecord(body)) throw unexpectedShape(id);
      // Serper omits `organic` when Google found nothing.
      if (body.organic !== undefined && !Array.isArray(body.organic)) throw unexpectedShape(id);
      const organic = Array.isArray(body.organic) ? body.organic : [];
      const rows = organic.map((item) =>
        isRecord(item)
          ? toRow({
              title: item.title,
              url: item.link,
              snippet: item.snippet,
              publishedAt: dateText(item.date),
            })
          : undefined,
      );
      const box = isRecord(body.answerBox) ? body.answerBox : undefined;
      return searchOutcome({
        rows,
        maxResults: request.maxResults,
        answer: box === undefined ? undefined : (text(box.answer) ?? text(box.snippet)),
      });
    },
  };
}
