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
import { ProviderError } from "../provider.js";
import {
  defineHttpProvider,
  type Vendor,
  type VendorCall,
  type VendorProviderOptions,
} from "./shared/define.js";
import { unexpectedShape } from "./shared/http.js";
import { readOutcome, rowsOf, searchOutcome, timeRangeIgnored } from "./shared/outcome.js";
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

type Jina = Vendor<JinaProviderOptions>;

export const createJinaProvider = defineHttpProvider<JinaProviderOptions>({
  adapter: "jina",
  baseUrl: JINA_READER_URL,
  auth: { header: "authorization", prefix: "Bearer ", required: false },
  anonymous: "without-key",

  read: {
    focus: true,
    async run(request, jina, call) {
      const warnings: string[] = [];
      if (request.focus !== undefined) {
        const focused = await questionRead(request.url, request.focus, jina, call);
        if (focused !== undefined)
          return readOutcome(jina.id, { title: focused.title, parts: focused.passages });
        warnings.push(`${jina.id} found no passage answering the focus; the whole page is returned`);
      }
      const data = await plainRead(request.url, jina, call);
      return readOutcome(jina.id, {
        title: data.title,
        parts: [text(data.content)],
        links: linkUrls(data.links),
        warnings,
      });
    },
  },

  search: {
    requiresKey: true,
    request: (request, { options }) => ({
      method: "POST",
      base: options.searchUrl ?? options.baseUrl ?? JINA_SEARCH_URL,
      path: "/",
      // Titles, URLs and descriptions only: page bodies are what web_read is for.
      headers: { "x-respond-with": "no-content" },
      body: { q: request.query, num: request.maxResults },
    }),
    response: (body, request, { id }) => {
      if (!isRecord(body)) throw unexpectedShape(id);
      if (body.data !== null && body.data !== undefined && !Array.isArray(body.data))
        throw unexpectedShape(id);
      const rows = rowsOf(body.data, (item) => ({
        title: item.title,
        url: item.url,
        snippet: text(item.description) ?? text(item.content),
        publishedAt: dateText(item.date),
      }));
      return searchOutcome({
        rows,
        maxResults: request.maxResults,
        warnings: timeRangeIgnored(id, request.timeRange),
      });
    },
  },
});

async function plainRead(url: string, jina: Jina, call: VendorCall): Promise<Record<string, unknown>> {
  const body = await call.json({
    method: "POST",
    base: jina.options.readerUrl ?? jina.baseUrl,
    path: "/",
    headers: { "x-with-links-summary": "all", "x-retain-images": "none" },
    body: { url },
  });
  if (!isRecord(body)) throw unexpectedShape(jina.id);
  if (!isRecord(body.data)) {
    // Jina reports refusals (e.g. 451 SecurityCompromiseError) as `data: null`.
    if (body.data === null || body.data === undefined) {
      throw new ProviderError(jina.id, "upstream", `${jina.id} could not read the page`);
    }
    throw unexpectedShape(jina.id);
  }
  return body.data;
}

async function questionRead(url: string, question: string, jina: Jina, call: VendorCall) {
  const body = await call.json({
    method: "POST",
    base: jina.options.questionUrl ?? jina.options.baseUrl ?? JINA_QUESTION_URL,
    path: "/",
    body: { q: question, url, topk: JINA_FOCUS_PASSAGES },
  });
  if (!isRecord(body)) throw unexpectedShape(jina.id);
  const first = arrayOf(body.results).find(isRecord);
  const snippet = first === undefined ? undefined : text(first.snippet);
  return first === undefined || snippet === undefined
    ? undefined
    : { title: first.title, passages: [snippet] };
}

/** Jina's links summary: `[[text, url], ...]` with `all`, or `{text: url}` in older answers. */
function linkUrls(links: unknown): unknown[] {
  if (Array.isArray(links)) return links.map((link) => (Array.isArray(link) ? link[1] : link));
  if (isRecord(links)) return Object.values(links);
  return [];
}
