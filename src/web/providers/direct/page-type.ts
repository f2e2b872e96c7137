/**
 * What kind of page this is (article, documentation, forum, product, collection, listing,
 * service), decided from what the page states and how it is built, before any extraction moves
 * its nodes. Deterministic rules, first match wins:
 *
 * - forum: the page says it is a discussion (schema.org DiscussionForumPosting, QAPage); a page
 *   whose posts thread.ts reads is one too (html.ts);
 * - product: it states one Product (JSON-LD, microdata or `og:type` product);
 * - collection: it states several Products, or a catalogue (OfferCatalog) of them, unless its
 *   headline is one Product's (its `<h1>` inside that Product's microdata: the others are
 *   recommendations or bundled items, and the page is a product's);
 * - listing: it repeats one card structure (four or more sibling items of one tag and class,
 *   each with a link) that holds most of its text, or states a CollectionPage or ItemList;
 * - documentation: a documentation generator names itself, or it states a TechArticle or
 *   APIReference, or code blocks sit beside a navigation sidebar;
 * - article: it states an Article (NewsArticle, BlogPosting...) or `og:type` article;
 * - collection: it repeats a priced card (six or more sibling items of one tag and class, each
 *   with a link and a price): a shop's category grid, whatever prose or sections surround it;
 * - service: it tells its story in four or more headed `<section>`s, none holding most of it;
 * - article: it holds paragraphs of prose;
 * - service: anything else (a product's or company's page of sections).
 *
 * The decision goes into the answer's provenance (`pageType`) so that an agent and a
 * maintainer can see how the reader saw the page.
 */
import type { PageType } from "../../provider.js";
import { closestOf, firstUnder, isLink, textLength } from "./document.js";
import { type PageProfile, pageProfile } from "./profile.js";

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

