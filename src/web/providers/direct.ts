/**
 * `direct`: the keyless reader. It fetches the page itself through the guarded client (agent
 * trust: public addresses only, every redirect hop re-checked), extracts the main content with
 * Readability and converts it to Markdown with Turndown. Plain text and Markdown pass through
 * unchanged; other content types are refused with a reason the agent can act on.
 *
 * The DOM, Readability and Turndown load on the first HTML page: together they cost more at
 * startup than the whole MCP server, and many sessions never read a page.
 */
import { EvidentError } from "../../core/errors.js";
import type { HttpResponse } from "../../net/http-client.js";
import {
  type Provider,
  type ProviderContext,
  ProviderError,
  type ProviderReadOutcome,
  type ProviderReadRequest,
} from "../provider.js";
import { clientFailure } from "./shared/http.js";

export interface DirectProviderOptions {
  readonly id?: string;
  readonly attemptDeadlineMs?: number;
  /** Sent as `User-Agent`; some sites refuse unknown clients. */
  readonly userAgent?: string;
}

const ACCEPT = "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,*/*;q=0.1";

/** Content types returned as they are: already text a model can read. */
const PASS_THROUGH = /^(text\/(plain|markdown|x-markdown|csv)|application\/(json|xml)|text\/xml)$/;
const HTML = /^(text\/html|application\/xhtml\+xml)$/;

export function createDirectProvider(options: DirectProviderOptions = {}): Provider {
  const id = options.id ?? "direct";
  return {
    id,
    adapter: "direct",
    // No operator credential is involved: evident fetches the page itself, without any account.
    anonymous: true,
    capabilities: { search: false, read: true, focus: false },
    ...(options.attemptDeadlineMs === undefined ? {} : { attemptDeadlineMs: options.attemptDeadlineMs }),

    async read(request: ProviderReadRequest, context: ProviderContext): Promise<ProviderReadOutcome> {
      let response: HttpResponse;
      try {
        response = await context.http.request({
          method: "GET",
          url: request.url,
          headers: {
            accept: ACCEPT,
            ...(options.userAgent === undefined ? {} : { "user-agent": options.userAgent }),
          },
          trust: "agent",
          followRedirects: true,
          signal: context.signal,
        });
      } catch (thrown) {
        throw fetchFailure(id, thrown);
      }
      if (response.status < 200 || response.status > 299) {
        throw new ProviderError(id, "http", `${id} HTTP ${response.status}`, { status: response.status });
      }
      const type = mediaType(response.headers["content-type"]);
      const text = decode(response);
      if (HTML.test(type) || (type === "" && /^\s*<(!doctype html|html)/i.test(text))) {
        return htmlToOutcome(text, response.url);
      }
      if (PASS_THROUGH.test(type) || type === "") {
        return { content: [{ type: "text", text }] };
      }
      throw new ProviderError(
        id,
        "upstream",
        `${id} cannot read ${type} content (it reads HTML and plain text); try a reader that converts it`,
      );
    },
  };
}

function fetchFailure(id: string, thrown: unknown): Error {
  // A refused URL or redirect is the agent's to know about as such, not a provider failure.
  if (thrown instanceof EvidentError && thrown.code === "url_not_allowed") return thrown;
  if (thrown instanceof EvidentError && thrown.code === "deadline_exceeded") {
    return new ProviderError(id, "timeout", `${id} did not answer within the deadline`, { cause: thrown });
  }
  if (thrown instanceof EvidentError && thrown.code === "cancelled") {
    return new ProviderError(id, "cancelled", `${id} request was cancelled`, { cause: thrown });
  }
  return clientFailure(id, thrown);
}

function mediaType(header: string | undefined): string {
  return (header ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

function decode(response: HttpResponse): string {
  const charset = /charset\s*=\s*"?([\w-]+)/i.exec(response.headers["content-type"] ?? "")?.[1];
  if (charset !== undefined) {
    try {
      return new TextDecoder(charset).decode(response.body);
    } catch {
      // An unknown charset label: UTF-8 is the web's default and the best remaining guess.
    }
  }
  return response.text();
}

interface HtmlTools {
  parseHTML: typeof import("linkedom").parseHTML;
  Readability: typeof import("@mozilla/readability").Readability;
  turndown: (html: string) => string;
}
let htmlTools: Promise<HtmlTools> | undefined;

function loadHtmlTools(): Promise<HtmlTools> {
  htmlTools ??= Promise.all([import("linkedom"), import("@mozilla/readability"), import("turndown")]).then(
    ([linkedom, readability, turndownModule]) => {
      const service = new turndownModule.default({
        headingStyle: "atx",
        codeBlockStyle: "fenced",
        bulletListMarker: "-",
      });
      // Scripts, styles and forms are not content; Turndown would otherwise keep their text.
      service.remove(["script", "style", "noscript", "form", "iframe"]);
      return {
        parseHTML: linkedom.parseHTML,
        Readability: readability.Readability,
        turndown: (html: string) => service.turndown(html),
      };
    },
  );
  return htmlTools;
}

/**
 * Main content as Markdown, with every link and image made absolute against the final URL so
 * that the Markdown and the `links` list point where the page pointed.
 */
async function htmlToOutcome(html: string, pageUrl: string): Promise<ProviderReadOutcome> {
  const tools = await loadHtmlTools();
  const { document } = tools.parseHTML(html);
  const links: string[] = [];
  const seen = new Set<string>();
  for (const element of document.querySelectorAll("a[href]")) {
    const absolute = absoluteUrl(element.getAttribute("href"), pageUrl);
    if (absolute === undefined) continue;
    element.setAttribute("href", absolute);
    if (/^https?:/.test(absolute) && !seen.has(absolute)) {
      seen.add(absolute);
      links.push(absolute);
    }
  }
  for (const element of document.querySelectorAll("img[src]")) {
    const absolute = absoluteUrl(element.getAttribute("src"), pageUrl);
    if (absolute !== undefined) element.setAttribute("src", absolute);
  }
  const documentTitle = document.querySelector("title")?.textContent?.trim() || undefined;
  const bodyHtml = document.body?.innerHTML ?? html;
  let article: { title?: string | null; content?: string | null } | null = null;
  try {
    article = new tools.Readability(document as never).parse();
  } catch {
    // Readability gives up on some layouts; the whole body is then the content.
    article = null;
  }
  const content = article?.content ? article.content : bodyHtml;
  const markdown = tools.turndown(content).trim();
  const warnings: string[] = [];
  if (!article?.content)
    warnings.push("direct found no main-content block; the whole page body was converted");
  if (markdown.length === 0) warnings.push("direct extracted no text from the page");
  const title = article?.title?.trim() || documentTitle;
  return {
    ...(title === undefined ? {} : { title }),
    content: [{ type: "text", text: markdown }],
    links,
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

function absoluteUrl(value: string | null, base: string): string | undefined {
  if (value === null || value.trim() === "" || value.startsWith("#")) return undefined;
  try {
    const url = new URL(value, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}
