/**
 * A page that repeats one card structure (a list of releases, search results, a category of
 * products, a blog index, a news front page) read as its cards: every card's text, in order,
 * under the page's heading and introduction, without the site's navigation, filters and
 * pagination.
 *
 * An article extractor keeps the one block with the most prose, which on such a page is a
 * single card, a banner or the introduction; its clean-up drops link lists, which here are the
 * content. A card is found by how a listing is built: siblings of one tag and class, each with a
 * link and some text. The cards' region is the ancestor of the largest such group that gains
 * more card text than other text from each step up, so the other grids of a front page come
 * with the first and its menus and banners stay out.
 */

import {
  closestOf,
  firstUnder,
  isLink,
  MAX_CONTROL_CHARS,
  nextPast,
  nextUnder,
  textLength,
} from "./document.js";
import { wordShare, wordShareIn } from "./extract.js";
import { revealNoscript } from "./noscript.js";

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

/** Siblings of one kind that make a list of cards. */
const MIN_CARDS = 3;
/** A card says more than a menu item: a title of a few words, or a title and a line. */
const MIN_CARD_CHARS = 15;
/** Groups a page holds before the search stops looking (a bound on hostile pages). */
const MAX_GROUPS = 2000;
/** Text before the cards kept as the page's introduction (its heading and a few paragraphs). */
const MAX_INTRO_CHARS = 1500;

interface Group {
  readonly parent: Dom;
  readonly cards: readonly Dom[];
  readonly text: number;
}

/** A reading of a page's cards: the whole of it, and the cards' region inside it. */
export interface CardsReading {
  /** The heading and introduction, the cards, then the text a shop writes below them. */
  readonly root: Dom;
  /** The cards alone, without the introduction and afterword around them. */
  readonly region: Dom;
  /** The text of the region the page marks as its main one (`main`, `role=main`) when it holds the cards. */
  readonly mainText?: string;
}

/**
 * The page's cards under its heading and introduction, in a new element, or undefined when the
 * page repeats no card structure. Reveals a script-free page held in `<noscript>` (noscript.ts); reads the rest without changing it.
 */
export function readCards(body: Dom): CardsReading | undefined {
  revealNoscript(body);
  const groups = outermost(cardGroups(body));
  if (groups.length === 0) return undefined;
  let best = groups[0] as Group;
  for (const group of groups) if (group.text > best.text) best = group;
  const region = cardRegion(body, best, groups);
  const document = body.ownerDocument;
  const root = document.createElement("div");
  for (const element of introduction(body, region)) root.appendChild(element.cloneNode(true));
  const cards = region.cloneNode(true);
  dropRepeats(region, cards, groups);
  root.appendChild(cards);
  for (const element of afterword(body, region)) root.appendChild(element.cloneNode(true));
  // The panels' buttons are read as their headings' text: the panels they open are found first.
  const opened = openedPanels(root);
  unwrapHeadingButtons(root);
  dropChrome(cards, opened);
  dropCopies(cards);
  // Taken now: extraction moves the main region's nodes.
  const main = closestOf(region, MAIN, "main");
  return { root, region: cards, ...(main === null ? {} : { mainText: String(main.textContent ?? "") }) };
}

/**
 * Removes, in each card of the copy, a text a card already showed: shops draw a tile's name and
 * price twice or three times, one copy for each screen size, where the page shows one. The copy's
 * elements match the region's one for one, in order.
 */
function dropRepeats(region: Dom, copy: Dom, groups: readonly Group[]): void {
  const originals = Array.from(region.querySelectorAll("*")) as Dom[];
  const copies = Array.from(copy.querySelectorAll("*")) as Dom[];
  const index = new Map<Dom, number>();
  originals.forEach((element, at) => {
    index.set(element, at);
  });
  const doomed: Dom[] = [];
  for (const group of groups) {
    for (const card of group.cards) {
      const at = index.get(card);
      if (at === undefined) continue;
      const seen = new Set<string>();
      for (const element of Array.from((copies[at] as Dom).querySelectorAll("*")) as Dom[]) {
        if (element.firstElementChild !== null) continue;
        const text = (element.textContent ?? "").replace(/\s+/g, " ").trim();
        if (text.length < 3) continue;
        if (seen.has(text)) doomed.push(element);
        else seen.add(text);
      }
    }
  }
  for (const element of doomed) element.remove();
}

