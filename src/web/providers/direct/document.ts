/**
 * HTML text to a DOM (linkedom) that has the shape browsers give it: `<html>` with a head and a
 * body.
 *
 * linkedom builds the tree as the tags come, without the HTML parsing rules that put stray
 * content in its place. A page that starts with something else than `<html>` (a PHP warning,
 * a `<style>` or `<meta>` before the root, a `<head>` without `<html>`) or that has no `<body>`
 * tag would get an empty body, and its text would be lost. Such pages are rewritten into that
 * shape before parsing: what comes before the body goes into the head (browsers show stray
 * warnings there, readers of the page do not want them), the rest into the body.
 */

/**
 * A comment, and an element with its content up to its end tag: each matches one way only (a
 * comment never spans `-->`, a content never spans its end tag). Matched lazily with `[\s\S]*?`,
 * a run of them could be split in exponentially many ways, and a page of forty comments not
 * followed by `<html` held the thread for hours while the pattern tried them all.
 */
const COMMENT = "<!--(?:[^-]|-(?!->))*-->";
const ELEMENT = "<(title|style|script)[\\s>](?:(?!<\\/\\1\\s*>)[\\s\\S])*<\\/\\1\\s*>";
/** A BOM, doctype, comments or XML declaration, then `<html`: the shape linkedom reads right. */
const PROLOG_SOURCE = `^\\uFEFF?\\s*(?:${COMMENT}\\s*|<!doctype[^>]*>\\s*|<\\?xml[^>]*>\\s*)*`;
const WELL_STARTED = new RegExp(`${PROLOG_SOURCE}<html[\\s>]`, "i");
const PROLOG = new RegExp(PROLOG_SOURCE, "i");
const HTML_OPEN = /<html(?:\s[^>]*)?>/i;
const BODY_OPEN = /<body[\s>]/i;
const HEAD_CLOSE = /<\/head\s*>/i;
const HEAD_TAGS = /<\/?head(?:\s[^>]*)?>/gi;
/** Elements that belong in a head, leading a page that has neither a body tag nor a head end. */
const LEADING_HEAD = new RegExp(`^(?:\\s*(?:${ELEMENT}|<(?:meta|link|base)[\\s>][^>]*>|${COMMENT}))*`, "i");

/** The page as is when linkedom reads it right, else rewritten as `<html><head>…</head><body>…`. */
export function wellFormed(html: string): string {
  const body = BODY_OPEN.exec(html);
  if (WELL_STARTED.test(html) && body !== null) return html;
  let rest = html.slice(PROLOG.exec(html)?.[0].length ?? 0);
  const root = HTML_OPEN.exec(rest);
  if (root !== null) rest = rest.slice(0, root.index) + rest.slice(root.index + root[0].length);
  let head = "";
  const bodyAt = BODY_OPEN.exec(rest);
  if (bodyAt !== null) {
    head = rest.slice(0, bodyAt.index);
    rest = rest.slice(bodyAt.index);
  } else {
    const headEnd = HEAD_CLOSE.exec(rest);
    const headLength = headEnd === null ? (LEADING_HEAD.exec(rest)?.[0].length ?? 0) : headEnd.index;
    head = rest.slice(0, headLength);
    rest = rest.slice(headEnd === null ? headLength : headEnd.index + headEnd[0].length);
    rest = `<body>${rest}</body>`;
  }
  return `<!DOCTYPE html>${root?.[0] ?? "<html>"}<head>${head.replace(HEAD_TAGS, "")}</head>${rest}`;
}

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

/** Elements a browser puts in the head when they come between `</head>` and `<body>`. */
const HEAD_ELEMENTS = new Set(["script", "style", "link", "meta", "noscript", "template", "title", "base"]);

/**
 * Moves what stands before the body, outside the head, into one of them, as browsers do: head
 * elements (a script, most often) into the head, anything else to the start of the body.
 * linkedom keeps them where they are, and its `document.body` then finds no body right after
 * the head (a head it makes first when the page has none), makes a new empty one there and
 * answers with it: the page's real body is never read.
 */
export function settleBody(document: Dom): void {
  const root = document.documentElement;
  const body = root?.querySelector(":scope > body");
  if (!body) return;
  let head = root.querySelector(":scope > head");
  if (!head) {
    head = document.createElement("head");
    root.insertBefore(head, root.firstChild);
  }
  const stray: Dom[] = [];
  for (
    let element = root.firstElementChild;
    element && element !== body;
    element = element.nextElementSibling
  )
    if (element !== head) stray.push(element);
  const first = body.firstChild;
  for (const element of stray) {
    if (HEAD_ELEMENTS.has(element.localName)) head.appendChild(element);
    else body.insertBefore(element, first);
  }
}

/** An `<html>` or `<body>` start tag; a page holds one of each unless a document is pasted in it. */
const ROOT_OPEN = /<(?:html|body)[\s>]/gi;

/**
 * Whether the page holds more than one `<html>` or `<body>` start tag: a whole document pasted
 * into its content, as a converter's output (`<!DOCTYPE …><html><body><p>…`) often is in a post.
 */
