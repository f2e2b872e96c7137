/**
 * Serper (Google results): search (`POST /search`), key in `X-API-KEY`.
 *
 * The result URL is `link`. A time range becomes Google's `tbs=qdr:<d|w|m|y>`. The answer box,
 * when Google shows one, becomes the answer. Wire shape: see docs/PROVIDERS.md.
 */
import { defineHttpProvider, type VendorProviderOptions } from "./shared/define.js";
import { unexpectedShape } from "./shared/http.js";
import { googleTbs, rowsOf, searchOutcome } from "./shared/outcome.js";
import { dateText, isRecord, text } from "./shared/values.js";

export const SERPER_BASE_URL = "https://google.serper.dev";

export interface SerperProviderOptions extends VendorProviderOptions {
  readonly apiKey: string;
}

export const createSerperProvider = defineHttpProvider<SerperProviderOptions>({
  adapter: "serper",
  baseUrl: SERPER_BASE_URL,
  auth: { header: "x-api-key", required: true },

  search: {
    request: (request) => {
      const tbs = googleTbs(request.timeRange);
      return {
        method: "POST",
        path: "/search",
        body: { q: request.query, num: request.maxResults, ...(tbs === undefined ? {} : { tbs }) },
      };
    },
    response: (body, request, { id }) => {
      if (!isRecord(body)) throw unexpectedShape(id);
      // Serper omits `organic` when Google found nothing.
      if (body.organic !== undefined && !Array.isArray(body.organic)) throw unexpectedShape(id);
      const rows = rowsOf(body.organic, (item) => ({
        title: item.title,
        url: item.link,
        snippet: item.snippet,
        publishedAt: dateText(item.date),
      }));
      const box = isRecord(body.answerBox) ? body.answerBox : undefined;
      return searchOutcome({
        rows,
        maxResults: request.maxResults,
        answer: box === undefined ? undefined : (text(box.answer) ?? text(box.snippet)),
      });
    },
  },
});