/** How many times the extraction's text the cards hold when they also hold its words. */
const HOLDS_FACTOR = 2;
/** The share of the extraction's distinct words the cards must hold. */
const HOLDS_SHARE = 0.5;

/**
 * Whether the cards are the page's content on any kind of page: they hold several times the
 * extraction's text and most of its words, so the extraction kept one card, the introduction or
 * a part of the list. An article's related stories hold few of the article's words.
 */
export function cardsHold(cards: CardsReading, reading: Dom): boolean {
  // The cards' region alone: the introduction and afterword around it may be an article's own
  // prose, which would hold the article's words.
  const { region } = cards;
  return textLength(region) > HOLDS_FACTOR * textLength(reading) && wordShare(reading, region) >= HOLDS_SHARE;
}

/** `main`: the region a page marks as its main one (with `role=main`). */
const MAIN = new Set(["main"]);

/**
 * Whether the cards lie in the region the page marks as its main one and a reading does not:
 * the reading kept a notice or a prompt drawn outside it (a cookie banner, a sign-in dialog),
 * and the cards hold twice its text. A story's own text lies in its page's main region.
 */
export function cardsInMain(cards: CardsReading, reading: Dom): boolean {
  if (cards.mainText === undefined) return false;
  return (
    textLength(cards.region) > HOLDS_FACTOR * textLength(reading) &&
    wordShareIn(reading, cards.mainText) < HOLDS_SHARE
  );
}

/** How many times a service reading's text the cards hold when they hold nearly all its words. */
const CONTAINS_FACTOR = 1.2;
/** The share of the reading's distinct words the cards hold to hold all of it. */
const CONTAINS_SHARE = 0.95;

/**
 * Whether the cards hold all of a reading and more: the reading kept a part of the list (some of
 * its cards, or one of its lists), not a page's own parts around a grid, which lie outside it.
 */
export function cardsContain(cards: CardsReading, reading: Dom): boolean {
  const { region } = cards;
  return (
    textLength(region) > CONTAINS_FACTOR * textLength(reading) && wordShare(reading, region) >= CONTAINS_SHARE
  );
}

/**
 * Class words that differ between otherwise equal cards (state, position, parity), and the terms
 * a blog's engine classes each post with (`category-recipes`, `tag-fish`): each post has its own.
 */
const VARYING =
  /^(odd|even|first|last|active|selected|current|featured|new|hidden|visible|is-.*|has-.*|(category|tag)-.*|.*\d.*)$/i;

/** A card's kind: its tag and the class words all cards of its list share. */
function signature(element: Dom): string {
  const words = (element.getAttribute("class") ?? "")
    .split(/\s+/)
    .filter((word: string) => word !== "" && !VARYING.test(word))
    .sort();
  return `${element.localName}.${words.join(".")}`;
}

/** Every group of sibling cards on the page, outermost or not. */
function cardGroups(body: Dom): Group[] {
  const groups: Group[] = [];
  for (const parent of Array.from(body.querySelectorAll("*")) as Dom[]) {
    if ((parent.children?.length ?? 0) < MIN_CARDS || SKIPPED.has(parent.localName)) continue;
    const bySignature = new Map<string, Dom[]>();
    for (const child of Array.from(parent.children) as Dom[]) {
      const key = signature(child);
      const same = bySignature.get(key);
      if (same === undefined) bySignature.set(key, [child]);
      else same.push(child);
    }
    for (const members of bySignature.values()) {
      if (members.length < MIN_CARDS) continue;
      const cards = members.filter(isCard);
      if (cards.length < MIN_CARDS) continue;
      let text = 0;
      let largest = 0;
      for (const card of cards) {
        const length = textLength(card);
        text += length;
        largest = Math.max(largest, length);
      }
      // A page's columns (header, main, footer) repeat too, but one of them holds most text.
      if (largest > 0.5 * text) continue;
      // A menu's panel or a screen reader's copy repeats like cards but is not what the page shows.
      if (unseen(parent) || oneTarget(cards)) continue;
      groups.push({ parent, cards, text });
      if (groups.length >= MAX_GROUPS) return groups;
    }
  }
  return groups;
}

/** Elements whose children are never cards: navigation, forms, inline text. */
const SKIPPED = new Set([
  "nav",
  "footer",
  "header",
  "form",
  "select",
  "p",
  "span",
  "a",
  "script",
  "style",
  "head",
]);