/** The schema.org types a page states, in JSON-LD (`@graph` included) and microdata. */
function statedTypes(profile: PageProfile): string[] {
  const types: string[] = [];
  const visit = (value: unknown, depth: number) => {
    if (depth > 6 || value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    const record = value as Record<string, unknown>;
    const type = record["@type"];
    for (const name of Array.isArray(type) ? type : [type]) if (typeof name === "string") types.push(name);
    for (const key of ["@graph", "mainEntity", "itemListElement", "hasPart", "item"]) {
      if (record[key] !== undefined) visit(record[key], depth + 1);
    }
  };
  for (const value of profile.jsonLd) visit(value, 0);
  for (const itemType of profile.itemTypes) {
    for (const url of itemType.split(/\s+/)) {
      const name = url.split("/").pop();
      if (name) types.push(name);
    }
  }
  return types;
}

const ARTICLES =
  /^(Article|NewsArticle|BlogPosting|Report|ScholarlyArticle|OpinionNewsArticle|ReportageNewsArticle|AnalysisNewsArticle|LiveBlogPosting)$/;
const DOCS_GENERATOR =
  /\b(sphinx|docusaurus|mkdocs|vuepress|vitepress|gitbook|docsify|hugo-book|jsdoc|typedoc|redoc|mintlify|starlight|nextra|readthedocs|antora|doxygen)\b/i;

/**
 * The page's kind; run before extraction, which moves and removes nodes. The page's elements are
 * found in its profile (profile.ts), the walk the reader makes once.
 */
export function pageType(document: Dom, profile: PageProfile = pageProfile(document)): PageType {
  const types = statedTypes(profile);
  const count = (pattern: RegExp) => types.filter((type) => pattern.test(type)).length;
  const ogType = (profile.ogType?.getAttribute("content") ?? "").toLowerCase();
  if (count(/^(DiscussionForumPosting|QAPage)$/) > 0) return "forum";
  const products = count(/^(Product|ProductGroup|IndividualProduct)$/);
  const catalogue = products >= 3 || (products > 0 && count(/^(OfferCatalog)$/) > 0);
  if (catalogue && !headlinedProduct(document)) return "collection";
  if (products > 0 || ogType.startsWith("product")) return "product";
  const body = document.body ?? document.documentElement;
  if (count(/^(CollectionPage|ItemList|SearchResultsPage)$/) > 0) return "listing";
  // A page that states it is an article stays one: its related stories repeat like cards.
  const statesArticle = count(ARTICLES) > 0 || ogType === "article";
  if (!statesArticle && repeatedCards(body, profile.body.blocks)) return "listing";
  const generator = profile.generator?.getAttribute("content") ?? "";
  if (DOCS_GENERATOR.test(generator) || count(/^(TechArticle|APIReference)$/) > 0) return "documentation";
  // `pre code, pre` and `nav, aside, [role='navigation']` in the body.
  if (profile.body.hasPre && profile.body.hasNavigation) return "documentation";
  if (statesArticle) return "article";
  if (pricedCards(profile.body.blocks)) return "collection";
  if (sectioned(profile.body.sections)) return "service";
  if (proseParagraphs(profile.body.paragraphs) >= 3 || oneArticle(profile.body.articles)) return "article";
  return "service";
}

/** A microdata item of schema.org Product (IndividualProduct included). */
const PRODUCT_ITEM = /\/(?:Product|IndividualProduct)$/;

/** Whether the page's first `<h1>` lies inside a Product's microdata item: the page is that product's. */
function headlinedProduct(document: Dom): boolean {
  const headline = (document.body ?? document.documentElement).querySelector("h1");
  for (let node = headline?.parentNode; node != null && node.nodeType === 1; node = node.parentNode) {
    if (node.hasAttribute("itemscope") && PRODUCT_ITEM.test((node.getAttribute("itemtype") ?? "").trim()))
      return true;
  }
  return false;
}

/**
 * A standing page of a WordPress site (About, Services, Contact), not one of its posts: WordPress
 * names it on the body (`page-id-24`; a post is `postid-24`).
 */
const STANDING_PAGE = /(?:^|\s)page-id-\d+(?:\s|$)/;

/**
 * Whether the page carries a sign of being an article rather than only its prose: a page
 * typed article without one may be a service page of long paragraphs, read as sections when
 * they hold much more (sections.ts). Signs: a publication date (`meta[property=
 * "article:published_time"], meta[name="date"], [itemprop="datePublished"]`), a `<time>` in its
 * body, a stated Article. A site's standing page has none: the dates and the Article type its
 * SEO plugin stamps on every page say when it was edited, not that it was published.
 * Run before extraction, which removes `<time>`s.
 */
export function articleSigned(document: Dom, profile: PageProfile = pageProfile(document)): boolean {
  if (STANDING_PAGE.test((document.body ?? document.documentElement)?.getAttribute("class") ?? ""))
    return false;
  if (profile.statesPublished) return true;
  if (profile.body.hasTime) return true;
  return statedTypes(profile).some((type) => ARTICLES.test(type));
}

/** Headed sections that make a page of sections (hero, features, pricing, FAQ...). */
const MIN_SECTIONS = 4;

/**
 * Whether the page tells its story in sections: four or more outermost `<section>`s, each
 * under its own heading, none holding most of the text (an article split into sections has one
 * that does, or few).
 */
function sectioned(sections: readonly Dom[]): boolean {
  const outermost = sections.filter((section) => closestOf(section.parentNode, SECTION) === null);
  const headed = outermost.filter((section) => firstUnder(section, isHeading) !== null);
  if (headed.length < MIN_SECTIONS) return false;
  let total = 0;
  let largest = 0;
  for (const section of headed) {
    const text = textLength(section);
    total += text;
    largest = Math.max(largest, text);
  }
  return largest < 0.5 * total;
}

const SECTION = new Set(["section"]);
const HEADINGS = new Set(["h1", "h2", "h3"]);

function isHeading(element: Dom): boolean {
  return HEADINGS.has(element.localName);
}

/** Text an `<article>` must hold to make the page an article (cards on a listing hold less). */
const ARTICLE_MIN_TEXT = 500;

/** One `<article>` element with prose in it: a listing repeats them, a service page has none. */
function oneArticle(articles: readonly Dom[]): boolean {
  return articles.length === 1 && textLength(articles[0] as Dom) >= ARTICLE_MIN_TEXT;
}

/** Four or more items that make a list of cards: siblings of one tag and class, each with a link. */
const MIN_CARDS = 4;

/**
 * Whether the page repeats one card structure that holds most of its text: siblings of one tag
 * and class, each with a link and some text. A menu's items hold little text; a page's sections
 * differ in class or carry no link each.
 */
function repeatedCards(body: Dom, blocks: readonly Dom[]): boolean {
  const total = textLength(body);
  if (total === 0) return false;
  for (const parent of blocks) {
    for (const group of sameShapeGroups(parent, MIN_CARDS)) {
      const cards = group.filter((card) => firstUnder(card, isLink) !== null && textLength(card) >= 40);
      if (cards.length < MIN_CARDS) continue;
      let text = 0;
      for (const card of cards) text += textLength(card);
      if (text >= 0.4 * total) return true;
    }
  }
  return false;
}

/** A price as a shop's card shows it: a currency sign or code beside a number. */
const PRICE = /[$€£¥₹]\s?\d|\d\s?(?:€|£|zł|kr|Kč|(?:EUR|USD|GBP|CHF|CAD|AUD|SEK|NOK|DKK|PLN)\b)/;
/** Priced cards that make a category grid: more than a product page's few recommendations. */
const MIN_PRICED_CARDS = 6;
/** The share of a group's items that must show a price (a grid's promotional tile does not). */
const PRICED_SHARE = 0.8;

/**
 * Whether the page repeats a product card: siblings of one tag and class, nearly each with a
 * link and a price. A product page's strip of recommendations is shorter; a service page's
 * plans are fewer and rarely each a link.
 */
function pricedCards(blocks: readonly Dom[]): boolean {
  for (const parent of blocks) {
    for (const group of sameShapeGroups(parent, MIN_PRICED_CARDS)) {
      const priced = group.filter(
        (card) => firstUnder(card, isLink) !== null && PRICE.test(card.textContent ?? ""),
      );
      if (priced.length >= MIN_PRICED_CARDS && priced.length >= PRICED_SHARE * group.length) return true;
    }
  }
  return false;
}

/** The children of `parent` grouped by tag and class, in the groups of at least `min`. */
function sameShapeGroups(parent: Dom, min: number): Dom[][] {
  // Most blocks hold fewer children than a group needs: counted before any is keyed.
  let children = 0;
  for (
    let child = parent.firstElementChild;
    child != null && children < min;
    child = child.nextElementSibling
  )
    children += 1;
  if (children < min) return [];
  const groups = new Map<string, Dom[]>();
  for (let child = parent.firstElementChild; child != null; child = child.nextElementSibling) {
    const key = `${child.localName}.${child.getAttribute("class") ?? ""}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [child]);
    else group.push(child);
  }
  return [...groups.values()].filter((group) => group.length >= min);
}

function proseParagraphs(paragraphs: readonly Dom[]): number {
  let count = 0;
  for (const paragraph of paragraphs) {
    if (textLength(paragraph) >= 200 && ++count >= 3) break;
  }
  return count;
}
