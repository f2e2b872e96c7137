/**
 * What the reader's first steps ask of a freshly parsed page, gathered in one walk: its `<meta>`
 * tags, title, JSON-LD (parsed once), schema.org item types, the links and images to make
 * absolute, and the body's elements the page type is decided from.
 *
 * Each of those steps (metadata.ts, page-type.ts, html.ts's links) used to query the document on
 * its own, and a query that finds nothing walks the whole tree: some fifteen walks of every page,
 * each matching every element against a selector compiled again for that query, and the same
 * JSON-LD parsed three times. The profile answers the same questions as those queries did (in
 * document order, a `<template>`'s content left out as linkedom's queries leave it out), so the
 * steps decide as before. It describes the page as parsed: taken before extraction moves nodes.
 */

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

export interface PageProfile {
  /** `meta[content]`, in order. */
  readonly metas: readonly Dom[];
  /** The first `<title>`. */
  readonly title: Dom | undefined;
  /** Each `script[type="application/ld+json"]`'s value, parsed (broken ones left out). */
  readonly jsonLd: readonly unknown[];
  /** Each `[itemtype]`'s attribute value, in order. */
  readonly itemTypes: readonly string[];
  /** The first `[rel="author"]`. */
  readonly relAuthor: Dom | undefined;
  /** The first `link[rel~="canonical"]`. */
  readonly canonical: Dom | undefined;
  /** The first `time[itemprop="datePublished"]`. */
  readonly publishedTime: Dom | undefined;
  /** The first `meta[property="og:type"]`. */
  readonly ogType: Dom | undefined;
  /** The first `meta[name="generator"]`. */
  readonly generator: Dom | undefined;
  /** Whether an element states a publication date (page-type.ts's PUBLISHED). */
  readonly statesPublished: boolean;
  /** `a[href]`, and `img`, in order. */
  readonly anchors: readonly Dom[];
  readonly images: readonly Dom[];
  /** Within the body (or the root when there is none): elements by the queries page-type.ts makes. */
  readonly body: BodyProfile;
}

export interface BodyProfile {
  readonly hasPre: boolean;
  /** `nav, aside, [role='navigation']`. */
  readonly hasNavigation: boolean;
  readonly hasTime: boolean;
  readonly sections: readonly Dom[];
  readonly articles: readonly Dom[];
  readonly paragraphs: readonly Dom[];
  /** `ul, ol, div, section, main`: the parents a list of cards may sit in. */
  readonly blocks: readonly Dom[];
}

/** Tags a card list may sit in (page-type.ts's repeatedCards). */
const BLOCKS = new Set(["ul", "ol", "div", "section", "main"]);
/** Attributes whose value a selector matches without regard to case in an HTML page, as css-select does. */
const LD_JSON = "application/ld+json";
const CANONICAL = /(?:^|\s)canonical(?:$|\s)/i;

interface Gathered {
  metas: Dom[];
  title: Dom | undefined;
  scripts: Dom[];
  itemTypes: string[];
  relAuthor: Dom | undefined;
  canonical: Dom | undefined;
  publishedTime: Dom | undefined;
  ogType: Dom | undefined;
  generator: Dom | undefined;
  statesPublished: boolean;
  anchors: Dom[];
  images: Dom[];
  body: {
    hasPre: boolean;
    hasNavigation: boolean;
    hasTime: boolean;
    sections: Dom[];
    articles: Dom[];
    paragraphs: Dom[];
    blocks: Dom[];
  };
}

/** The page's profile: one walk of its elements, in document order. */
export function pageProfile(document: Dom): PageProfile {
  const found: Gathered = {
    metas: [],
    title: undefined,
    scripts: [],
    itemTypes: [],
    relAuthor: undefined,
    canonical: undefined,
    publishedTime: undefined,
    ogType: undefined,
    generator: undefined,
    statesPublished: false,
    anchors: [],
    images: [],
    body: {
      hasPre: false,
      hasNavigation: false,
      hasTime: false,
      sections: [],
      articles: [],
      paragraphs: [],
      blocks: [],
    },
  };
  const body = document.body ?? document.documentElement;
  walk(document, body, found);
  const { scripts, ...rest } = found;
  return { ...rest, jsonLd: parsedJsonLd(scripts) };
}

/**
 * Every element of `document`, in document order, `<template>` content left out (one query, as
 * the queries it replaces saw the page); those under `body` (not the body itself) also go to the
 * body's profile. Nothing is allocated per element: the walk's garbage would cost what it saves.
 */
function walk(document: Dom, body: Dom, found: Gathered): void {
  // The body's descendants follow it in document order, up to the first element after it that it does not hold.
  let after: Dom = null;
  for (let at = body; at != null && after === null; at = at.parentElement) after = at.nextElementSibling;
  let inBody = false;
  for (const element of document.querySelectorAll("*") as Iterable<Dom>) {
    if (element === after) inBody = false;
    visit(element, found);
    if (inBody) visitBody(element, found.body);
    else if (element === body) inBody = true;
  }
}

function visit(element: Dom, found: Gathered): void {
  const tag: string = element.localName;
  if (tag === "meta") {
    if (element.hasAttribute("content")) found.metas.push(element);
    if (found.ogType === undefined && element.getAttribute("property") === "og:type") found.ogType = element;
    if (found.generator === undefined && element.getAttribute("name") === "generator")
      found.generator = element;
    if (
      element.getAttribute("property") === "article:published_time" ||
      element.getAttribute("name") === "date"
    )
      found.statesPublished = true;
  } else if (tag === "title") found.title ??= element;
  else if (tag === "script") {
    if ((element.getAttribute("type") ?? "").toLowerCase() === LD_JSON) found.scripts.push(element);
  } else if (tag === "a") {
    if (element.hasAttribute("href")) found.anchors.push(element);
  } else if (tag === "img") found.images.push(element);
  else if (
    tag === "link" &&
    found.canonical === undefined &&
    CANONICAL.test(element.getAttribute("rel") ?? "")
  )
    found.canonical = element;
  const itemType = element.getAttribute("itemtype");
  if (itemType !== null) found.itemTypes.push(itemType);
  if (found.relAuthor === undefined && (element.getAttribute("rel") ?? "").toLowerCase() === "author")
    found.relAuthor = element;
  if (element.getAttribute("itemprop") === "datePublished") {
    found.statesPublished = true;
    if (tag === "time") found.publishedTime ??= element;
  }
}

function visitBody(element: Dom, body: Gathered["body"]): void {
  const tag: string = element.localName;
  if (BLOCKS.has(tag)) body.blocks.push(element);
  if (tag === "pre") body.hasPre = true;
  else if (tag === "nav" || tag === "aside") body.hasNavigation = true;
  else if (tag === "time") body.hasTime = true;
  else if (tag === "p") body.paragraphs.push(element);
  else if (tag === "article") body.articles.push(element);
  if (tag === "section") body.sections.push(element);
  if (element.getAttribute("role") === "navigation") body.hasNavigation = true;
}

function parsedJsonLd(scripts: readonly Dom[]): unknown[] {
  const values: unknown[] = [];
  for (const script of scripts) {
    try {
      values.push(JSON.parse(script.textContent ?? ""));
    } catch {
      // Broken JSON-LD is common; the page's other metadata still counts.
    }
  }
  return values;
}