/** Where cards are never read: `nav, footer, header, aside, [role='navigation']` (asked of each candidate). */
const CARDLESS = new Set(["nav", "footer", "header", "aside"]);

function isCard(element: Dom): boolean {
  if (closestOf(element, CARDLESS, "navigation") !== null) return false;
  const length = textLength(element);
  return length >= MIN_CARD_CHARS && firstUnder(element, isLink) !== null && !menuColumn(element, length);
}

/** Links a menu's column holds: a card links its item, its author or its category, not a list of places. */
const MENU_LINKS = 6;
/** The share of a menu column's text in its links (a card's teaser, price or date is not a link). */
const MENU_LINKED_SHARE = 0.8;
/** A menu's link names a place in a few words; a list's link names a story or an item in a title. */
const MENU_LINK_CHARS = 25;
/** A link as long as a headline names an item (a story, a post), which no menu's place does. */
const HEADLINE_CHARS = 40;

/**
 * Whether a repeated block is a column of a site's menu (a department and its links, drawn as
 * siblings like cards, often outside any `<nav>`): many short links, and little else. A block of
 * a list's titles, each a link, has longer ones; a story's card, whose tags, author and counts
 * are short links too, links its headline.
 */
function menuColumn(element: Dom, length: number): boolean {
  let links = 0;
  let linked = 0;
  for (let at = firstUnder(element, isLink); at !== null; at = nextLink(element, at)) {
    const text = textLength(at);
    if (text === 0) continue;
    if (text >= HEADLINE_CHARS) return false;
    links += 1;
    linked += text;
  }
  return links >= MENU_LINKS && linked >= MENU_LINKED_SHARE * length && linked < MENU_LINK_CHARS * links;
}

/** The next link under `root` after `link`, past the link's own content. */
function nextLink(root: Dom, link: Dom): Dom | null {
  for (let at = nextPast(root, link); at !== null; at = nextUnder(root, at)) if (isLink(at)) return at;
  return null;
}

/**
 * Whether every link of the cards leads to one place: a list links each of its items, while a
 * promotion bar's slides or a notice written once per country repeat one message and its link.
 */
function oneTarget(cards: readonly Dom[]): boolean {
  let target: string | undefined;
  for (const card of cards) {
    for (let at = firstUnder(card, isLink); at !== null; at = nextLink(card, at)) {
      const href = (at.getAttribute("href") ?? "").trim();
      if (target === undefined) target = href;
      else if (href !== target) return false;
    }
  }
  return target !== undefined && target !== "" && !target.startsWith("#");
}

/** Class words of what a page keeps out of sight until asked (a menu's panels, text for screen readers). */
const UNSEEN = /(^|[\s_-])(sr-only|visually-hidden|screen-reader-text)([\s_-]|$)/i;

/**
 * Whether an element or one of its ancestors is classed out of sight. Not `hidden` or
 * `display: none`: pages drawn by scripts hide their whole content so until the script runs.
 */
function unseen(element: Dom): boolean {
  for (let at = element; at != null; at = at.parentElement) {
    if (UNSEEN.test(at.getAttribute("class") ?? "")) return true;
  }
  return false;
}

/**
 * The ancestor of the best group's parent that holds the cards: each step up is taken when the
 * card text it adds (other groups' cards) outweighs the other text it adds (menus, banners).
 */
function cardRegion(body: Dom, best: Group, groups: readonly Group[]): Dom {
  let region = best.parent;
  let regionScore = best.text - (textLength(region) - best.text);
  for (let node = region.parentElement; node && node !== body.parentElement; node = node.parentElement) {
    const cards = cardTextWithin(node, groups);
    const score = cards - (textLength(node) - cards);
    if (score > regionScore) {
      region = node;
      regionScore = score;
    }
  }
  return region;
}

/** Text of the outermost groups' cards under `root` (a card's own list counts once). */
function cardTextWithin(root: Dom, groups: readonly Group[]): number {
  let total = 0;
  for (const group of groups) if (root.contains(group.parent)) total += group.text;
  return total;
}

/** The groups that sit in no other group's card (a card's own list of features is its text). */
function outermost(groups: readonly Group[]): Group[] {
  const cards = new Set<Dom>();
  for (const group of groups) for (const card of group.cards) cards.add(card);
  return groups.filter((group) => {
    for (let node = group.parent; node; node = node.parentElement) if (cards.has(node)) return false;
    return true;
  });
}

