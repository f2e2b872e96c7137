/**
 * A product page's main content: the product's name, the blocks the shop names as what
 * describes it (description, details, specifications, features), in page order, and the facts
 * its structured data states (schema.org Product: brand, SKU, offers, properties) when the
 * visible text does not already say them.
 *
 * An article extractor scores blocks by their prose and keeps one: on a product page that is
 * often the reviews, a "found a lower price?" form or the recommendations carousel, and the
 * specification table is lost. Shops name their description and specification blocks in a
 * class, an id or `itemprop="description"`; those blocks, and nothing around them, are the
 * content.
 */
import { isRecord } from "../shared/values.js";
import { dropBuyingControls } from "./buying.js";
import { nameWords, textLength } from "./document.js";
import { clean, dropBoilerplateText, type MainContent, wordShare } from "./extract.js";

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

/**
 * A class, id or `itemprop` word that names what describes a product: its description (also in
 * camelCase, `productDescription`, or inside BEM, `product__description`), its details, its
 * specifications, its features or highlights, its dimensions, materials or ingredients.
 */
const DESCRIBES =
  /^(?:description|desc|details|specifications?|specs?|techspecs|features|attributes|overview|dimensions|measurements|materials|ingredients|highlights|about[-_]?(?:this|the)?[-_]?(?:item|product|game))$/i;

function describes(element: Dom): boolean {
  if ((element.getAttribute("itemprop") ?? "") === "description") return true;
  const names = `${element.getAttribute("class") ?? ""} ${element.getAttribute("id") ?? ""}`;
  if (names.length > 300) return false;
  const panel = element.getAttribute("role") === "tabpanel";
  // A tab panel's own "tab" words name the set it belongs to, not a control.
  const parts = nameWords(names.replace(TAB_PANEL, " ")).filter((word) => !(panel && TAB_WORD.test(word)));
  return parts.some((word) => DESCRIBES.test(word)) && !parts.some((word) => NOT_CONTENT.test(word));
}

const TAB_WORD = /^(?:wc)?tabs?$/i;

/**
 * A class naming a tab set's panel or box (`tab-pane`, `tabs-content`, `tab-box`): the panel holds
 * the content its tab names; only a bare `tab` names the control that opens it.
 */
const TAB_PANEL = /tabs?[-_]?(?:panes?|panels?|content|contents|box|body|container|wrapper)(?=[\s_-]|$)/gi;

/** Words that make a described block something else: a control, a menu, a review, a thumbnail. */
const NOT_CONTENT =
  /^(?:nav|navigation|menu|breadcrumbs?|footer|header|review|reviews|rating|ratings|modal|popup|tooltip|toggle|button|btn|tab|tabs|label|title|heading|icon|thumb|thumbnail|meta|seo|related|recommendations?|carousel|slider|swatch|swatches|cookie|newsletter)$/i;

/**
 * Words naming an area of the page whose describing blocks describe something else: a review
 * or a seller's feedback, a cookie or consent dialog, recommended products.
 */
const OTHER_AREA =
  /^(?:reviews?|feedback|testimonials?|comments?|cookies?|consent|gdpr|onetrust|modal|dialog|popup|related|recommendations?|recommended|carousel|upsell|similar)$/i;

/** Ancestors looked at for an area's name: enough for a shop's nesting, bounded on any page. */
const MAX_AREA_DEPTH = 40;

function inOtherArea(element: Dom, body: Dom): boolean {
  let node = element;
  for (let depth = 0; node !== null && node !== body && depth < MAX_AREA_DEPTH; depth += 1) {
    const names = `${node.getAttribute?.("class") ?? ""} ${node.getAttribute?.("id") ?? ""}`;
    if (names.length <= 300 && nameWords(names).some((word) => OTHER_AREA.test(word))) return true;
    if (node.localName === "dialog" || node.getAttribute?.("role") === "dialog") return true;
    node = node.parentNode;
  }
  return false;
}

/** Landmarks whose blocks are never the product's description. */
const FURNITURE = "nav, header, footer, aside, form, [role='navigation'], [role='contentinfo']";

/** What a block holds that is not read as text: scripts, styles, controls. */
const INERT = "script, style, template, noscript, svg, button, select, option, input, textarea";

/** Text a described block needs to count: a label or a stub holds less. */
const MIN_BLOCK_CHARS = 60;
/** Text the blocks found need together before they read as the product's content. */
const MIN_CONTENT_CHARS = 200;

/**
 * The blocks that describe the product, outermost first and in page order, under one element
 * with the product's name as its heading, and its stated facts the blocks do not say; undefined
 * when the page names no such block that holds enough text (another reading is then taken).
 */
