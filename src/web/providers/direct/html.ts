/**
 * An HTML page to a read outcome: links made absolute, what the page states about itself
 * (metadata.ts), the main content (extract.ts) and its Markdown (markdown.ts).
 *
 * linkedom and Readability load on the first HTML page: together they cost more at startup
 * than the whole MCP server, and many sessions never read a page.
 */
import { WEB_READ_MAX_DEPTH, WEB_READ_MAX_ELEMENTS, WEB_READ_MAX_NODES } from "../../../core/limits.js";
import type { PageType, ProviderReadOutcome, ReadMetadata } from "../../provider.js";
import type { CardsReading, cardsContain, cardsHold, cardsInMain, dropPictures, readCards } from "./cards.js";
import { dropClosedDialogs } from "./closed.js";
import { revealTabPanels } from "./docs.js";
import { nestsDocument, settleBody, unwrapNestedDocuments, wellFormed } from "./document.js";
import type { extractBody, extractMain, MainContent } from "./extract.js";
import { toMarkdown } from "./markdown.js";
import { pageMetadata } from "./metadata.js";
import type { articleSigned, pageType } from "./page-type.js";
import type { plainText } from "./plain.js";
import type { extractProduct } from "./product.js";
import { type PageProfile, pageProfile } from "./profile.js";
import type { readSections } from "./sections.js";
import type { boundedAttributes, browserCdata, pageShape } from "./shape.js";
import { servedShell } from "./shell.js";
import { dropSkipLinks } from "./skip-links.js";
import { placeStreamed, streamsParts } from "./streamed.js";

interface HtmlTools {
  readonly parseHTML: typeof import("linkedom").parseHTML;
  readonly extractMain: typeof extractMain;
  readonly extractBody: typeof extractBody;
  readonly extractProduct: typeof extractProduct;
  readonly readSections: typeof readSections;
  readonly readCards: typeof readCards;
  readonly cardsHold: typeof cardsHold;
  readonly cardsContain: typeof cardsContain;
  readonly cardsInMain: typeof cardsInMain;
  readonly dropPictures: typeof dropPictures;
  readonly pageType: typeof pageType;
  readonly articleSigned: typeof articleSigned;
  readonly pageShape: typeof pageShape;
  readonly boundedAttributes: typeof boundedAttributes;
  readonly browserCdata: typeof browserCdata;
  readonly plainText: typeof plainText;
}
let tools: Promise<HtmlTools> | undefined;

function loadTools(): Promise<HtmlTools> {
  tools ??= Promise.all([
    import("linkedom"),
    import("./extract.js"),
    import("./shape.js"),
    import("./plain.js"),
    import("./page-type.js"),
    import("./product.js"),
    import("./sections.js"),
    import("./cards.js"),
  ]).then(([linkedom, extract, shape, plain, kind, product, sections, cards]) => ({
    parseHTML: linkedom.parseHTML,
    extractMain: extract.extractMain,
    extractBody: extract.extractBody,
    extractProduct: product.extractProduct,
    readSections: sections.readSections,
    readCards: cards.readCards,
    cardsHold: cards.cardsHold,
    cardsContain: cards.cardsContain,
    cardsInMain: cards.cardsInMain,
    dropPictures: cards.dropPictures,
    pageType: kind.pageType,
    articleSigned: kind.articleSigned,
    pageShape: shape.pageShape,
    boundedAttributes: shape.boundedAttributes,
    browserCdata: shape.browserCdata,
    plainText: plain.plainText,
  }));
  return tools;
}

export async function readHtml(html: string, pageUrl: string): Promise<ProviderReadOutcome> {
  const tools = await loadTools();
  const page = tools.browserCdata(wellFormed(html));
  // Measured before any DOM is built: a DOM of such a page would cost more than its reading is
  // worth, and its parse alone grows with the square of its depth.
  const shape = tools.pageShape(page);
  if (shape.tooDeep || shape.tooMany) return plainOutcome(tools.plainText(page), shape.tooDeep);
  const parse = () => {
    const { document } = tools.parseHTML(shape.excessAttributes ? tools.boundedAttributes(page) : page);
    settleBody(document);
    if (nestsDocument(page)) unwrapNestedDocuments(document);
    if (streamsParts(page)) placeStreamed(document);
    dropClosedDialogs(document);
    dropSkipLinks(document);
    // One walk finds what the first steps ask of the page as parsed (profile.ts).
    const profile = pageProfile(document);
    return { document, profile, links: absoluteLinks(profile, pageUrl) };
  };
  const { document, profile, links } = parse();
  return htmlOutcome(document, profile, links, pageUrl, tools, () => parse().document);
}

// biome-ignore lint/suspicious/noExplicitAny: linkedom's Document type is the DOM lib's, which this project does not load.
type Dom = any;