/** `nav, footer, header, aside, form`: what holds no introduction. */
const NOT_INTRODUCTION = new Set(["nav", "footer", "header", "aside", "form"]);

/** The page's heading and the paragraphs between it and the cards, when the region lacks them. */
function introduction(body: Dom, region: Dom): Dom[] {
  const heading = body.querySelector("h1");
  if (heading === null || region.contains(heading) || heading.contains(region)) return [];
  if (precedes(region, heading)) return [];
  const kept: Dom[] = [heading];
  let chars = textLength(heading);
  let after = false;
  for (const element of Array.from(body.querySelectorAll("h1, p")) as Dom[]) {
    if (element === heading) {
      after = true;
      continue;
    }
    if (!after || closestOf(element, NOT_INTRODUCTION) !== null) continue;
    if (region.contains(element) || precedes(region, element)) break;
    chars += textLength(element);
    if (chars > MAX_INTRO_CHARS) break;
    kept.push(element);
  }
  return kept;
}

/** Text after the cards kept as the category's description, its guide or its questions. */
const MAX_AFTERWORD_CHARS = 4000;
/** A paragraph or item of an afterword is prose, not a link of a menu or a card of a strip. */
const MIN_AFTERWORD_CHARS = 80;

/**
 * The paragraphs after the cards, each under the heading before it: a shop writes its
 * category's description, its buying guide and its questions below the grid. A menu's links,
 * a strip's cards and a sign-up's prompt are shorter than a paragraph and stay out.
 */
function afterword(body: Dom, region: Dom): Dom[] {
  const opened = openedPanels(body);
  const kept: Dom[] = [];
  let heading: Dom | undefined;
  let chars = 0;
  for (const element of Array.from(body.querySelectorAll("h2, h3, h4, p, li")) as Dom[]) {
    if (region.contains(element) || !precedes(region, element)) continue;
    if (closestOf(element, NOT_INTRODUCTION, "navigation") !== null || withinChrome(element, body, opened))
      continue;
    // The site's own small print ends the page's content.
    if ((element.textContent ?? "").includes("©")) break;
    if (element.localName.startsWith("h")) {
      heading = element;
      continue;
    }
    const length = textLength(element);
    // A list item's own paragraphs are read with it.
    if (length < MIN_AFTERWORD_CHARS || kept.some((done) => done.contains(element))) continue;
    chars += length + (heading === undefined ? 0 : textLength(heading));
    if (chars > MAX_AFTERWORD_CHARS) break;
    if (heading !== undefined) kept.push(heading);
    heading = undefined;
    kept.push(element);
  }
  return kept;
}

/** Class and id words of what a shop puts after its grid that is not the page's: footers, pop-ups, offers. */
const AFTER_CHROME =
  /(^|[\s_-])(footer|copyright|legal|modal|popup|pop-up|dialog|overlay|drawer|offcanvas|flyout|signup|sign-up|promo|announcement)([\s_-]|$)/i;

/** Whether an element sits in a listing's chrome (a cookie notice, a sign-up, a dialog, hidden text). */
function withinChrome(element: Dom, body: Dom, opened: ReadonlySet<string>): boolean {
  for (let node = element; node && node !== body; node = node.parentElement) {
    if (isChrome(node, opened) || node.getAttribute("aria-modal") === "true") return true;
    if (
      AFTER_CHROME.test(node.getAttribute("class") ?? "") ||
      AFTER_CHROME.test(node.getAttribute("id") ?? "")
    )
      return true;
  }
  return false;
}

/**
 * Whether `a` comes before `b` in the document (neither containing the other). Written here
 * because linkedom's compareDocumentPosition answers the other way round for nodes in different
 * subtrees, which lost a listing's introduction.
 */
function precedes(a: Dom, b: Dom): boolean {
  const path = (node: Dom) => {
    const nodes: Dom[] = [];
    for (let at = node; at; at = at.parentNode) nodes.push(at);
    return nodes.reverse();
  };
  const pathA = path(a);
  const pathB = path(b);
  let depth = 0;
  while (depth < pathA.length && depth < pathB.length && pathA[depth] === pathB[depth]) depth += 1;
  if (depth === 0 || depth === pathA.length || depth === pathB.length) return false;
  const siblings = Array.from(pathA[depth - 1].childNodes as ArrayLike<Dom>);
  return siblings.indexOf(pathA[depth]) < siblings.indexOf(pathB[depth]);
}

