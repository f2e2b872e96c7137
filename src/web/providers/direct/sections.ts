/**
 * A service page's main content: every content section of its main region, in page order,
 * without the site's navigation, header and footer bars, cookie and consent banners, dialogs
 * and forms.
 *
 * A service page (a company's or a product's landing page) tells its story over many
 * `<section>`s: hero, features, how it works, pricing, testimonials, FAQ. An article extractor
 * keeps the one block with the most prose and loses the rest; here the region that holds the
 * sections is kept whole and only its furniture is removed.
 */
import { unwrapDisclosures } from "./disclosure.js";
import { textLength } from "./document.js";
import { clean, dropBoilerplateText, furnitureName, type MainContent, wordShare } from "./extract.js";

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

/** What is never read as text: code, styles, drawings and embedded frames. */
const INERT = "script, style, template, noscript, svg, iframe";

/**
 * Page furniture by tag or role, wherever it sits in the region (a button that opens a panel is
 * first put back as its label). What a page hides until asked
 * (a collapsed FAQ's answers, a carousel's other slides, a tab's panel) is its content one
 * click away and stays; a carousel's clones (slick's, swiper's) repeat slides and go.
 */
const FURNITURE =
  "nav, footer, aside, dialog, button, select, textarea, [role='navigation'], [role='contentinfo'], [role='complementary'], [role='search'], [role='dialog'], [role='banner'], .slick-cloned, .swiper-slide-duplicate";

/**
 * Furniture that holds the page's title or main region and this share of its text wraps the
 * page rather than sits in it (a `<form>` around a whole ASP.NET page, a `<nav>` its markup
 * never closed): it is kept. A menu holding more text than the page holds neither.
 */
const WRAPS_SHARE = 0.5;

/** Words naming a banner or a dialog laid over the page rather than a section of it. */
const OVERLAY =
  /^(?:cookies?|consent|gdpr|onetrust|cookiebot|modal|popup|overlay|newsletter|skip|breadcrumbs?|announcement)$/i;

/** A `<main>` holding less than this share of the body's text is a part, not the region. */
const MAIN_SHARE = 0.3;

/**
 * Whether the sections reading replaces another: it must hold this many times the other's text
 * (a service page's other sections), and most of the other's words (the same region, not a
 * different part of the page). A page typed article, with no sign of being one (no date, no
 * byline's `<time>`, no stated Article), must hold more: an article's page around its text
 * holds less.
 */
const MORE_FACTOR = 1.0;
const UNSIGNED_FACTOR = 1.5;
const HELD_SHARE = 0.6;

/**
 * A page read as sections without being built of them (a service page only by elimination, or
 * an article with no sign of one) must mark its furniture (header, footer, nav, aside) and head
 * its parts: the reading removes menus, footers and sidebars by their landmark tags and roles,
 * and a page that marks none (an older page of tables and `<div>`s) would give its sidebars and
 * footers as sections. A page typed article by its prose needs more headings: an article's few
 * subheadings do not make it a page of parts. A page typed service that marks none is read as
 * sections only over the higher bar: its parts then hold far more than the one block an article
 * extractor keeps, and all of it.
 */
const MIN_SECTIONS = 3;
const MIN_HEADINGS = { service: 4, article: 10 } as const;
const LANDMARKS =
  "header, footer, nav, aside, [role='banner'], [role='contentinfo'], [role='navigation'], [role='complementary']";

/** The page's main region, its sections in order, cleaned of furniture. */
export function extractSections(document: Dom): MainContent {
  return sectionsReading(document).main;
}

/** What a page hides until asked: kept in the reading, not counted when readings are weighed. */
const HIDDEN = "[aria-hidden='true'], [hidden]";

/** The sections reading and the length of the text in it the page hides until asked. */
function sectionsReading(document: Dom): { main: MainContent; hidden: number } {
  const body = document.body ?? document.documentElement;
  const main = body.querySelector("main, [role='main']");
  const region = main !== null && textLength(main) >= MAIN_SHARE * textLength(body) ? main : body;
  const root = region.cloneNode(true);
  for (const element of Array.from(root.querySelectorAll(INERT)) as Dom[]) element.remove();
  unwrapDisclosures(root);
  const wraps = (element: Dom) =>
    element.querySelector("h1, main, [role='main']") !== null &&
    textLength(element) >= WRAPS_SHARE * textLength(root);
  for (const element of Array.from(root.querySelectorAll(FURNITURE)) as Dom[]) {
    if (!wraps(element)) element.remove();
  }
  for (const element of Array.from(root.querySelectorAll("header, form, [class], [id]")) as Dom[]) {
    if ((isOverlay(element) || isSiteHeader(element, root) || isForm(element)) && !wraps(element))
      element.remove();
  }
  dropBeforeHeading(root);
  dropBuilderNames(root);
  dropPictures(root);
  clean(root);
  dropBoilerplateText(root);
  const hidden = outermostOf(Array.from(root.querySelectorAll(HIDDEN)) as Dom[], root);
  let hiddenText = 0;
  for (const element of hidden) hiddenText += textLength(element);
  return { main: { root, found: true, strategy: "sections" }, hidden: hiddenText };
}

/** What may stand before the page's `<h1>` and go with the bars above it: less than this share. */
const BEFORE_HEADING_SHARE = 0.3;

/**
 * Removes what comes before the page's `<h1>` (skip links, utility bars, a header built of
 * `<div>`s), when that is a small part of the region: the page's own story starts at its title.
 */