function describingBlocks(document: Dom): MainContent | undefined {
  const body = document.body ?? document.documentElement;
  const blocks: Dom[] = [];
  for (const element of Array.from(body.querySelectorAll("[class], [id], [itemprop]")) as Dom[]) {
    if (!describes(element)) continue;
    if (blocks.some((block) => block.contains(element))) continue;
    if (element.closest(FURNITURE) !== null || inOtherArea(element, body)) continue;
    if (textLength(element) < MIN_BLOCK_CHARS || linkText(element) > 0.5 * textLength(element)) continue;
    blocks.push(element);
  }
  const root = document.createElement("div");
  const name = productName(body, blocks);
  if (name !== undefined) {
    const heading = document.createElement("h1");
    heading.textContent = name;
    root.appendChild(heading);
  }
  for (const block of blocks) {
    const copy = block.cloneNode(true);
    for (const inert of Array.from(copy.querySelectorAll(INERT)) as Dom[]) inert.remove();
    clean(copy);
    dropBoilerplateText(copy);
    if (textLength(copy) > 0) root.appendChild(copy);
  }
  if (textLength(root) - (name?.length ?? 0) < MIN_CONTENT_CHARS) return undefined;
  return { root, found: true, strategy: "product", ...(name === undefined ? {} : { title: name }) };
}

/**
 * A product page's content: its describing blocks, else what `otherwise` reads (an article
 * extractor); either way followed by the stated facts it does not show. The facts are read
 * first: extractors drop the page's scripts.
 */
export function extractProduct(document: Dom, otherwise: (document: Dom) => MainContent): MainContent {
  const facts = productFacts(document);
  const blocks = describingBlocks(document);
  const other = otherwise(document);
  const main = blocks !== undefined && !holdsMore(other.root, blocks.root) ? blocks : other;
  dropBuyingControls(main.root);
  dropRelatedStrips(main.root);
  dropMarks(main.root);
  addFacts(document, main.root, facts);
  return main;
}

/** A picture's alternative text that names a mark, not the product: a logo, an icon, a badge. */
const MARK = /\b(?:logo|logos|icon|icons|badge|badges)\b/i;

/**
 * Removes the pictures whose alternative text names a logo, an icon or a badge (payment
 * providers, trust seals, check marks): their names are not what the page says of the product.
 */
function dropMarks(root: Dom): void {
  for (const image of Array.from(root.querySelectorAll("img[alt]")) as Dom[]) {
    if (MARK.test(image.getAttribute("alt") ?? "")) image.remove();
  }
}

/**
 * A heading that introduces other products: "You may also like", "Customers who viewed this
 * item also viewed", "Similar items", "Recently viewed". A bare "Recommended" or "Related" is
 * left alone: a shop also heads its own product's accessories or notes so.
 */