/** Class words of a listing's chrome: its filters, sorting, pagination and prompts. */
const CHROME =
  /(^|[\s_-])(pagination|pager|paging|filters?|facets?|sort|sorting|breadcrumbs?|toolbar|cookie|consent|newsletter|share|social|sr-only|visually-hidden|screen-reader-text)([\s_-]|$)/i;

/**
 * Elements of a listing's chrome, and its pictures: a card's image repeats its title in its alt
 * text, or describes a product photo no reader asked for.
 */
const DROPPED = new Set([
  "nav",
  "aside",
  "footer",
  "form",
  "select",
  "button",
  "script",
  "style",
  "template",
  "noscript",
  "img",
  "picture",
  "svg",
  "figure",
]);

/** The pictures of a listing's or catalogue's items: `img, picture, svg`. */
const PICTURES = new Set(["img", "picture", "svg"]);

/**
 * Removes the pictures from a reading of a listing or a catalogue, whichever strategy read it:
 * an item's picture repeats its title in its alt text or describes a product photo, words the
 * page's reader did not come for (the cards' own reading drops them with the chrome).
 */
export function dropPictures(root: Dom): void {
  const doomed: Dom[] = [];
  for (const element of Array.from(root.querySelectorAll("*")) as Dom[])
    if (PICTURES.has(element.localName)) doomed.push(element);
  for (const element of doomed) element.remove();
}

/** Roles of a listing's controls: its buttons, switches and choices. */
const CONTROLS = new Set([
  "button",
  "checkbox",
  "radio",
  "switch",
  "option",
  "combobox",
  "listbox",
  "tab",
  "tablist",
]);
/** What a card's buttons and links say when they are calls to act, not the item's text. */
const CALL_TO_ACT =
  /^\W*(add to (cart|basket|bag|wishlist|compare)|compare|quick (view|shop|look)|buy now|shop now|order now|pre-?order now|apply now|learn more|read more|see more|view more|view details|see details|more details|more info|view (company )?profile|save for later|select options|choose options|view options|notify me)\W*$/i;

/** Whether an element of a listing is chrome: navigation, a control, a filter, hidden text. */
function isChrome(element: Dom, opened: ReadonlySet<string>): boolean {
  const tag = element.localName;
  if (DROPPED.has(tag) && !(tag === "figure" && namedLink(element))) return true;
  const role = (element.getAttribute("role") ?? "").toLowerCase();
  if (["navigation", "search", "menu", "menubar", "dialog"].includes(role)) return true;
  if (hiddenElement(element) && !opened.has(element.getAttribute("id") ?? "")) return true;
  // A filter panel or a pager is often named by its id or its label, its classes being hashes.
  for (const name of ["class", "id", "aria-label"])
    if (CHROME.test(element.getAttribute(name) ?? "")) return true;
  const control = tag === "label" || CONTROLS.has(role);
  // A call to act is a leaf or nearly: a container's text is not measured for it.
  if (!control && (element.children?.length ?? 0) > 2) return false;
  if (textLength(element) > MAX_CONTROL_CHARS) return false;
  return control || CALL_TO_ACT.test(element.textContent ?? "");
}

/**
 * Whether a `<figure>` holds a link with text: a card drawn as one figure (its picture, its
 * linked name, its price), not a picture and its caption.
 */
function namedLink(figure: Dom): boolean {
  for (let at = firstUnder(figure, isLink); at !== null; at = nextLink(figure, at))
    if (textLength(at) > 0) return true;
  return false;
}

/**
 * The ids of the panels a button opens (`aria-controls`): a guide's or a FAQ's collapsed
 * answers, hidden until asked for, are the page's text.
 */
function openedPanels(root: Dom): Set<string> {
  const opened = new Set<string>();
  for (const element of Array.from(root.querySelectorAll("[aria-controls]")) as Dom[])
    for (const id of (element.getAttribute("aria-controls") ?? "").split(/\s+/))
      if (id !== "") opened.add(id);
  return opened;
}

/**
 * Replaces each heading's button that opens a panel (an accordion's) by its label: the label is
 * the heading's text, which a button's would lose as a control. Wider than disclosure.ts's rule,
 * which asks for a question: a catalogue's guide is headed by topics, not questions.
 */
