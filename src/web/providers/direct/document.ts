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
