/**
 * Exa: search (`POST /search`) and read (`POST /contents`), key in `x-api-key`.
 *
 * Search asks for highlights so rows carry a snippet; a time range becomes
 * `startPublishedDate`. Read reports per-URL failures in `statuses` (with a `tag` such as
 * CRAWL_NOT_FOUND) while the call itself answers 200; those become failures here, never an
 * empty success. Wire shape: see docs/PROVIDERS.md (docs.exa.ai OpenAPI, exa-labs/exa-js).
 */
import { ProviderError } from "../provider.js";
import { defineHttpProvider, type VendorProviderOptions } from "./shared/define.js";
import { unexpectedShape } from "./shared/http.js";
import { readOutcome, rowsOf, searchOutcome, timeRangeStart } from "./shared/outcome.js";
import { arrayOf, dateText, isRecord, text } from "./shared/values.js";

export const EXA_BASE_URL = "https://api.exa.ai";

export interface ExaProviderOptions extends VendorProviderOptions {
  readonly apiKey: string;
  /** Exa search type: `auto` (default), `fast`, `deep`... passed through. */
  readonly searchType?: string;
  /** Cap on the page text Exa returns for a read (characters); unset means Exa's default. */
  readonly readMaxCharacters?: number;
}

export const createExaProvider = defineHttpProvider<ExaProviderOptions>({
  adapter: "exa",
  baseUrl: EXA_BASE_URL,
  auth: { header: "x-api-key", required: true },

  search: {
    request: (request, { options }) => ({
      method: "POST",
      path: "/search",
      body: {
        query: request.query,
        type: options.searchType ?? "auto",
        numResults: request.maxResults,
        contents: { highlights: { numSentences: 3, highlightsPerUrl: 1 } },
        ...(request.timeRange === undefined ? {} : { startPublishedDate: timeRangeStart(request.timeRange) }),
      },
    }),
    response: (body, request, { id }) => {
      if (!isRecord(body) || !Array.isArray(body.results)) throw unexpectedShape(id);
      const rows = rowsOf(body.results, (item) => {
        const highlights = arrayOf(item.highlights)
          .map(text)
          .filter((h) => h !== undefined);
        return {
          title: item.title,
          url: item.url,
          snippet: highlights.length > 0 ? highlights.join(" … ") : item.summary,
          publishedAt: dateText(item.publishedDate),
          author: item.author,
        };
      });
      return searchOutcome({ rows, maxResults: request.maxResults });
    },
  },

  read: {
    request: (request, { options }) => ({
      method: "POST",
      path: "/contents",
      body: {
        urls: [request.url],
        text: options.readMaxCharacters === undefined ? true : { maxCharacters: options.readMaxCharacters },
        extras: { links: 50 },
      },
    }),
    response: (body, request, { id }) => {
      if (!isRecord(body) || !Array.isArray(body.results)) throw unexpectedShape(id);
      // One URL in, so any error status is about it (Exa may normalize the URL it echoes).
      const failed = arrayOf(body.statuses).find((status) => isRecord(status) && status.status === "error");
      const results = body.results.filter(isRecord);
      const result =
        results.find((item) => item.url === request.url || item.id === request.url) ?? results[0];
      if (result === undefined || (failed !== undefined && text(result.text) === undefined)) {
        throw new ProviderError(id, "upstream", `${id} could not fetch the page${statusTag(failed)}`);
      }
      const links = isRecord(result.extras) ? arrayOf(result.extras.links) : [];
      return readOutcome(id, { title: result.title, parts: [text(result.text)], links });
    },
  },
});

/** Exa's error tag (an enum such as CRAWL_NOT_FOUND), only when it has the enum's form. */
function statusTag(status: unknown): string {
  if (!isRecord(status) || !isRecord(status.error)) return "";
  const tag = status.error.tag;
  return typeof tag === "string" && /^[A-Z][A-Z0-9_]{0,63}$/.test(tag) ? ` (${tag})` : "";
}
