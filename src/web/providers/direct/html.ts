/**
 * An HTML page to a read outcome: links made absolute, what the page states about itself
 * (metadata.ts), the main content (extract.ts) and its Markdown (markdown.ts).
 *
 * linkedom and Readability load on the first HTML page: together they cost more at startup
 * than the whole MCP server, and many sessions never read a page.
 */
import { WEB_READ_MAX_DEPTH } from "../../../core/limits.js";
import type { ProviderReadOutcome, ReadMetadata } from "../../provider.js";
import { wellFormed } from "./document.js";
import type { extractMain } from "./extract.js";
import { toMarkdown } from "./markdown.js";
import { pageMetadata } from "./metadata.js";

interface HtmlTools {
  readonly parseHTML: typeof import("linkedom").parseHTML;
  readonly extractMain: typeof extractMain;
}
let tools: Promise<HtmlTools> | undefined;

function loadTools(): Promise<HtmlTools> {
  tools ??= Promise.all([import("linkedom"), import("./extract.js")]).then(([linkedom, extract]) => ({
    parseHTML: linkedom.parseHTML,
    extractMain: extract.extractMain,
  }));
  return tools;
}

export async function readHtml(html: string, pageUrl: string): Promise<ProviderReadOutcome> {
  const { parseHTML, extractMain } = await loadTools();
  const document = parseHTML(wellFormed(html)).document;
  if (deeperThan(document.documentElement, WEB_READ_MAX_DEPTH)) return plainText(document, pageUrl);
  return htmlOutcome(document, pageUrl, extractMain);
}

// biome-ignore lint/suspicious/noExplicitAny: linkedom's Document type is the DOM lib's, which this project does not load.
type Dom = any;

/** Whether some element lies more than `limit` levels below `root`; walked without recursion. */
function deeperThan(root: Dom, limit: number): boolean {
  let node = root;
  let depth = 0;
  for (;;) {
    const child = node.firstElementChild;
    if (child) {
      if (++depth > limit) return true;
      node = child;
      continue;
    }
    while (node !== root && !node.nextElementSibling) {
      node = node.parentElement;
      depth--;
    }
    if (node === root) return false;
    node = node.nextElementSibling;
  }
}

/** Elements whose text is not the page's, and elements that end a line of text. */
const HIDDEN = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "SVG", "HEAD"]);
const BLOCK =
  /^(ADDRESS|ARTICLE|ASIDE|BLOCKQUOTE|BR|DD|DIV|DL|DT|FIELDSET|FIGCAPTION|FIGURE|FOOTER|FORM|H[1-6]|HEADER|HR|LI|MAIN|NAV|OL|P|PRE|SECTION|TABLE|TD|TH|TR|UL)$/;

/**
 * A page nested too deep to extract from safely: its visible text in document order, a line
 * per block, walked without recursion (Markdown conversion recurses, and would overflow).
 */
function plainText(document: Dom, pageUrl: string): ProviderReadOutcome {
  const stated = pageMetadata(document, pageUrl);
  const root = document.body ?? document.documentElement;
  const parts: string[] = [];
  let node = root.firstChild;
  const name = (element: Dom): string => String(element.nodeName).toUpperCase();
  while (node && node !== root) {
    const element = node.nodeType === 1;
    if (node.nodeType === 3) parts.push(node.data);
    else if (element && BLOCK.test(name(node))) parts.push("\n");
    if (element && !HIDDEN.has(name(node)) && node.firstChild) {
      node = node.firstChild;
      continue;
    }
    while (node !== root && !node.nextSibling) {
      node = node.parentNode;
      if (node !== root && BLOCK.test(name(node))) parts.push("\n");
    }
    if (node === root) break;
    node = node.nextSibling;
  }
  const text = parts
    .join("")
    .split("\n")
    .map((line) => line.replace(/\s+/g, " ").trim())
    .filter((line) => line !== "")
    .join("\n\n");
  return {
    ...(stated.title === undefined ? {} : { title: stated.title }),
    content: [{ type: "text", text }],
    warnings: [
      `direct: the page nests elements more than ${WEB_READ_MAX_DEPTH} deep; its text was read without main-content extraction or formatting`,
    ],
  };
}

function htmlOutcome(document: Dom, pageUrl: string, extract: typeof extractMain): ProviderReadOutcome {
  const links: string[] = [];
  const seen = new Set<string>();
  for (const element of document.querySelectorAll("a[href]")) {
    // Fragments and scripts stay as they are: Readability weighs in-page links less, and the
    // Markdown writes only http(s) and mailto links.
    const absolute = absoluteUrl(element.getAttribute("href"), pageUrl);
    if (absolute === undefined) continue;
    element.setAttribute("href", absolute);
    if (/^https?:/.test(absolute) && !seen.has(absolute)) {
      seen.add(absolute);
      links.push(absolute);
    }
  }
  for (const element of document.querySelectorAll("img")) {
    for (const name of ["src", "data-src", "data-lazy-src", "data-original"]) {
      const value = element.getAttribute(name);
      if (value === null) continue;
      const absolute = absoluteUrl(value, pageUrl);
      if (absolute === undefined) element.removeAttribute(name);
      else element.setAttribute(name, absolute);
    }
  }
  const stated = pageMetadata(document, pageUrl);
  const main = extract(document);
  const markdown = toMarkdown(main.root);
  const warnings: string[] = [];
  if (!main.found) warnings.push("direct found no main-content block; the whole page body was converted");
  if (markdown.length === 0) warnings.push("direct extracted no text from the page");
  const title = main.title ?? stated.title;
  // Readability's byline may come from the text (a "by ..." line); a bare URL is not a byline.
  const byline =
    stated.byline ??
    (main.byline !== undefined && !/^https?:\/\//i.test(main.byline) ? main.byline : undefined);
  const metadata: ReadMetadata = {
    ...(byline === undefined ? {} : { byline }),
    ...(stated.published === undefined ? {} : { published: stated.published }),
    ...(stated.language === undefined ? {} : { language: stated.language }),
    ...(stated.canonicalUrl === undefined ? {} : { canonicalUrl: stated.canonicalUrl }),
    ...(stated.siteName === undefined ? {} : { siteName: stated.siteName }),
  };
  return {
    ...(title === undefined ? {} : { title }),
    content: [{ type: "text", text: markdown }],
    links,
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/** An absolute http(s) or mailto URL, or undefined for fragments, scripts and junk. */
function absoluteUrl(value: string | null, base: string): string | undefined {
  if (value === null || value.trim() === "" || value.trim().startsWith("#")) return undefined;
  try {
    const url = new URL(value.trim(), base);
    return ["http:", "https:", "mailto:"].includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}
