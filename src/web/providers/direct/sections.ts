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
import { clean, dropBoilerplateText, type MainContent, textLength, wordShare } from "./extract.js";

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

/** Page furniture by tag or role, wherever it sits in the region. */
const FURNITURE =
  "script, style, template, noscript, svg, iframe, nav, footer, aside, dialog, button, select, textarea, [role='navigation'], [role='contentinfo'], [role='complementary'], [role='search'], [role='dialog'], [role='banner'], [aria-hidden='true'], [hidden]";

/** Words naming a banner or a dialog laid over the page rather than a section of it. */
const OVERLAY =
  /^(?:cookies?|consent|gdpr|onetrust|cookiebot|modal|popup|overlay|newsletter|skip|breadcrumbs?|announcement)$/i;

/** Sections a page needs before its sections are read rather than its one best block. */
const MIN_SECTIONS = 3;

/** A `<main>` holding less than this share of the body's text is a part, not the region. */
const MAIN_SHARE = 0.3;

/**
 * Whether the sections reading replaces another: it must hold this many times the other's text
 * (a service page's other sections), and most of the other's words (the same region, not a
 * different part of the page).
 */
const MORE_FACTOR = 1.0;
const HELD_SHARE = 0.6;

/** The page's main region, its sections in order, cleaned of furniture. */
export function extractSections(document: Dom): MainContent {
  const body = document.body ?? document.documentElement;
  const main = body.querySelector("main, [role='main']");
  const region = main !== null && textLength(main) >= MAIN_SHARE * textLength(body) ? main : body;
  const root = region.cloneNode(true);
  for (const element of Array.from(root.querySelectorAll(FURNITURE)) as Dom[]) element.remove();
  for (const element of Array.from(root.querySelectorAll("header, form, [class], [id]")) as Dom[]) {
    if (isOverlay(element) || isSiteHeader(element, root) || isForm(element)) element.remove();
  }
  dropBeforeHeading(root);
  clean(root);
  dropBoilerplateText(root);
  return { root, found: true, strategy: "sections" };
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
      beforeText += (sibling.textContent ?? "").replace(/\s+/g, " ").trim().length;
    }
  }
  if (beforeText >= BEFORE_HEADING_SHARE * textLength(root)) return;
  for (const node of before) node.remove();
}

/**
 * A service page's content: its sections when they hold more than what `otherwise` (an
 * article extractor) keeps and hold that too; else what `otherwise` keeps. The sections are
 * read first, from a copy: extractors move and remove nodes.
 */
export function readSections(document: Dom, otherwise: (document: Dom) => MainContent): MainContent {
  // A page with no sections to keep (a service page only by elimination) reads as an article.
  if (document.querySelectorAll("section").length < MIN_SECTIONS) return otherwise(document);
  const sections = extractSections(document);
  const other = otherwise(document);
  // A thread's posts, each under its author line, are read better than its page's sections.
  if (other.strategy === "thread") return other;
  const more = textLength(sections.root) >= MORE_FACTOR * textLength(other.root);
  return more && wordShare(other.root, sections.root) >= HELD_SHARE ? sections : other;
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
