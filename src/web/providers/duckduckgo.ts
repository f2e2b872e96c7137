/**
 * DuckDuckGo, keyless: the HTML results page (`GET https://html.duckduckgo.com/html/?q=`),
 * parsed for result links and snippets. It is the default search when nothing is configured,
 * so the provider is `anonymous: true`.
 *
 * A scraped page can change layout or turn into a bot check at any time, so the parser is
 * honest about what it saw: results, an explicit "no results" page (an empty result with a
 * warning), a bot check (a failure), or a page it cannot read (a `malformed` failure). It never
 * returns an empty success for a page it did not understand. Result links point at DDG's
 * redirector (`//duckduckgo.com/l/?uddg=<target>`); the target is unwrapped. Ads are skipped.
 * linkedom is imported on first use, so the MCP server starts without it.
 */
import type { HttpResponse } from "../../net/http-client.js";
import { ProviderError } from "../provider.js";
import { defineHttpProvider, type VendorProviderOptions } from "./shared/define.js";
import { type RowInput, searchOutcome, toRow } from "./shared/outcome.js";
import { httpUrl } from "./shared/values.js";

export const DUCKDUCKGO_BASE_URL = "https://html.duckduckgo.com";
/** DuckDuckGo's own date filter (`df`). */
const DATE_FILTER = { day: "d", week: "w", month: "m", year: "y" } as const;

export interface DuckDuckGoProviderOptions extends VendorProviderOptions {
  /** Sent as `User-Agent`; DuckDuckGo may refuse clients it does not recognise. */
  readonly userAgent?: string;
}

export const DUCKDUCKGO_DEFAULT_USER_AGENT = "Mozilla/5.0 (compatible; evident; +https://github.com/evident)";

export const createDuckDuckGoProvider = defineHttpProvider<DuckDuckGoProviderOptions>({
  adapter: "duckduckgo",
  baseUrl: DUCKDUCKGO_BASE_URL,
  anonymous: true,
  // DuckDuckGo answers its bot check with 202 and a challenge page instead of results.
  statuses: { 202: botCheck },

  search: {
    async run(request, { id, options }, call) {
      const response = await call.response({
        method: "GET",
        path: "/html/",
        query: {
          q: request.query,
          df: request.timeRange === undefined ? undefined : DATE_FILTER[request.timeRange],
        },
        headers: { accept: "text/html", "user-agent": options.userAgent ?? DUCKDUCKGO_DEFAULT_USER_AGENT },
      });
      const page = await parseResultsPage(id, response);
      if (page.kind === "bot-check") throw botCheck(id);
      if (page.kind === "no-results") {
        return searchOutcome({
          rows: [],
          maxResults: request.maxResults,
          warnings: [`${id} reported no results for this query`],
        });
      }
      const rows = page.rows.map(toRow);
      if (rows.every((row) => row === undefined)) {
        throw new ProviderError(id, "malformed", `${id} page had no parsable results`);
      }
      return searchOutcome({ rows, maxResults: request.maxResults });
    },
  },
});

function botCheck(id: string): ProviderError {
  return new ProviderError(id, "upstream", `${id} refused the query with a bot check`);
}

type ParsedPage =
  | { readonly kind: "results"; readonly rows: readonly RowInput[] }
  | { readonly kind: "no-results" }
  | { readonly kind: "bot-check" };

async function parseResultsPage(id: string, response: HttpResponse): Promise<ParsedPage> {
  const type = response.headers["content-type"] ?? "";
  if (!/\bhtml\b/i.test(type)) {
    throw new ProviderError(id, "malformed", `${id} returned something other than an HTML results page`);
  }
  let html: string;
  try {
    html = response.text();
  } catch (cause) {
    throw new ProviderError(id, "malformed", `${id} returned an undecodable page`, { cause });
  }
  const { parseHTML } = await import("linkedom");
  const { document } = parseHTML(html);

  const rows: RowInput[] = [];
  for (const result of document.querySelectorAll(".result")) {
    if (result.classList.contains("result--ad")) continue;
    const link = result.querySelector("a.result__a");
    if (link === null) continue;
    rows.push({
      title: squeeze(link.textContent),
      url: unwrapRedirect(link.getAttribute("href")),
      snippet: squeeze(result.querySelector(".result__snippet")?.textContent),
    });
  }
  if (rows.length > 0) return { kind: "results", rows };
  if (document.querySelector(".no-results") !== null) return { kind: "no-results" };
  if (document.querySelector(".anomaly-modal, #challenge-form, form[action*='anomaly']") !== null) {
    return { kind: "bot-check" };
  }
  throw new ProviderError(id, "malformed", `${id} page had no parsable results`);
}

/**
 * The destination of a result link: DDG's redirector (`//duckduckgo.com/l/?uddg=<encoded>`,
 * protocol-relative or absolute) is unwrapped; a direct http(s) link is kept as is.
 */
export function unwrapRedirect(href: string | null | undefined): string | undefined {
  if (href === null || href === undefined || href.length === 0) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(href.startsWith("//") ? `https:${href}` : href, "https://duckduckgo.com/");
  } catch {
    return undefined;
  }
  const isRedirector =
    (parsed.hostname === "duckduckgo.com" || parsed.hostname.endsWith(".duckduckgo.com")) &&
    parsed.pathname.startsWith("/l/");
  if (isRedirector) return httpUrl(parsed.searchParams.get("uddg") ?? undefined);
  // A relative link is one of DuckDuckGo's own pages (ads, settings), not a result.
  if (!/^(https?:)?\/\//i.test(href)) return undefined;
  return httpUrl(href.startsWith("//") ? parsed.toString() : href);
}

function squeeze(value: string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  const squeezed = value.replace(/\s+/g, " ").trim();
  return squeezed.length > 0 ? squeezed : undefined;
}
