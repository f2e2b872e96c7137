/**
 * Firecrawl v2: read (`POST /v2/scrape`, markdown of the main content) and search
 * (`POST /v2/search`), Bearer key (optional for a self-hosted instance).
 *
 * A read `focus` is Firecrawl's question format (`{type: "question", question}`), whose answer
 * comes back as `data.answer` and is returned before the page's markdown.
 *
 * Metadata: only `creditsUsed`, `cacheState` and `cachedAt` are projected, and each only when it
 * validates (a finite non-negative number, `hit`/`miss`, a parseable date). Everything else in
 * Firecrawl's metadata stays out, and the page text is never searched for such fields.
 * Wire shape: see docs/PROVIDERS.md (firecrawl/firecrawl, apps/js-sdk/firecrawl/src/v2).
 */
import { ProviderError, type ReadMetadata } from "../provider.js";
import { defineHttpProvider, type VendorProviderOptions } from "./shared/define.js";
import { unexpectedShape } from "./shared/http.js";
import { googleTbs, readOutcome, rowsOf, searchOutcome } from "./shared/outcome.js";
import { arrayOf, dateText, isRecord, text } from "./shared/values.js";

export const FIRECRAWL_BASE_URL = "https://api.firecrawl.dev";

export interface FirecrawlProviderOptions extends VendorProviderOptions {
  /** Required by Firecrawl's hosted API; a self-hosted instance may run without one. */
  readonly apiKey?: string;
  /** Accept Firecrawl's cached copy up to this age (ms); unset means Firecrawl's default. */
  readonly maxAgeMs?: number;
}

export const createFirecrawlProvider = defineHttpProvider<FirecrawlProviderOptions>({
  adapter: "firecrawl",
  baseUrl: FIRECRAWL_BASE_URL,
  auth: { header: "authorization", prefix: "Bearer ", required: false },
  // A configured endpoint (hosted with a key, or the operator's own instance): never anonymous.

  read: {
    focus: true,
    request: (request, { options }) => {
      const formats: unknown[] = ["markdown", "links"];
      if (request.focus !== undefined) formats.push({ type: "question", question: request.focus });
      return {
        method: "POST",
        path: "/v2/scrape",
        body: {
          url: request.url,
          formats,
          onlyMainContent: true,
          ...(options.maxAgeMs === undefined ? {} : { maxAge: options.maxAgeMs }),
        },
      };
    },
    response: (body, _request, { id }) => {
      const data = unwrap(id, body);
      const meta = isRecord(data.metadata) ? data.metadata : {};
      const warnings: string[] = [];
      const pageStatus = meta.statusCode;
      if (typeof pageStatus === "number" && pageStatus >= 400) {
        warnings.push(`${id} reports that the page answered HTTP ${Math.trunc(pageStatus)}`);
      }
      return readOutcome(id, {
        title: meta.title,
        parts: [text(data.answer), text(data.markdown)],
        links: arrayOf(data.links),
        metadata: projectFirecrawlMetadata(meta),
        warnings,
      });
    },
  },

  // GET /v2/team/credit-usage: the team's remaining credits; it costs none.
  probe: {
    request: () => ({ method: "GET", path: "/v2/team/credit-usage" }),
    response: (body, _request, { id }) => {
      if (!isRecord(body) || !isRecord(body.data)) throw unexpectedShape(id);
    },
  },

  search: {
    request: (request) => {
      const tbs = googleTbs(request.timeRange);
      return {
        method: "POST",
        path: "/v2/search",
        body: { query: request.query, limit: request.maxResults, ...(tbs === undefined ? {} : { tbs }) },
      };
    },
    response: (body, request, { id }) => {
      const data = unwrap(id, body);
      // v2 groups results by source; only `web` is asked for (the default source).
      if (data.web !== undefined && !Array.isArray(data.web)) throw unexpectedShape(id);
      const rows = rowsOf(data.web, (item) => ({
        title: item.title ?? (isRecord(item.metadata) ? item.metadata.title : undefined),
        url: item.url,
        snippet: item.description,
      }));
      return searchOutcome({ rows, maxResults: request.maxResults });
    },
  },
});

/** Firecrawl wraps every answer in `{success, data}`; `success: false` is a vendor-side failure. */
function unwrap(id: string, body: unknown): Record<string, unknown> {
  if (!isRecord(body)) throw unexpectedShape(id);
  if (body.success === false) throw new ProviderError(id, "upstream", `${id} reported a failure`);
  if (!isRecord(body.data)) throw unexpectedShape(id);
  return body.data;
}

/**
 * The allowlisted metadata, each field validated on its own: a field that fails validation is
 * dropped, never coerced, summed or merged with anything.
 */
export function projectFirecrawlMetadata(meta: Record<string, unknown>): ReadMetadata {
  const out: { creditsUsed?: number; cacheState?: "hit" | "miss"; cachedAt?: string } = {};
  const credits = meta.creditsUsed;
  if (typeof credits === "number" && Number.isFinite(credits) && credits >= 0) out.creditsUsed = credits;
  if (meta.cacheState === "hit" || meta.cacheState === "miss") out.cacheState = meta.cacheState;
  const cachedAt = dateText(meta.cachedAt);
  if (cachedAt !== undefined) out.cachedAt = cachedAt;
  return out;
}
