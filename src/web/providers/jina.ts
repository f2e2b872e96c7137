/**
 * Jina: reader (`POST https://r.jina.ai/` `{url}`) and search (`POST https://s.jina.ai/` `{q, num}`),
 * JSON via `Accept: application/json`, optional Bearer key.
 *
 * Without a key the reader runs on Jina's anonymous, rate-limited tier: the provider then says
 * `anonymous: true` up front (never as a silent recovery from a rejected key), and search, which
 * needs a key, is not offered. A read `focus` is Jina's question-grounded read (the official Jina
 * MCP server's `question`): `POST https://svip.jina.ai/` `{q, url}` returns the passages that
 * best answer it; when none come back the plain page is returned with a warning saying so.
 * Wire shape: see docs/PROVIDERS.md (jina-ai/reader README, jina-ai/MCP).
 */
import type {
  Provider,
  ProviderContext,
  ProviderReadOutcome,
  ProviderReadRequest,
  ProviderSearchOutcome,
  ProviderSearchRequest,
} from "../provider.js";
import { ProviderError } from "../provider.js";
import { joinUrl, requestJson, unexpectedShape } from "./shared/http.js";
import { deadlineOverride, presentKey, type VendorProviderOptions } from "./shared/options.js";
import { readOutcome, searchOutcome, timeRangeIgnored, toRow } from "./shared/outcome.js";
import { arrayOf, dateText, isRecord, text } from "./shared/values.js";

export const JINA_READER_URL = "https://r.jina.ai";
export const JINA_SEARCH_URL = "https://s.jina.ai";
export const JINA_QUESTION_URL = "https://svip.jina.ai";
/** Passages kept for a focused (question-grounded) read. */
export const JINA_FOCUS_PASSAGES = 3;

export interface JinaProviderOptions extends VendorProviderOptions {
  /** Optional: without it the reader is anonymous and search is unavailable. */
  readonly apiKey?: string;
  /** `baseUrl` overrides all three endpoints at once (one proxy or fake); these override one each. */
  readonly readerUrl?: string;
  readonly searchUrl?: string;
  readonly questionUrl?: string;
}

export function createJinaProvider(options: JinaProviderOptions = {}): Provider {
  const id = options.id ?? "jina";
  const apiKey = presentKey(options.apiKey);
  const readerUrl = options.readerUrl ?? options.baseUrl ?? JINA_READER_URL;
  const searchUrl = options.searchUrl ?? options.baseUrl ?? JINA_SEARCH_URL;
  const questionUrl = options.questionUrl ?? options.baseUrl ?? JINA_QUESTION_URL;
  const auth: Record<string, string> = apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` };

  async function plainRead(url: string, context: ProviderContext) {
    const body = await requestJson(id, context, {
      method: "POST",
      url: joinUrl(readerUrl, "/"),
      headers: { ...auth, "x-with-links-summary": "all", "x-retain-images": "none" },
      body: { url },
    });
    if (!isRecord(body)) throw unexpectedShape(id);
    if (!isRecord(body.data)) {
      // Jina reports refusals (e.g. 451 SecurityCompromiseError) as `data: null`.
      if (body.data === null || body.data === undefined) {
        throw new ProviderError(id, "upstream", `${id} could not read the page`);
      }
      throw unexpectedShape(id);
    }
    return body.data;
  }

  const provider: Provider = {
    id,
    adapter: "jina",
    anonymous: apiKey === undefined,
    capabilities: { search: apiKey !== undefined, read: true, focus: true },
    ...deadlineOverride(options),

    async read(request: ProviderReadRequest, context: ProviderContext): Promise<ProviderReadOutcome> {
      const warnings: string[] = [];
      if (request.focus !== undefined) {
        const focused = await questionRead(request.url, request.focus, context);
        if (focused !== undefined) {
          return readOutcome(id, { title: focused.title, parts: focused.passages });
        }
        warnings.push(`${id} found no passage answering the focus; the whole page is returned`);
      }
      const data = await plainRead(request.url, context);
      return readOutcome(id, {
        title: data.title,
        parts: [text(data.content)],
        links: linkUrls(data.links),
        warnings,
      });
    },
  };

  async function questionRead(url: string, question: string, context: ProviderContext) {
    const body = await requestJson(id, context, {
      method: "POST",
      url: joinUrl(questionUrl, "/"),
      headers: auth,
      body: { q: question, url, topk: JINA_FOCUS_PASSAGES },
    });
    if (!isRecord(body)) throw unexpectedShape(id);
    const first = arrayOf(body.results).find(isRecord);
    const snippet = first === undefined ? undefined : text(first.snippet);
    return first === undefined || snippet === undefined
      ? undefined
      : { title: first.title, passages: [snippet] };
  }

  if (apiKey !== undefined) {
    return {
      ...provider,
      async search(request: ProviderSearchRequest, context: ProviderContext): Promise<ProviderSearchOutcome> {
        const body = await requestJson(id, context, {
          method: "POST",
          url: joinUrl(searchUrl, "/"),
          // Titles, URLs and descriptions only: page bodies are what web_read is for.
          headers: { ...auth, "x-respond-with": "no-content" },
          body: { q: request.query, num: request.maxResults },
        });
        if (!isRecord(body)) throw unexpectedShape(id);
        if (body.data !== null && body.data !== undefined && !Array.isArray(body.data))
          throw unexpectedShape(id);
        const rows = arrayOf(body.data).map((item) =>
          isRecord(item)
            ? toRow({
                title: item.title,
                url: item.url,
                snippet: text(item.description) ?? text(item.content),
                publishedAt: dateText(item.date),
              })
            : undefined,
        );
        return searchOutcome({
          rows,
          maxResults: request.maxResults,
          warnings: timeRangeIgnored(id, request.timeRange),
        });
      },
    };
  }
  return provider;
}

/** Jina's links summary: `[[text, url], ...]` with `all`, or `{text: url}` in older answers. */
function linkUrls(links: unknown): unknown[] {
  if (Array.isArray(links)) return links.map((link) => (Array.isArray(link) ? link[1] : link));
  if (isRecord(links)) return Object.values(links);
  return [];
}
