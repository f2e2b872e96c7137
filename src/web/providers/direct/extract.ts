/**
 * The main content of a page: Readability's choice, cleaned of the boilerplate it keeps, else
 * the page body.
 *
 * Readability finds the block that holds the article well, but keeps what sits inside that
 * block around the text: share bars, newsletter and promo boxes, "related" link lists, author
 * boxes, comment sections. `clean` removes those afterwards, by what they are (class, id, role)
 * and by what they look like (mostly links), never a block that holds much of the text.
 *
 * Readability sometimes picks the wrong block (a comment form beside a short post, the list of
 * signatories under a letter) or a part of the article: the block the page itself names as its
 * article body (container.ts) is then taken instead. The lead under the headline, which
 * Readability leaves out with the article's header, is put back (lead.ts).
 */
import { Readability } from "@mozilla/readability";
import type { ReadStrategy } from "../../provider.js";
import { dropAuthorBoxes } from "./author-box.js";
import { findComments, joinDiscussion } from "./comments.js";
import { findContainer } from "./container.js";
import { unwrapDisclosures } from "./disclosure.js";
import { findSectioned } from "./docs.js";
import { nextUnder, textLength } from "./document.js";
import { addLead, findLead } from "./lead.js";
import { markdownBlocks } from "./markdown.js";
import { revealNoscript } from "./noscript.js";
import { cutRepeatedQuotes } from "./quotes.js";
import { findThread, isDiscussion, type Post } from "./thread.js";

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

/**
 * How the content was chosen: a thread's posts (thread.ts), Readability's block, the block the
 * page names as its body (container.ts), the whole cleaned body when no block was found, or
 * when the block found held almost nothing (`body-fallback`).
 */
export type Strategy = Extract<
  ReadStrategy,
  "thread" | "cards" | "article" | "container" | "body" | "body-fallback" | "product" | "sections"
>;

export interface MainContent {
  /** The element whose children are the content. */
  readonly root: Dom;
  /** Readability found a main-content block (otherwise `root` is the body). */
  readonly found: boolean;
  readonly strategy: Strategy;
  readonly title?: string;
  readonly byline?: string;
}

export function extractMain(document: Dom, prose = false): MainContent {
  const body = document.body ?? document.documentElement;
  revealNoscript(body);
  unwrapDisclosures(body);
  preClean(body);
  const thread = findThread(body);
  if (thread !== undefined) return { root: threadRoot(document, thread), found: true, strategy: "thread" };
  // Taken before Readability, which moves and removes nodes. On a page typed article or
  // documentation, comments are a discussion only where the page says so: a blog's own body
  // often carries a post-body class like its comments.
  const stated = isDiscussion(body);
  const comments = prose && !stated ? undefined : findComments(body);
  const discussion = comments === undefined ? undefined : threadRoot(document, comments);
  const main = readArticle(document, body);
  const joined =
    discussion === undefined
      ? undefined
      : joinDiscussion(document, main.found ? main.root : undefined, discussion, stated);
  if (joined === undefined) return main;
  return { root: joined, found: true, strategy: "thread", ...(main.title ? { title: main.title } : {}) };
}

/** Readability's block or the page's named container, cleaned; else the whole body. */
function readArticle(document: Dom, body: Dom): MainContent {
  // Readability moves and removes nodes: the second opinion is taken before it runs.
  // A page with no named body may hold its text in a run of headed sections (docs.ts), of
  // which Readability's choice is one: a run that holds it and more is the page's text.
  const named = findContainer(body);
  const container = (named ?? findSectioned(body))?.cloneNode(true);
  const lead = findLead(body);
  let article: { title?: string | null; content?: Dom; byline?: string | null } | null = null;
  try {
    // keepClasses: code blocks name their language in a class; serializer: keep the element.
    article = new Readability(document, { keepClasses: true, serializer: (element: Dom) => element }).parse();
  } catch {
    article = null;
  }
  const title = article?.title?.trim() || undefined;
  const byline = article?.byline?.replace(/\s+/g, " ").trim() || undefined;
  const meta = { ...(title ? { title } : {}), ...(byline ? { byline } : {}) };
  if (article?.content) {
    clean(article.content);
    dropBoilerplateText(article.content);
    dropAuthorBoxes(article.content);
  }
  if (container !== undefined) {
    clean(container);
    dropBoilerplateText(container);
    dropAuthorBoxes(container);
    if (article?.content === undefined || preferContainer(article.content, container, named === undefined)) {
      addLead(container, lead);
      return { root: container, found: true, strategy: "container", ...meta };
    }
  }
  if (article?.content) {
    addLead(article.content, lead);
    return { root: article.content, found: true, strategy: "article", ...meta };
  }
  return { root: body, found: false, strategy: "body", ...(title ? { title } : {}) };
}