function dropBeforeHeading(root: Dom): void {
  const heading = root.querySelector("h1");
  if (heading === null) return;
  const before: Dom[] = [];
  let beforeText = 0;
  for (let node = heading; node !== null && node !== root; node = node.parentNode) {
    for (let sibling = node.previousSibling; sibling !== null; sibling = sibling.previousSibling) {
      before.push(sibling);
      beforeText += textLength(sibling);
    }
  }
  if (beforeText >= BEFORE_HEADING_SHARE * textLength(root)) return;
  for (const node of before) node.remove();
}

/**
 * A service page's content: its sections when they hold more than what `otherwise` (an
 * article extractor) keeps and hold that too; else what `otherwise` keeps. A page typed
 * `article` for want of other signs is read the same way, with a higher bar. The sections are
 * read first, from a copy: extractors move and remove nodes.
 */
export function readSections(
  document: Dom,
  otherwise: (document: Dom) => MainContent,
  structure: "service" | "article" = "service",
): MainContent {
  const bare = structure === "article" || document.querySelectorAll("section").length < MIN_SECTIONS;
  const unmarked = bare && !marked(document, MIN_HEADINGS[structure]);
  if (unmarked && structure === "article") return otherwise(document);
  const { main: sections, hidden } = sectionsReading(document);
  const other = otherwise(document);
  // A thread's posts, each under its author line, are read better than its page's sections.
  if (other.strategy === "thread") return other;
  const factor = structure === "service" && !unmarked ? MORE_FACTOR : UNSIGNED_FACTOR;
  // A page typed article by its prose is weighed by what it shows (a hidden transcript or menu
  // adds to a reading chosen, not to the choice); on a page of parts a hidden panel is one of them.
  const weighed = textLength(sections.root) - (structure === "service" ? 0 : hidden);
  const more = weighed >= factor * textLength(other.root);
  return more && wordShare(other.root, sections.root) >= HELD_SHARE ? sections : other;
}

/**
 * A furniture word in the class names of this many separate blocks that together hold this
 * share of the text names the page's blocks (one large promotion bar is still a promotion).
 */
const BUILDER_BLOCKS = 3;
const BUILDER_SHARE = 0.5;

/**
 * Takes off the class names a page builder puts on every block (`elementor-widget-wrap`) whose
 * words elsewhere name furniture ("widget"): the clean-up reads names, and would take each of
 * the page's blocks for a sidebar's. A word is the builder's when the blocks whose names bear
 * it hold most of the region's text; a sidebar's widgets hold a small part of it.
 */
function dropBuilderNames(root: Dom): void {
  const total = textLength(root);
  // The blocks that bear each furniture word in one of their class names.
  const bearers = new Map<string, Dom[]>();
  for (const element of Array.from(root.querySelectorAll("[class]")) as Dom[]) {
    const words = new Set<string>();
    for (const name of (element.getAttribute("class") ?? "").toLowerCase().split(/\s+/)) {
      for (const word of name.split("--")[0]?.split(/[-_]+/) ?? []) if (furnitureName(word)) words.add(word);
    }
    for (const word of words) {
      const list = bearers.get(word);
      if (list === undefined) bearers.set(word, [element]);
      else list.push(element);
    }
  }
  for (const [word, elements] of bearers) {
    const outermost = outermostOf(elements, root);
    let text = 0;
    for (const element of outermost) text += textLength(element);
    if (outermost.length < BUILDER_BLOCKS || text < BUILDER_SHARE * total) continue;
    for (const element of elements) {
      const names = (element.getAttribute("class") ?? "").split(/\s+/);
      const kept = names.filter((name: string) => !name.toLowerCase().split(/[-_]+/).includes(word));
      element.setAttribute("class", kept.join(" "));
    }
  }
}

/** Whether the page heads its parts (h2, h3) and marks some of its furniture (`<main>` marks none). */
function marked(document: Dom, headings: number): boolean {
  const body = document.body ?? document.documentElement;
  return body.querySelectorAll("h2, h3").length >= headings && body.querySelector(LANDMARKS) !== null;
}

/** The elements that are not inside another of them. */
function outermostOf(elements: readonly Dom[], root: Dom): Dom[] {
  const set = new Set(elements);
  const outermost: Dom[] = [];
  for (const element of elements) {
    let inside = false;
    for (let node = element.parentNode; node != null && node !== root && !inside; node = node.parentNode)
      inside = set.has(node);
    if (!inside) outermost.push(element);
  }
  return outermost;
}

/**
 * Removes a landing page's pictures (icons, headshots, strips of customers' logos, store
 * badges): their alternative texts name pictures, not what the page says. A picture the page
 * presents in a `<figure>` stays.
 */
function dropPictures(root: Dom): void {
  for (const element of Array.from(root.querySelectorAll("img, picture")) as Dom[]) {
    if (element.closest("figure") === null) element.remove();
  }
}

function isOverlay(element: Dom): boolean {
  const names = `${element.getAttribute("class") ?? ""} ${element.getAttribute("id") ?? ""}`;
  if (names.length > 300) return false;
  return names
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .split(/[\s_-]+/)
    .some((word) => OVERLAY.test(word));
}

/** The site's header bar: a `<header>` that is not inside a section (a section's own heading). */
function isSiteHeader(element: Dom, root: Dom): boolean {
  if (element.localName !== "header") return false;
  return element.parentNode === root || element.closest("section, article") === null;
}

/** A form with fields: a sign-up or contact form, not content. */
function isForm(element: Dom): boolean {
  return element.localName === "form" && element.querySelector("input") !== null;
}
