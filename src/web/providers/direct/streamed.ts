/**
 * Parts of a page that a server streamed after its shell. React's streaming renderer sends the
 * shell first, with an empty `<template id="B:1">` (or `P:1`) where a part will go, then the
 * part itself at the end of the body in a hidden `<div hidden id="S:1">`, and a script that
 * moves it into place. A reader runs no script: it found the part hidden, away from its place,
 * and dropped it, keeping the shell's "Loading…" fallbacks instead of the article.
 */

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

const COMMENT_NODE = 8;

/**
 * The most nodes a fallback is looked for in: a skeleton is a few blocks, and a page of many
 * boundaries with no closing comment would otherwise have each walk every sibling after it.
 */
const MAX_FALLBACK_NODES = 256;

/** React's hidden segment as it streams it, attribute order included: a cheap test of the page. */
const SEGMENT_OPEN = /<div hidden id="S:[0-9a-z]+"/;

/** Whether the page streams parts after its shell (see `placeStreamed`). */
export function streamsParts(html: string): boolean {
  return SEGMENT_OPEN.test(html);
}

/**
 * Moves each hidden streamed part (`div[hidden]#S:x`) to its place, as the page's script would:
 * in place of its boundary (`template#B:x`, whose fallback goes up to the boundary's closing
 * `<!--/$-->` comment) or of its placeholder (`template#P:x`). A part with no place, or holding
 * its own, stays hidden.
 */
export function placeStreamed(document: Dom): void {
  const body = document.body;
  if (!body) return;
  const places = new Map<string, Dom>();
  const parts: Dom[] = [];
  for (const element of Array.from(body.querySelectorAll("template[id], div[hidden][id]")) as Dom[]) {
    const id: string = element.getAttribute("id");
    if (element.localName === "template" && /^[BP]:/.test(id)) places.set(id, element);
    else if (element.localName === "div" && id.startsWith("S:")) parts.push(element);
  }
  for (const part of parts) {
    const suffix = part.getAttribute("id").slice(2);
    const boundary = places.get(`B:${suffix}`);
    const place = boundary ?? places.get(`P:${suffix}`);
    // A part holding its own place (hostile markup) would be moved into itself.
    if (place === undefined || part.contains(place)) continue;
    if (boundary !== undefined) dropFallback(boundary);
    const parent = place.parentNode;
    while (part.firstChild) parent.insertBefore(part.firstChild, place);
    place.remove();
    part.remove();
  }
}

/**
 * Removes what a boundary shows while its part streams: the nodes after its template up to the
 * `<!--/$-->` comment that closes it (nested boundaries counted). A page sent without those
 * comments, or with none near, gives no bound, and its fallback stays.
 */
function dropFallback(template: Dom): void {
  let depth = 0;
  const doomed: Dom[] = [];
  let walked = 0;
  for (
    let node = template.nextSibling;
    node != null && walked < MAX_FALLBACK_NODES;
    node = node.nextSibling
  ) {
    walked++;
    if (node.nodeType === COMMENT_NODE) {
      const data = node.data ?? node.textContent;
      if (data === "/$") {
        if (depth === 0) {
          for (const done of doomed) done.remove();
          return;
        }
        depth--;
      } else if (data === "$" || data === "$?" || data === "$!") depth++;
    }
    doomed.push(node);
  }
}