/**
 * The whole body of a page no extractor has touched, cleaned of its furniture (navigation,
 * header and footer bars, and unless `light`, link lists and boilerplate lines): the wider
 * reading taken when the block an extraction chose holds almost nothing. `light` keeps the
 * link lists, which on a listing page are the content.
 */
export function extractBody(document: Dom, light = false): MainContent {
  const body = document.body ?? document.documentElement;
  revealNoscript(body);
  preClean(body);
  for (const element of Array.from(body.querySelectorAll("header")) as Dom[]) {
    if (isLinkList(element) || textLength(element) < 200) element.remove();
  }
  if (!light) {
    clean(body);
    dropBoilerplateText(body);
  }
  return { root: body, found: false, strategy: "body-fallback" };
}

/** The share of `part`'s distinct words that occur in `whole` (1 when `part` has none). */
export function wordShare(part: Dom, whole: Dom): number {
  return wordShareIn(part, String(whole.textContent ?? ""));
}

/** The share of `part`'s distinct words that occur in `text` (1 when `part` has none). */
export function wordShareIn(part: Dom, text: string): number {
  const ours = wordSet(String(part.textContent ?? ""));
  if (ours.size === 0) return 1;
  const theirs = wordSet(text);
  let held = 0;
  for (const word of ours) if (theirs.has(word)) held += 1;
  return held / ours.size;
}