/** A page too deep or too large to extract from: its visible text in order, a line per block. */
function plainOutcome({ title, text }: ReturnType<typeof plainText>, tooDeep: boolean): ProviderReadOutcome {
  const why = tooDeep
    ? `nests elements more than ${WEB_READ_MAX_DEPTH} deep`
    : `has more than ${WEB_READ_MAX_ELEMENTS.toLocaleString("en-US")} elements or ${WEB_READ_MAX_NODES.toLocaleString("en-US")} nodes`;
  return {
    strategy: "plain-text",
    ...(title === undefined ? {} : { title }),
    content: [{ type: "text", text }],
    warnings: [`direct: the page ${why}; its text was read without main-content extraction or formatting`],
  };
}

/**
 * Extracted content shorter than this reads as a failed extraction when the whole cleaned body
 * has several times more: a teaser, a post header or a block the clean-up emptied.
 */
const POOR_CHARS = 250;
const WIDER_FACTOR = 3;

function htmlOutcome(
  document: Dom,
  profile: PageProfile,
  links: readonly string[],
  pageUrl: string,
  tools: HtmlTools,
  parse: () => Dom,
): ProviderReadOutcome {
  const stated = pageMetadata(document, pageUrl, profile);
  // Asked of the page as sent, before extraction moves its nodes.
  const shell = servedShell(document);
  const structure = tools.pageType(document, profile);
  // A page typed article or documentation keeps its prose: no cards, no comment thread unless stated.
  const prose = structure === "article" || structure === "documentation";
  // Cards are read before extraction moves nodes: readCards copies what it keeps, so one parse serves both.
  const cards = structure === "forum" || prose ? undefined : tools.readCards(document.body);
  if (structure === "documentation") revealTabPanels(document.body ?? document.documentElement);
  const main =
    structure === "product"
      ? tools.extractProduct(document, tools.extractMain)
      : structure === "service" || (structure === "article" && !tools.articleSigned(document, profile))
        ? tools.readSections(document, (page) => tools.extractMain(page, prose), structure)
        : tools.extractMain(document, prose);
  if (structure === "listing" || structure === "collection") tools.dropPictures(main.root);
  let chosen: { main: MainContent; markdown: string } = { main, markdown: toMarkdown(main.root) };
  // An article with a list of related stories can look like a listing: the cards must hold more,
  // or hold what the extraction kept (then it was one card, or a part of the list).
  const read = cards === undefined ? undefined : cardsReading(tools, cards, chosen, structure);
  if (read !== undefined) chosen = read;
  const warnings: string[] = [];
  if (shell) {
    if (chosen.markdown.length > 0) warnings.push(SHELL_WARNING);
  } else if (chosen.markdown.length < POOR_CHARS) {
    const wide = widerReading(tools, parse, chosen.markdown.length);
    if (wide !== undefined) {
      warnings.push(
        `direct: the main-content block found held ${chosen.markdown.length} characters; the whole page body, cleaned of navigation, was converted instead`,
      );
      chosen = wide;
    }
  } else if (!main.found)
    warnings.push("direct found no main-content block; the whole page body was converted");
  const markdown = shell ? "" : chosen.markdown;
  if (chosen.markdown.length === 0) warnings.push(NO_TEXT_WARNING);
  // What the page says of itself is not its text: it goes with the other stated facts.
  if (markdown.length === 0 && stated.description !== undefined) warnings.push(DESCRIBED_WARNING);
  const title = chosen.main.title ?? main.title ?? stated.title;
  // Readability's byline may come from the text (a "by ..." line); a bare URL is not a byline.
  const byline =
    stated.byline ??
    (main.byline !== undefined && !/^https?:\/\//i.test(main.byline) ? main.byline : undefined);
  const metadata: ReadMetadata = {
    ...(byline === undefined ? {} : { byline }),
    ...(markdown.length === 0 && stated.description !== undefined ? { description: stated.description } : {}),
    ...(stated.published === undefined ? {} : { published: stated.published }),
    ...(stated.language === undefined ? {} : { language: stated.language }),
    ...(stated.canonicalUrl === undefined ? {} : { canonicalUrl: stated.canonicalUrl }),
    ...(stated.siteName === undefined ? {} : { siteName: stated.siteName }),
  };
  return {
    // A page typed article for want of other signs whose sections read better is a service page.
    pageType: main.strategy === "thread" ? "forum" : main.strategy === "sections" ? "service" : structure,
    strategy: markdown.length === 0 ? "none" : chosen.main.strategy,
    ...(title === undefined ? {} : { title }),
    content: [{ type: "text", text: markdown }],
    links,
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

const SHELL_WARNING =
  "direct: outside its navigation, header, footer and notices the page holds almost no text: it is likely drawn by scripts, which direct does not run, and what it holds is the site's chrome, not the page's content; none is returned";
const NO_TEXT_WARNING =
  "direct extracted no text from the page: its body holds none that is not navigation or boilerplate (a page drawn by scripts, which direct does not run, looks like this)";
const DESCRIBED_WARNING =
  "direct: the description the page states about itself is in metadata.description (a summary the page gives, not its text)";

/**
 * The whole body, cleaned, when it holds several times what the extraction kept; else the body
 * cleaned of navigation only, whose link lists are a listing's content. Extractors move and
 * remove nodes: each reading starts from the page as sent.
 */
function widerReading(
  tools: HtmlTools,
  parse: () => Dom,
  kept: number,
): { main: MainContent; markdown: string } | undefined {
  const enough = Math.max(POOR_CHARS, WIDER_FACTOR * kept);
  for (const light of [false, true]) {
    const main = tools.extractBody(parse(), light);
    const markdown = toMarkdown(main.root);
    if (markdown.length >= enough) return { main, markdown };
  }
  return undefined;
}

/** Paragraphs of prose that make an extraction an article's text, whatever repeats around it. */
const PROSE_PARAGRAPHS = 3;
const PROSE_CHARS = 200;

/**
 * Whether Markdown holds a few paragraphs of prose: long lines that are not lists or tables, nor
 * indented under a list's item (a long item name on a shop's list is no paragraph).
 */
function prose(markdown: string): boolean {
  let count = 0;
  for (const line of markdown.split("\n")) {
    if (line.length >= PROSE_CHARS && !/^(\s|[-*+|#>]|\d+\.)/.test(line) && ++count >= PROSE_PARAGRAPHS)
      return true;
  }
  return false;
}

/**
 * The cards' reading when they, not the extraction, are the page's content: on any page when
 * they hold what the extraction kept and more (on a page typed service, all of it and a fifth
 * more, or twice a reading that is no prose and lies outside the main region they lie in); on a
 * listing or a catalogue also when the extraction is no article's or category's prose (then it
 * kept a part of the list, a featured card, a banner or the introduction, whatever its length).
 */
function cardsReading(
  tools: HtmlTools,
  cards: CardsReading,
  chosen: { main: MainContent; markdown: string },
  structure: PageType,
): { main: MainContent; markdown: string } | undefined {
  if (chosen.main.strategy === "thread") return undefined;
  // A page typed service is read as cards also when they hold all of its reading and more, or
  // when its reading is a notice drawn outside the main region that holds them, or a stray block.
  let markdown: string | undefined;
  const cardsMarkdown = () => {
    markdown ??= toMarkdown(cards.root);
    return markdown;
  };
  const holds =
    tools.cardsHold(cards, chosen.main.root) ||
    (structure === "service" &&
      (tools.cardsContain(cards, chosen.main.root) ||
        (!prose(chosen.markdown) && tools.cardsInMain(cards, chosen.main.root)) ||
        dwarfed(chosen.markdown, cardsMarkdown)));
  if (!holds && structure !== "listing" && structure !== "collection") return undefined;
  const read = {
    main: { root: cards.root, found: true, strategy: "cards" as const },
    markdown: cardsMarkdown(),
  };
  return holds || !prose(chosen.markdown) ? read : undefined;
}

/** How many times a poor reading's text the cards hold to be read instead of the whole body. */
const DWARFED_FACTOR = 10;

/**
 * Whether a service page's reading is a stray block beside its list: too short to stand (the
 * whole body would replace it) and a tenth of the cards or less. The body's clean-up drops a
 * feed's cards as link lists; the cards are the narrower reading. An empty reading says nothing.
 */
function dwarfed(reading: string, cards: () => string): boolean {
  if (reading.length === 0 || reading.length >= POOR_CHARS) return false;
  return cards().length >= DWARFED_FACTOR * reading.length;
}

/**
 * Links and images made absolute, so that the Markdown and the link index can use them; returns
 * the page's distinct outgoing http(s) links, in order, found in the same walk. A page repeats
 * its URLs (menus, cards, image sets): each distinct one is resolved once.
 */
function absoluteLinks(profile: PageProfile, pageUrl: string): string[] {
  const resolved = new Map<string, string | undefined>();
  const absolute = (value: string | null) => {
    if (value === null) return undefined;
    if (!resolved.has(value)) resolved.set(value, absoluteUrl(value, pageUrl));
    return resolved.get(value);
  };
  // The page's distinct outgoing http(s) links, in order (an href left as it is counts too).
  const links = new Set<string>();
  for (const element of profile.anchors) {
    // Fragments and scripts stay as they are: Readability weighs in-page links less, and the
    // Markdown writes only http(s) and mailto links.
    const href = element.getAttribute("href");
    const made = absolute(href);
    if (made !== undefined) element.setAttribute("href", made);
    const link = made ?? href;
    if (/^https?:/.test(link)) links.add(link);
  }
  for (const element of profile.images) {
    for (const name of ["src", "data-src", "data-lazy-src", "data-original"]) {
      const value = element.getAttribute(name);
      if (value === null) continue;
      const made = absolute(value);
      if (made === undefined) element.removeAttribute(name);
      else element.setAttribute(name, made);
    }
  }
  return [...links];
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