export function nestsDocument(html: string): boolean {
  ROOT_OPEN.lastIndex = 0;
  let count = 0;
  while (ROOT_OPEN.exec(html) !== null) if (++count > 2) return true;
  return false;
}

/**
 * Replaces each `<html>`, `<head>` and `<body>` inside the body by its children, as a browser
 * ignores those tags there. linkedom keeps them as elements, and extraction then scores the
 * pasted document's paragraphs apart from the post around them.
 */
export function unwrapNestedDocuments(document: Dom): void {
  const body = document.body;
  if (!body) return;
  for (const element of Array.from(body.querySelectorAll("html, head, body")) as Dom[]) {
    const parent = element.parentNode;
    while (element.firstChild) parent.insertBefore(element.firstChild, element);
    element.remove();
  }
}

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const CDATA_SECTION_NODE = 4;
const FRAGMENT_NODE = 11;

/**
 * An element's text length, its runs of white space counted as one and none counted at either
 * end: the length of `textContent` with `\s+` made one space and trimmed. Counted on the text
 * nodes where they are, not on a string built for it: the reader asks this of most blocks of a
 * page, many of them several times, and the strings (the text gathered, then collapsed) were the
 * largest share of what it allocated after the DOM itself.
 */
export function textLength(element: Dom): number {
  const type = element.nodeType;
  if (type !== ELEMENT_NODE && type !== FRAGMENT_NODE)
    return (element.textContent ?? "").replace(/\s+/g, " ").trim().length;
  const count = { length: 0, pending: false };
  // Document order without recursion: down to the first child, else on to the next sibling,
  // else up until an ancestor below `element` has one.
  let node: Dom = element.firstChild;
  while (node != null) {
    const nodeType = node.nodeType;
    if (nodeType === TEXT_NODE || nodeType === CDATA_SECTION_NODE) countText(node.data, count);
    else if (nodeType === ELEMENT_NODE) {
      const child = node.firstChild;
      if (child != null) {
        node = child;
        continue;
      }
    }
    while (node !== element && node.nextSibling == null) node = node.parentNode;
    node = node === element ? null : node.nextSibling;
  }
  return count.length;
}

/** Adds `text` to a count of collapsed text: a run of white space after text counts once text follows. */
function countText(text: string, count: { length: number; pending: boolean }): void {
  let { length, pending } = count;
  for (let at = 0; at < text.length; at++) {
    if (isSpace(text.charCodeAt(at))) {
      if (length > 0) pending = true;
    } else {
      if (pending) length += 1;
      pending = false;
      length += 1;
    }
  }
  count.length = length;
  count.pending = pending;
}

/** The characters `\s` matches (and `trim` removes): ASCII and Unicode white space, line ends, the BOM. */
function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * `element` or its nearest ancestor whose tag is one of `tags` or whose `role` is `role`: what
 * `closest("nav, footer, [role='navigation']")` finds, without the selector compiled again at
 * each call (linkedom compiles a selector at every query, and the reader asks this of elements
 * one by one).
 */
export function closestOf(element: Dom, tags: ReadonlySet<string>, role?: string): Dom | null {
  for (let at = element; at != null; at = at.parentElement) {
    if (tags.has(at.localName) || (role !== undefined && at.getAttribute("role") === role)) return at;
  }
  return null;
}

/**
 * The first element under `root` (not `root` itself), in document order, that `test` accepts; a
 * `<template>`'s content left out, as linkedom's `querySelector` leaves it out: the query by a
 * predicate, without a selector compiled for it.
 */
export function firstUnder(root: Dom, test: (element: Dom) => boolean): Dom | null {
  for (let element = nextUnder(root, root); element !== null; element = nextUnder(root, element))
    if (test(element)) return element;
  return null;
}

/**
 * The element after `element` under `root` in document order (the first under it when `element`
 * is `root`), or null past the last; a `<template>`'s content left out. A loop over it sees the
 * elements `root.querySelectorAll("*")` lists, without the two lists of every element (linkedom's
 * and the copy) a loop over the query costs; the tree must not change during the loop.
 */
export function nextUnder(root: Dom, element: Dom): Dom | null {
  const child = element !== root && element.localName === "template" ? null : element.firstElementChild;
  return child ?? nextPast(root, element);
}

/** The element after `element`'s whole subtree under `root` in document order, or null past the last. */
export function nextPast(root: Dom, element: Dom): Dom | null {
  let at = element;
  while (at !== root && at.nextElementSibling == null) at = at.parentElement;
  return at === root ? null : at.nextElementSibling;
}

/**
 * The most text a control holds: its caption and a few choices. A card made clickable as a whole,
 * or a block wrapping a panel, says more.
 */
export const MAX_CONTROL_CHARS = 40;

/** Words of a class or id, split at `-`, `_`, `__` and camelCase humps. */
export function nameWords(names: string): string[] {
  return names
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .split(/[\s_-]+/)
    .filter((word) => word !== "");
}

/** `a[href]`, as a predicate for `firstUnder`. */
export function isLink(element: Dom): boolean {
  return element.localName === "a" && element.hasAttribute("href");
}
