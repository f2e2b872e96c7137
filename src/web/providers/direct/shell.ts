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
import { nameWords, textLength } from "./document.js";

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
  const own = walk(document, SHELL_CHARS);
  if (own >= SHELL_CHARS) return false;
  // A page that puts text in the main region it marks says where its content is, however short.
  const regions = document.querySelectorAll("main, article, [role='main']") as Iterable<Dom>;
  for (const region of regions) if (walk(region, 1) > 0) return false;
  let chrome = 0;
  walk(document, SHELL_CHARS, (element) => {
    if (!UNSHOWN.has(element.localName)) chrome += textLength(element);
  });
  return chrome >= SHELL_CHARS && chrome >= CHROME_FACTOR * own;
}

/**
 * Characters of text (white space left out) outside the chrome in `root` and under it, counted
 * up to about `limit`; `chrome` is told each outermost element left out. linkedom may leave
 * what follows a stray `</html>` beside the root, without a parent: a document's children are
 * walked one by one.
 */
function walk(root: Dom, limit: number, chrome?: (element: Dom) => void): number {
  if (root.nodeType === DOCUMENT_NODE) {
    let count = 0;
    for (const top of root.childNodes as Iterable<Dom>)
      if (count < limit) count += walk(top, limit - count, chrome);
    return count;
  }
  if (root.nodeType === TEXT_NODE) return root.data.replace(/\s+/g, "").length;
  if (root.nodeType !== ELEMENT_NODE) return 0;
  if (leftOut(root)) {
    chrome?.(root);
    return 0;
  }
  let count = 0;
  let node: Dom = root.firstChild;
  while (node != null && count < limit) {
    const type = node.nodeType;
    if (type === TEXT_NODE) count += node.data.replace(/\s+/g, "").length;
    else if (type === ELEMENT_NODE && node.firstChild != null) {
      if (!leftOut(node)) {
        node = node.firstChild;
        continue;
      }
      chrome?.(node);
    }
    while (node !== root && node.nextSibling == null) node = node.parentNode;
    node = node === root ? null : node.nextSibling;
  }
  return count;
}

/** A `<noscript>` with less text than this is a notice or a pixel, as noscript.ts has it. */
const NOSCRIPT_PAGE_CHARS = 200;
const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const DOCUMENT_NODE = 9;

/** Whether an element is chrome or a `<noscript>` notice, and does not wrap the page. */
function leftOut(element: Dom): boolean {
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
  return chrome && !wrapsPage(element);
}

/** A `<header>` outside any part of the page: the site's banner. */
function siteHeader(element: Dom): boolean {
  for (let at = element.parentElement; at != null; at = at.parentElement)
    if (SECTIONING.has(at.localName)) return false;
  return true;
}

function named(names: string | null, words: ReadonlySet<string> = CHROME_WORDS): boolean {
  if (names === null || names === "") return false;
  for (const word of nameWords(names)) if (words.has(word.toLowerCase())) return true;
  return false;
}

function wrapsPage(element: Dom): boolean {
  for (const tag of PAGE_TAGS) if (element.getElementsByTagName(tag).length > 0) return true;
  return element.querySelector("[role='main']") !== null;
}