const RELATED =
  /\b(?:you (?:may|might|will|'ll|’ll) (?:also )?(?:like|love|need|want|enjoy)|(?:also|frequently) (?:viewed|bought|purchased|liked|loved|shopped)|customers (?:who|also)|people (?:who|also)|related (?:products?|items?|to this)|similar (?:products?|items?|styles?)|recommended (?:for you|products?|items?)|recently viewed|frequently bought|complete the (?:look|set)|shop the look|pairs? (?:well )?with|goes well with|explore (?:related|more)|sponsored products?|more (?:products|items) (?:from|like))\b/i;
/** A heading longer than this is a card's or a section's title, not a strip's. */
const MAX_RELATED_HEADING = 80;
/** Links a strip needs: a strip of fewer cards is not a strip. */
const MIN_STRIP_LINKS = 3;
/** The share of the reading a strip may hold: more, and the heading named the wrong block. */
const MAX_STRIP_SHARE = 0.5;
/** Text a block without links may hold and still be a strip's label rather than content. */
const MAX_STRIP_LABEL = 60;
const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);

/**
 * Removes the strips of other products' cards a product page carries around its own product
 * ("Customers also viewed", "Similar items"): a heading that says so and the cards it heads,
 * each a link to another product. The cards' names and prices are other products' and cost the
 * reading its focus; the product's own block is never removed (a strip holds less than half of
 * the reading and begins with its heading).
 */
export function dropRelatedStrips(root: Dom): void {
  const total = textLength(root);
  for (const heading of Array.from(root.querySelectorAll("h2, h3, h4, h5, h6")) as Dom[]) {
    if (!root.contains(heading)) continue;
    const text = (heading.textContent ?? "").replace(/\s+/g, " ").trim();
    if (text.length > MAX_RELATED_HEADING || !RELATED.test(text)) continue;
    const strip = stripOf(heading, root);
    let links = 0;
    let held = 0;
    for (const block of strip) {
      links += block.querySelectorAll("a[href]").length;
      held += textLength(block);
    }
    if (links < MIN_STRIP_LINKS || held > MAX_STRIP_SHARE * total) continue;
    for (const block of strip) block.remove();
  }
}

/**
 * The blocks of a strip headed by `heading`: the outermost block that begins with the heading
 * when it holds the cards too, else the heading's block and the blocks after it that hold links,
 * up to the next heading.
 */
function stripOf(heading: Dom, root: Dom): Dom[] {
  let block = heading;
  while (block.parentNode !== null && block.parentNode !== root && beginsWith(block))
    block = block.parentNode;
  if (block !== heading && block.querySelectorAll("a[href]").length >= MIN_STRIP_LINKS) return [block];
  const run = [block];
  for (let next = block.nextElementSibling; next != null; next = next.nextElementSibling) {
    if (HEADINGS.has(next.localName) || next.querySelector("h1, h2") !== null) break;
    // A strip's label ("Sponsored", "Page 1 of 3") goes with it; a block of text without a link does not.
    if (next.querySelector("a[href]") === null && textLength(next) >= MAX_STRIP_LABEL) break;
    run.push(next);
  }
  return run;
}

/** Whether nothing with text comes before `child` among its siblings: its parent begins with it. */
function beginsWith(child: Dom): boolean {
  for (let node = child.previousSibling; node != null; node = node.previousSibling) {
    if ((node.textContent ?? "").trim() !== "") return false;
  }
  return true;
}

/** How much longer the other reading must be, holding the blocks, to be taken instead. */
const WIDER_FACTOR = 3;
/** The share of the blocks' words the other reading must hold to count as holding them. */
const HELD_SHARE = 0.4;

/**
 * Whether the other reading holds the describing blocks and several times more: a product
 * told at length (a landing page of sections) whose blocks are only its specifications. When it
 * does not hold them, it is something else on the page (the reviews, a price-match form).
 */
function holdsMore(other: Dom, blocks: Dom): boolean {
  return textLength(other) >= WIDER_FACTOR * textLength(blocks) && wordShare(blocks, other) >= HELD_SHARE;
}

/** The page's one `<h1>`, when no described block holds it. */
function productName(body: Dom, blocks: readonly Dom[]): string | undefined {
  const heading = body.querySelector("h1");
  if (heading === null || blocks.some((block) => block.contains(heading))) return undefined;
  const text = (heading.textContent ?? "").replace(/\s+/g, " ").trim();
  return text === "" || text.length > 300 ? undefined : text;
}

function linkText(element: Dom): number {
  let linked = 0;
  for (const link of Array.from(element.querySelectorAll("a")) as Dom[]) linked += textLength(link);
  return linked;
}

/** One fact a page states about its product: a label and its value, as the data says them. */
export interface ProductFact {
  readonly label: string;
  readonly value: string;
}

/** JSON-LD scripts read for a product, and the depth searched in each: bounds on hostile pages. */
const MAX_SCRIPTS = 20;
const MAX_DEPTH = 6;
const MAX_PROPERTIES = 40;

/**
 * The facts the page's JSON-LD states about its one product, in a fixed order: brand, SKU,
 * price (or price range) with currency, availability, condition, then its additional
 * properties. Nothing is inferred: a value the data does not state is not a fact.
 */
export function productFacts(document: Dom): ProductFact[] {
  const product = statedProduct(document);
  if (product === undefined) return [];
  const facts: ProductFact[] = [];
  const add = (label: string, value: unknown) => {
    const text = scalar(value);
    if (text !== undefined) facts.push({ label, value: text });
  };
  const brand = product.brand;
  add("Brand", isRecord(brand) ? brand.name : Array.isArray(brand) ? undefined : brand);
  add("SKU", product.sku);
  add("MPN", product.mpn);
  add("GTIN", product.gtin13 ?? product.gtin12 ?? product.gtin ?? product.gtin14 ?? product.gtin8);
  const offer = firstRecord(product.offers);
  if (offer !== undefined) {
    const currency = scalar(offer.priceCurrency);
    const suffix = currency === undefined ? "" : ` ${currency}`;
    const low = scalar(offer.lowPrice);
    const high = scalar(offer.highPrice);
    const price = scalar(offer.price) ?? scalar(firstRecord(offer.priceSpecification)?.price);
    if (price !== undefined) add("Price", `${price}${suffix}`);
    else if (low !== undefined)
      add("Price", high === undefined ? `from ${low}${suffix}` : `${low} to ${high}${suffix}`);
    add("Availability", schemaWord(offer.availability));
    // A shop's items are new unless it says otherwise: only another condition tells the agent something.
    const condition = schemaWord(offer.itemCondition);
    if (condition !== undefined && !/^new( condition)?$/i.test(condition)) add("Condition", condition);
  }
  const properties = Array.isArray(product.additionalProperty) ? product.additionalProperty : [];
  for (const property of properties.slice(0, MAX_PROPERTIES)) {
    if (!isRecord(property)) continue;
    const label = scalar(property.name);
    const value = scalar(property.value);
    if (label !== undefined && value !== undefined) facts.push({ label, value });
  }
  return facts;
}

/** The first schema.org Product the page states in JSON-LD (`@graph` and arrays included). */
function statedProduct(document: Dom): Record<string, unknown> | undefined {
  const scripts = Array.from(document.querySelectorAll('script[type="application/ld+json"]')) as Dom[];
  for (const script of scripts.slice(0, MAX_SCRIPTS)) {
    let data: unknown;
    try {
      data = JSON.parse(script.textContent ?? "");
    } catch {
      continue;
    }
    const found = findProduct(data, 0);
    if (found !== undefined) return found;
  }
  return undefined;
}

function findProduct(value: unknown, depth: number): Record<string, unknown> | undefined {
  if (depth > MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findProduct(item, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  const type = value["@type"];
  const types = Array.isArray(type) ? type : [type];
  if (types.some((name) => name === "Product" || name === "IndividualProduct")) return value;
  for (const key of ["@graph", "mainEntity"]) {
    const found = findProduct(value[key], depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function firstRecord(value: unknown): Record<string, unknown> | undefined {
  if (Array.isArray(value)) return value.find(isRecord);
  return isRecord(value) ? value : undefined;
}

/** A short text or number, trimmed; anything else (objects, long text) is not a fact value. */
function scalar(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string") return undefined;
  const text = value.replace(/\s+/g, " ").trim();
  return text === "" || text.length > 200 ? undefined : text;
}

/** `https://schema.org/InStock` as "In stock"; a plain word stays as it is. */
function schemaWord(value: unknown): string | undefined {
  const text = scalar(value);
  if (text === undefined) return undefined;
  const word = text.replace(/^https?:\/\/schema\.org\//i, "");
  const spaced = word.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/**
 * Appends, as a list under "Product facts", the stated facts whose value the content does not
 * already show, so that the agent reads the price or SKU the visible page left to scripts.
 */
export function addFacts(document: Dom, root: Dom, facts: readonly ProductFact[]): void {
  const shown = (root.textContent ?? "").replace(/\s+/g, " ").toLowerCase();
  const missing = facts.filter(
    (fact) =>
      !shown.includes(fact.value.toLowerCase()) && !(fact.label === "Price" && priceShown(shown, fact.value)),
  );
  if (missing.length === 0) return;
  const heading = document.createElement("h2");
  heading.textContent = "Product facts";
  const list = document.createElement("ul");
  for (const fact of missing) {
    const item = document.createElement("li");
    item.textContent = `${fact.label}: ${fact.value}`;
    list.appendChild(item);
  }
  root.appendChild(heading);
  root.appendChild(list);
}

/** The amounts a page shows beside a currency sign or code: "$22", "€ 17,00", "129.00 EUR". */
const SHOWN_PRICE = /(?:[$€£¥₹]|\b[a-z]{3})\s?(\d[\d,.]*)|(\d[\d,.]*)\s?(?:[$€£¥₹]|zł|kr\b|[a-z]{3}\b)/g;

/**
 * Whether the content shows the stated price's amounts as prices, written its own way: the data
 * says "17.0 EUR" where the page shows "€17", "1299.00" where it shows "$1,299". Amounts compare
 * as numbers, in cents.
 */
function priceShown(shown: string, value: string): boolean {
  const stated = (value.match(/\d+(?:\.\d+)?/g) ?? []).map((amount) => Math.round(Number(amount) * 100));
  if (stated.length === 0) return false;
  const prices = new Set<number>();
  for (const match of shown.matchAll(SHOWN_PRICE)) {
    const amount = cents(match[1] ?? match[2] ?? "");
    if (amount !== undefined) prices.add(amount);
  }
  return stated.every((amount) => prices.has(amount));
}

/** "1,299.00", "1.299,00", "17,5" or "22" in cents; undefined when it reads as no amount. */
function cents(text: string): number | undefined {
  const trimmed = text.replace(/[.,]+$/, "");
  // The last separator followed by one or two digits is the decimal one; the others group thousands.
  const decimal = /[.,](\d{1,2})$/.exec(trimmed);
  const whole = (decimal === null ? trimmed : trimmed.slice(0, decimal.index)).replace(/[.,]/g, "");
  if (whole === "") return undefined;
  const fraction = decimal === null ? 0 : Number(decimal[1]?.padEnd(2, "0"));
  return Number(whole) * 100 + fraction;
}