const wordSet = (text: string) => new Set<string>(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/** A thread's posts, each its author line then its cleaned text, under one element. */
function threadRoot(document: Dom, posts: readonly Post[]): Dom {
  const root = document.createElement("div");
  const texts = posts.map((post) => {
    const text = post.body.cloneNode(true);
    clean(text);
    dropBoilerplateText(text);
    return text;
  });
  cutRepeatedQuotes(texts);
  posts.forEach((post, index) => {
    const text = texts[index];
    if (textLength(text) === 0) return;
    if (post.byline !== "") {
      const line = document.createElement("p");
      line.textContent = post.byline;
      root.appendChild(line);
    }
    root.appendChild(text);
  });
  return root;
}

/**
 * How many times Readability's choice a container holding it must hold to read better: a named
 * body holds a post's parts around the text; a run of sections (`run`) the text's other sections.
 */
const PART_FACTOR = 2;
const RUN_FACTOR = 1.2;

/**
 * Whether the page's conventional container reads better than Readability's choice: when
 * that choice is tiny, lies elsewhere on the page, or is a small part of the container.
 */
function preferContainer(chosen: Dom, container: Dom, run = false): boolean {
  const ours = markdownBlocks(container)
    .map(normalize)
    .filter((block) => block !== "");
  const theirs = markdownBlocks(chosen)
    .map(normalize)
    .filter((block) => block !== "");
  const oursLength = sum(ours);
  const theirsLength = sum(theirs);
  if (oursLength === 0) return false;
  const theirText = theirs.join(" ");
  const shared = sum(ours.filter((block) => theirText.includes(block)));
  const tiny = theirsLength < 200 && oursLength > theirsLength;
  const elsewhere = shared < 0.2 * oursLength && prose(ours) > 0.5 * prose(theirs);
  const part = shared > 0.8 * theirsLength && oursLength > (run ? RUN_FACTOR : PART_FACTOR) * theirsLength;
  // A run of sections is taken only when it holds the choice: it may be another part of the page.
  if (run) return part;
  return tiny || elsewhere || part;
}

/** Text in blocks that read as prose: long enough to hold a sentence. */
function prose(blocks: readonly string[]): number {
  let total = 0;
  for (const block of blocks) if (block.length >= 100 && !/^[-*+|#]/.test(block)) total += block.length;
  return total;
}

function normalize(block: string): string {
  return block.replace(/\s+/g, " ").trim();
}

function sum(blocks: readonly string[]): number {
  let total = 0;
  for (const block of blocks) total += block.length;
  return total;
}

/**
 * Words that name page furniture in a class or id (`post-share`, `related_posts`, `newsletter`).
 * A BEM modifier (`--ads` in `Section--Ads`) says how a block looks, not what it is: ignored.
 */
const FURNITURE = new Set([
  "share",
  "sharing",
  "shares",
  "sharebar",
  "social",
  "socials",
  "newsletter",
  "subscribe",
  "subscription",
  "signup",
  "related",
  "recommended",
  "recommendations",
  "readmore",
  "comments",
  "commentlist",
  "disqus",
  "respond",
  "byline",
  "authorbox",
  "breadcrumb",
  "breadcrumbs",
  "tags",
  "taglist",
  "cookie",
  "cookies",
  "consent",
  "gdpr",
  "promo",
  "promotion",
  "advert",
  "advertisement",
  "adsense",
  "sponsored",
  "widget",
  "toolbar",
  "pagination",
  "pager",
  "nav",
  "navigation",
  "menu",
  "footer",
  "copyright",
  "meta",
  "postmeta",
  "dateline",
  "author",
  "teasers",
  "postmetadata",
  "utility",
  "rating",
  "ratings",
  "disclosure",
  "disclaimer",
]);

export function furnitureName(names: string): boolean {
  for (const name of names.toLowerCase().split(/\s+/)) {
    const words = name.split("--")[0]?.split(/[-_]+/) ?? [];
    for (const word of words) if (FURNITURE.has(word) && !builderBlock(words, word)) return true;
  }
  return false;
}

/**
 * A page builder's block (`elementor-widget-text-editor`): Elementor calls every block of a
 * page a widget, the article's paragraphs included; the block's other words still say what it is.
 */
function builderBlock(words: readonly string[], word: string): boolean {
  return word === "widget" && words[0] === "elementor";
}

const ROLES = new Set(["navigation", "contentinfo", "complementary", "banner", "search", "menu", "menubar"]);

/** Removes page furniture inside the content, keeping any block that holds much of its text. */
export function clean(root: Dom): void {
  const total = textLength(root);
  if (total === 0) return;
  const doomed: Dom[] = [];
  const links = linksHeld(root);
  // Children followed from one to the next: nothing is removed before the walk ends.
  const visit = (element: Dom) => {
    for (let child = element.firstElementChild; child != null; child = child.nextElementSibling) {
      if (isFurniture(child) && textLength(child) < total * 0.3) doomed.push(child);
      else if ((links.get(child) ?? 0) >= LINK_LIST_MIN && isLinkList(child)) doomed.push(child);
      else if (isCaption(child)) doomed.push(child);
      else visit(child);
    }
  };
  visit(root);
  // Captions that hold much of the text are the content (a gallery, a listicle of photos).
  const captions = doomed.filter(isCaption);
  let captionText = 0;
  for (const caption of captions) captionText += textLength(caption);
  const kept = new Set(captionText > total * 0.25 ? captions : []);
  for (const element of doomed) if (!kept.has(element)) element.remove();
}

/**
 * An image's caption or credit (`figcaption`, `wp-caption-text`, `photo-credit`): it repeats or
 * credits the picture, whose alt text stays. A block holding an image is more than its caption.
 */
function isCaption(element: Dom): boolean {
  if (element.localName === "figcaption") return true;
  return (
    CAPTION_CLASS.test(element.getAttribute("class") ?? "") && element.querySelector("img, picture") === null
  );
}

const CAPTION_CLASS = /(^|[\s_-])(caption|credit|credits|bildunterschrift|legend)([\s_-]|$)/i;

function preClean(body: Dom): void {
  const total = textLength(body);
  for (const element of Array.from(body.querySelectorAll("nav, footer, aside, [role]")) as Dom[]) {
    const tag = element.localName;
    const role = (element.getAttribute("role") ?? "").toLowerCase();
    if (tag === "nav" || tag === "footer" || tag === "aside" || ROLES.has(role)) {
      if (textLength(element) < total * 0.3) element.remove();
    }
  }
}

function isFurniture(element: Dom): boolean {
  const tag = element.localName;
  if (tag === "nav" || tag === "footer" || tag === "aside" || (tag === "form" && hasInput(element)))
    return true;
  if (ROLES.has((element.getAttribute("role") ?? "").toLowerCase())) return true;
  return furnitureName(`${element.getAttribute("class") ?? ""} ${element.getAttribute("id") ?? ""}`);
}

function hasInput(element: Dom): boolean {
  return element.querySelector("input, textarea, select") !== null;
}

/** Links a block holds at least, to be a list of links. */
const LINK_LIST_MIN = 3;

/**
 * How many links each element under `root` holds, found in one pass: a block holding fewer than
 * a link list's is passed over without walking it (a walk per block costs as much as the block's
 * depth in the page times its size). Links inside a `<template>` count here, not in a query: an
 * upper bound, which only ever sends a block on to the exact test.
 */
function linksHeld(root: Dom): Map<Dom, number> {
  const held = new Map<Dom, number>();
  for (const link of root.getElementsByTagName("a") as Dom[]) {
    for (let at = link.parentNode; at != null && at !== root; at = at.parentNode)
      held.set(at, (held.get(at) ?? 0) + 1);
  }
  return held;
}

/** A block that is nearly all links (a teaser or related list), not a paragraph with links. */
function isLinkList(element: Dom): boolean {
  const tag = element.localName;
  if (tag !== "ul" && tag !== "ol" && tag !== "div" && tag !== "section") return false;
  // The links are counted first: most blocks hold too few to be a list, and their text (all of
  // the page, for the outer ones) is then never gathered.
  if (linksUnder(element, LINK_LIST_MIN) < LINK_LIST_MIN) return false;
  const text = textLength(element);
  if (text === 0 || text > 2000) return false;
  let linked = 0;
  for (let link = nextUnder(element, element); link !== null; link = nextUnder(element, link))
    if (link.localName === "a") linked += textLength(link);
  return linked / text > 0.8;
}

/** The `<a>` elements under `element`, counted up to `enough` (a walk, not a list of them). */
function linksUnder(element: Dom, enough: number): number {
  let count = 0;
  for (
    let node = nextUnder(element, element);
    node !== null && count < enough;
    node = nextUnder(element, node)
  )
    if (node.localName === "a") count += 1;
  return count;
}

/** Blocks that are furniture by what they say, in the languages of the web's news and blogs. */
const PATTERNS: Record<string, RegExp> = {
  credit:
    /^((foto|fotos|bild|bilder|photo|photos|image|imagen|credit|credits|crédits? photos?|titelbild|bildquelle|quelle|source|źródło|fuente|fonte|grafik|illustration)\s*:|(photograph|photo|image|foto|bild)\s+(by|von)\s)/iu,
  advert: /^[-–*]?\s*(anzeige|werbung|advertisement|reklama|publicidad|publicité)\s*([-–:.,]|$)/iu,
  posted:
    /^(this entry was posted|posted in|filed under|kategorie|category|veröffentlicht in|der beitrag wurde am|erstellt am|aktualisiert( am)?|publikacja)\b/iu,
  feedback:
    /^(war (der|dieser) (artikel|beitrag) (nützlich|hilfreich)|möchten sie (den|diesen) artikel teilen|(hat|gefällt) (dir|ihnen) (der|dieser|unser) \p{L}+( gefallen)?|artikel (bewerten|gefallen)|if you (enjoyed|liked) (reading )?this|did you (enjoy|like) this|was this (article|page|post) helpful|valora (esta|este) (noticia|artículo)|rate this (article|post))/iu,
  widget:
    /^(aufrufe|views|kommentare insgesamt|beitragsbild|bild anzeigen|zum vergrößern|click to enlarge|lade weitere|mehr laden|load more|show more|zum shop|jetzt kaufen|affiliate ?links?|shop now|externer inhalt|external content|quellen (anzeigen|ausblenden)|inhaltsverzeichnis|table of contents|zurück( zu[mr]? .*)?|back to .*)\s*:?\s*\d*$|(wir respektieren (deine|ihre) privatsphäre|we respect your privacy|(diese|unsere) (website|webseite|seite) (verwendet|nutzt) cookies|this (web)?site uses cookies|lesezeit|reading time|min read|przeczytasz)/iu,
  login:
    /(sie müssen (sich )?(angemeldet|eingeloggt) sein|sie sind (aktuell )?nicht eingeloggt|you must be logged in|log in to (comment|reply))/iu,
  copy: /(©|\(c\) \d{4}|copyright|all rights reserved|alle rechte vorbehalten|todos los derechos reservados)/iu,
  share:
    /^(teilen|share|share this|artikel teilen|diesen artikel teilen|jetzt teilen|compartir|partager|udostępnij|drucken|rezept drucken|drukuj|imprimir|print|pinnen|pin it|e-mail|whatsapp|facebook|twitter|tweet|pinterest|linkedin)\b/iu,
  follow:
    /^(follow|folge|folgt|folgen sie|síguenos|suivez)\s.{0,60}\b(on|auf|en|sur)\s+(twitter|facebook|instagram|telegram|whatsapp|youtube|linkedin|tiktok)|canal de (telegram|whatsapp|youtube)|\bapps? for (ios|android)/iu,
  moderation:
    /(comments? (are|is|will be) (moderated|closed)|kommentare (geschlossen|werden moderiert)|kommentarfunktion (ist )?(geschlossen|deaktiviert)|akismet)/iu,
  subscribe:
    /(abonnieren|abonniere|subscribe|suscríbete|suscribete|zapraszamy do subskrypcji|jetzt registrieren|melden sie sich an|verpasse keine|nichts (mehr )?verpassen|never miss)/iu,
  // A newsletter named with a call to sign up for it; a sentence about newsletters is text.
  newsletter:
    /(\bsign(ing)?[- ]?up\b|\bjoin\b|\bget\b|\breceive\b|\bregister\b|\benter\b|e-?mail|inbox|\bfree\b|\bweekly\b|\bdaily\b|anmeld|bestell|inscri|suscr|iscriv).*newsletter|newsletter.*(\bsign(ing)?[- ]?up\b|\bregister\b|e-?mail|inbox|\bfree\b|\bweekly\b|\bdaily\b|anmeld|bestell|inscri|suscr|iscriv)|^newsletter\b/iu,
  related:
    /^(ähnliche (beiträge|artikel)|auch interessant|das könnte (sie|dich) auch interessieren|lesen sie auch|lies auch|mehr zum thema|mehr zu[m]?|weitere (artikel|beiträge|themen|news|nachrichten)|empfohlene (beiträge|artikel)|related( posts| articles| stories| content)?|read more|read also|you may also like|more from|more stories|recommended|le puede interesar|te puede interesar|lee también|leia também|czytaj (też|także|również)|zobacz (też|także|również)|à lire aussi|lire aussi|neueste (artikel|beiträge)|beliebte (artikel|beiträge)|meistgelesen|top artikel|schon gelesen|zum weiterlesen|weiterlesen|mehr themen|noch mehr (infos|artikel|themen|tipps)|entdecke (weitere|mehr)|das thema könnte (dich|sie) auch interessieren|themen im artikel|weiterführende[rn]? links?|puedes ver|mira también|también te puede interesar|te recomendamos|artículos relacionados|notas relacionadas|über den autor|über die autorin|zur person|kommentare|keine kommentare|kommentieren|comments|leave a (reply|comment)|schreibe einen kommentar|hinterlasse einen kommentar|antworten)\b/iu,
  date: /^((\d{1,2}\.\s?\d{1,2}\.\s?\d{2,4}|\d{4}-\d{2}-\d{2}|\d{1,2}\.?\s+\p{L}+\.?\s+\d{4})(,?\s*(um\s*)?\d{1,2}:\d{2}(\s*(uhr|am|pm))?)?|\d{1,2}:\d{2}(\s*(uhr|am|pm))?)$/iu,
  byline:
    /^(von|by|por|par|autor|author|autorin|text|written by)\s*:?\s+\p{Lu}[\p{L}.'-]+(\s+\p{Lu}[\p{L}.'-]+){0,3}$|^(von|by|autor|autorin)\s*:$/u,
};

const LEAF_BLOCKS = new Set([
  "p",
  "div",
  "li",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "span",
  "figcaption",
  "section",
  "dt",
  "dd",
  "time",
  "small",
  "strong",
  "b",
  "em",
  "a",
]);

/**
 * A link to another article set in the text: a label and a link ("Lea también: <a>…</a>",
 * "READ MORE: <a>…</a>") or a paragraph that is nothing but a link. The link reads as a headline
 * (three words or more, not a bare URL): "Download: mp3" stays.
 */
function isInlineTeaser(element: Dom, text: string): boolean {
  if (linksUnder(element, 2) !== 1) return false;
  let link = nextUnder(element, element);
  while (link.localName !== "a") link = nextUnder(element, link);
  const linked = (link.textContent ?? "").replace(/\s+/g, " ").trim();
  if (linked.split(" ").length < 3 || /^(https?:\/\/|www\.)/i.test(linked)) return false;
  if (element.localName === "p" && text.length < 150 && linked.length >= 0.95 * text.length) return true;
  const label = /^([^.!?:]{2,30}):\s*(.+)$/u.exec(text);
  return label !== null && linked.length >= 0.8 * (label[2] ?? "").length;
}

/** "Except as otherwise noted, the content of this page is licensed under …": the site's, not the page's. */
const LICENCE_NOTICE =
  /^(except as otherwise noted,\s*)?(the\s+)?(content|text)\s+(of|on)\s+this\s+(page|site|wiki)\s+is\s+(licensed|available)\s+under\b/i;

export function dropBoilerplateText(root: Dom): void {
  const active = Object.entries(PATTERNS);
  const doomed: Dom[] = [];
  // A block's text, gathered once (thousands of paragraphs in one block would each gather the
  // block's), and kept only when short enough to matter here: null for longer ones.
  const texts = new Map<Dom, string | null>();
  const shortText = (element: Dom): string | null => {
    const known = texts.get(element);
    if (known !== undefined) return known;
    // Counted first: a long block's text is never built.
    const kept = textLength(element) > 300 ? null : (element.textContent ?? "").replace(/\s+/g, " ").trim();
    texts.set(element, kept);
    return kept;
  };
  const elements = Array.from(root.querySelectorAll("*")) as Dom[];
  // From the last element back, every element comes before the elements that hold it: a block
  // holding one whose text is too long to matter is too long itself, known without its text.
  for (let at = elements.length - 1; at >= 0; at--) {
    const element = elements[at];
    if (texts.get(element) === null || (LEAF_BLOCKS.has(element.localName) && shortText(element) === null))
      texts.set(element.parentNode, null);
  }
  for (const element of elements) {
    if (!LEAF_BLOCKS.has(element.localName)) continue;
    const text = shortText(element);
    if (text === null || text === "") continue;
    // Only the outermost block that holds just this text (a figure keeps its image).
    const parent = element.parentNode;
    if (parent && parent !== root && LEAF_BLOCKS.has(parent.localName) && shortText(parent) === text)
      continue;
    if (isInlineTeaser(element, text)) {
      doomed.push(element);
      continue;
    }
    // A site's licence notice under each page runs longer than the other lines, and says so first.
    if (LICENCE_NOTICE.test(text)) {
      doomed.push(element);
      continue;
    }
    if (text.length > 160) continue;
    for (const [name, pattern] of active) {
      if (!pattern.test(text)) continue;
      doomed.push(element);
      if (name === "related" && /^h[1-6]$/.test(element.localName)) {
        // The list that follows a "related" heading goes with it.
        let next = element.nextElementSibling;
        while (
          next !== null &&
          !/^h[1-6]$/.test(next.localName) &&
          (isLinkList(next) || textLength(next) < 200)
        ) {
          doomed.push(next);
          next = next.nextElementSibling;
        }
      }
      break;
    }
  }
  for (const element of doomed) element.remove();
}
