/**
 * A page served as a shell: its content is drawn by scripts, and the HTML as sent holds only the
 * site's chrome (a header, a footer's link columns, a language list, a newsletter sign-up, a
 * cookie notice). Any reading of such a page returns that chrome as if it were the page; the
 * honest answer is that the page holds no text direct can read.
 *
 * The document is walked with the chrome left out (landmarks and their roles, the site's header,
 * blocks named for a footer, a sign-up, a consent notice or a pop-up, controls, scripts) and its
 * text counted: a page with almost none left, and much more in its chrome, is a shell. Chrome
 * that holds the page's title or main region wraps the page (a `<header>` its markup never
 * closed) and is walked into.
 */
import { firstUnder, nameWords, textLength } from "./document.js";

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

/** Tags of the site's chrome, and of what is never shown as text. */
const CHROME_TAGS = new Set([
  "nav",
  "footer",
  "aside",
  "dialog",
  "script",
  "style",
  "template",
  "head",
  "svg",
  "button",
  "select",
  "option",
]);
const CHROME_ROLES = new Set([
  "navigation",
  "banner",
  "contentinfo",
  "complementary",
  "search",
  "dialog",
  "alertdialog",
]);
/** Class and id words of a footer, a sign-up, a consent notice or a pop-up laid over the page. */
const CHROME_WORDS = new Set([
  "footer",
  "newsletter",
  "cookie",
  "cookies",
  "consent",
  "gdpr",
  "onetrust",
  "modal",
  "popup",
  "drawer",
  "skip",
]);
/** Class words of a block heading the site (or, inside a part of the page, that part). */
const HEADER_WORDS = new Set(["header", "topbar"]);
/** What holds a page's title or its main region: chrome around it wraps the page. */
const PAGE_TAGS = new Set(["main", "article", "h1"]);
/** Where a `<header>` heads a part of the page rather than the site (its ARIA role is then not banner). */
const SECTIONING = new Set(["main", "article", "section", "aside", "nav"]);
/** The document's own elements: never chrome, whatever their class says. */
const ROOTS = new Set(["html", "body"]);

/**
 * Less text than this outside the chrome, white space left out (some fifteen words, not a
 * sentence and its heading), and the page may be a shell.
 */
const SHELL_CHARS = 100;
/**
 * A shell's chrome holds at least this many times the page's own text: a short page with a
 * short footer (a confirmation, a notice) is read as it is.
 */
const CHROME_FACTOR = 4;
/** Left-out elements whose text is not shown as the page's chrome. */
const UNSHOWN = new Set(["script", "style", "template", "head", "svg", "noscript"]);

/**
 * Whether the page as sent holds almost no text of its own, and several times more in its
 * chrome: what a reading returns is then the chrome. Ask before extraction moves nodes.
 */
export function servedShell(document: Dom): boolean {
  // Chrome that wraps the page only adds to its own text: a first count that takes every piece
  // of chrome as chrome settles most pages without looking inside menus and footers.
  if (walk(document, { limit: SHELL_CHARS, wraps: false }) >= SHELL_CHARS) return false;
  const own = walk(document, { limit: SHELL_CHARS, wraps: true });
  if (own >= SHELL_CHARS) return false;
  // A page that puts text in the main region it marks says where its content is, however short.
  const regions = document.querySelectorAll("main, article, [role='main']") as Iterable<Dom>;
  for (const region of regions) if (walk(region, { limit: 1, wraps: true }) > 0) return false;
  let chrome = 0;
  const add = (element: Dom) => {
    if (!UNSHOWN.has(element.localName)) chrome += textLength(element);
  };
  walk(document, { limit: SHELL_CHARS, wraps: true, chrome: add });
  return chrome >= SHELL_CHARS && chrome >= CHROME_FACTOR * own;
}

interface Walk {
  /** Counting stops past this many characters. */
  readonly limit: number;
  /** Whether chrome holding the page's title or main region is walked into. */
  readonly wraps: boolean;
  /** Told each outermost element left out. */
  readonly chrome?: (element: Dom) => void;
}

/**
 * Characters of text (white space left out) outside the chrome in `root` and under it, counted
 * up to about `limit`. linkedom may leave what follows a stray `</html>` beside the root,
 * without a parent: a document's children are walked one by one.
 */
function walk(root: Dom, how: Walk): number {
  if (root.nodeType === DOCUMENT_NODE) {
    let count = 0;
    for (const top of root.childNodes as Iterable<Dom>)
      if (count < how.limit) count += walk(top, { ...how, limit: how.limit - count });
    return count;
  }
  if (root.nodeType === TEXT_NODE) return visibleChars(root.data);
  if (root.nodeType !== ELEMENT_NODE) return 0;
  if (leftOut(root, how.wraps)) {
    how.chrome?.(root);
    return 0;
  }
  let count = 0;
  let node: Dom = root.firstChild;
  while (node != null && count < how.limit) {
    const type = node.nodeType;
    if (type === TEXT_NODE) count += visibleChars(node.data);
    else if (type === ELEMENT_NODE && node.firstChild != null) {
      if (!leftOut(node, how.wraps)) {
        node = node.firstChild;
        continue;
      }
      how.chrome?.(node);
    }
    while (node !== root && node.nextSibling == null) node = node.parentNode;
    node = node === root ? null : node.nextSibling;
  }
  return count;
}

/** Characters of `text` that are not white space. */
function visibleChars(text: string): number {
  let count = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code > 32 && code !== NBSP) count += 1;
  }
  return count;
}

/** A `<noscript>` with less text than this is a notice or a pixel, as noscript.ts has it. */
const NOSCRIPT_PAGE_CHARS = 200;
const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const DOCUMENT_NODE = 9;
const NBSP = 0xa0;

/** Whether an element is chrome or a `<noscript>` notice (and, when `wraps`, does not wrap the page). */
function leftOut(element: Dom, wraps: boolean): boolean {
  const tag = element.localName;
  if (ROOTS.has(tag)) return false;
  // A `<noscript>` notice asks for scripts; one holding the page is read (noscript.ts).
  if (tag === "noscript") return textLength(element) < NOSCRIPT_PAGE_CHARS;
  const chrome =
    CHROME_TAGS.has(tag) ||
    ((tag === "header" || named(element.getAttribute("class"), HEADER_WORDS)) && siteHeader(element)) ||
    CHROME_ROLES.has(element.getAttribute("role") ?? "") ||
    named(element.getAttribute("class")) ||
    named(element.getAttribute("id"));
  return chrome && !(wraps && wrapsPage(element));
}

/** A `<header>` outside any part of the page: the site's banner. */
function siteHeader(element: Dom): boolean {
  for (let at = element.parentElement; at != null; at = at.parentElement)
    if (SECTIONING.has(at.localName)) return false;
  return true;
}

function named(names: string | null, words: ReadonlySet<string> = CHROME_WORDS): boolean {
  // Most names hold none of the words anywhere: they are not split.
  if (names === null || !mentions(names.toLowerCase(), words)) return false;
  for (const word of nameWords(names)) if (words.has(word.toLowerCase())) return true;
  return false;
}

function mentions(names: string, words: ReadonlySet<string>): boolean {
  for (const word of words) if (names.includes(word)) return true;
  return false;
}

function wrapsPage(element: Dom): boolean {
  return firstUnder(element, pagePart) !== null;
}

function pagePart(element: Dom): boolean {
  return PAGE_TAGS.has(element.localName) || element.getAttribute("role") === "main";
}