function unwrapHeadingButtons(root: Dom): void {
  for (const button of Array.from(root.querySelectorAll("button[aria-controls]")) as Dom[]) {
    if (closestOf(button, HEADINGS) === null) continue;
    while (button.firstChild) button.parentNode.insertBefore(button.firstChild, button);
    button.remove();
  }
}

const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);

/**
 * Whether an element is kept out of sight (`hidden`, `aria-hidden`, `display: none`). A part
 * hidden from screen readers inside a labelled element is what it shows (a rating's stars and
 * count), its label saying the same to them: that part is seen.
 */
function hiddenElement(element: Dom): boolean {
  if (element.hasAttribute("hidden")) return true;
  const labelled = element.parentElement?.hasAttribute("aria-label") ?? false;
  if (element.getAttribute("aria-hidden") === "true" && !labelled) return true;
  return /(^|;)\s*(display\s*:\s*none|visibility\s*:\s*hidden)/i.test(element.getAttribute("style") ?? "");
}

/** Removes what a listing carries around its cards: filters, sorting, pagination, hidden text. */
function dropChrome(root: Dom, opened: ReadonlySet<string>): void {
  const total = textLength(root);
  const doomed: Dom[] = [];
  for (const element of Array.from(root.querySelectorAll("*")) as Dom[])
    if (isChrome(element, opened)) doomed.push(element);
  // A form around the whole list (a page built as one form) is no filter.
  for (const element of doomed) if (textLength(element) < 0.3 * total) element.remove();
}

/** The text a copy must hold to be dropped: a card's title and a line, not a title a card shows twice by design. */
const MIN_COPY_CHARS = 40;
/** Earlier siblings a block is compared with: a layout's copy sits beside the block it copies. */
const COPY_REACH = 3;

/**
 * Removes the copies a card carries of its own text: a page drawn for both small and large
 * screens sends each card twice (its layouts, one hidden by a style sheet), the second holding
 * what the first says. A block whose words one of the few siblings before it holds in the same
 * order, and whose links it holds too, goes: two items of one name link two pages, and both stay.
 */
function dropCopies(root: Dom): void {
  const doomed: Dom[] = [];
  // Words are gathered only for a block of a copy's length and the blocks it may copy.
  const known = new Map<Dom, string>();
  const wordsOf = (element: Dom) => {
    let text = known.get(element);
    if (text === undefined) {
      text = words(element);
      known.set(element, text);
    }
    return text;
  };
  const visit = (element: Dom) => {
    const recent: Array<{ block: Dom; length: number }> = [];
    for (let child = element.firstElementChild; child != null; child = child.nextElementSibling) {
      const length = textLength(child);
      if (length === 0) continue;
      const copied =
        length >= MIN_COPY_CHARS &&
        recent.some(
          (earlier) =>
            earlier.length >= length &&
            wordsOf(earlier.block).includes(wordsOf(child)) &&
            linksWithin(child, earlier.block),
        );
      if (copied) {
        doomed.push(child);
        continue;
      }
      recent.push({ block: child, length });
      if (recent.length > COPY_REACH) recent.shift();
      visit(child);
    }
  };
  visit(root);
  for (const element of doomed) element.remove();
}

/**
 * An element's words, lower-cased, one space between them and around the whole; its text nodes
 * read apart, as blocks are shown (`textContent` runs a title into the date below it).
 */
function words(element: Dom): string {
  const texts: string[] = [];
  for (let node = element.firstChild; node != null; ) {
    if (node.nodeType === TEXT_NODE) texts.push(node.data);
    else if (node.firstChild != null) {
      node = node.firstChild;
      continue;
    }
    while (node !== element && node.nextSibling == null) node = node.parentNode;
    node = node === element ? null : node.nextSibling;
  }
  const found = texts
    .join(" ")
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu);
  return found === null ? "" : ` ${found.join(" ")} `;
}

const TEXT_NODE = 3;

/** Whether every link under `copy` goes where a link under `original` goes. */
function linksWithin(copy: Dom, original: Dom): boolean {
  const targets = new Set<string>(isLink(original) ? [original.getAttribute("href")] : []);
  for (let at = firstUnder(original, isLink); at !== null; at = nextLink(original, at))
    targets.add(at.getAttribute("href"));
  for (let at = isLink(copy) ? copy : firstUnder(copy, isLink); at !== null; at = nextLink(copy, at))
    if (!targets.has(at.getAttribute("href"))) return false;
  return true;
}
