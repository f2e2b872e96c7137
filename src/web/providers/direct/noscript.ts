/**
 * The page a server renders for readers without scripts, when that is the only page there is.
 *
 * Applications that draw their pages with scripts (Discourse forums, many single-page apps)
 * send an empty shell and put the server-rendered page (a whole thread with its posts) inside
 * `<noscript>`. A browser with scripts never shows it, so readers drop `<noscript>` content, and
 * the page reads as empty. When the text inside the page's `<noscript>` elements outweighs all
 * the text outside them, that content is what the page has to say: it is put in their place.
 * On other pages `<noscript>` holds a tracking pixel, an image fallback or a "please enable
 * JavaScript" notice, and stays out.
 */

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

/** Elements whose content is never shown as text. */
const HIDDEN = new Set(["script", "style", "template"]);

/** Unwraps the page's `<noscript>` elements when they hold more text than the rest of the body. */
export function revealNoscript(body: Dom): void {
  const noscripts = (Array.from(body.querySelectorAll("noscript")) as Dom[]).filter(
    (element) => element.parentElement?.closest("noscript") == null,
  );
  if (noscripts.length === 0) return;
  let inside = 0;
  for (const element of noscripts) inside += visibleText(element, false, Number.POSITIVE_INFINITY);
  // A pixel, an image or a notice: most pages' `<noscript>` holds no more than a sentence.
  if (inside < MIN_CHARS || visibleText(body, true, inside) >= inside) return;
  for (const element of noscripts) {
    // One child at a time: a spread would pass each as an argument, more than a call takes.
    const parent = element.parentNode;
    while (element.firstChild) parent.insertBefore(element.firstChild, element);
    element.remove();
  }
}

/** Less text than this in `<noscript>` is never the page's content. */
const MIN_CHARS = 200;

/** Characters of text a reader sees under `root`, without whitespace, counted up to `limit`. */
function visibleText(root: Dom, skipNoscript: boolean, limit: number): number {
  let total = 0;
  const stack: Dom[] = [root];
  for (let node = stack.pop(); node !== undefined && total < limit; node = stack.pop()) {
    if (node.nodeType === 3) {
      total += (node.nodeValue ?? "").replace(/\s+/g, "").length;
      continue;
    }
    if (node.nodeType !== 1 || HIDDEN.has(node.localName)) continue;
    if (skipNoscript && node.localName === "noscript") continue;
    for (const child of Array.from(node.childNodes as ArrayLike<Dom>)) stack.push(child);
  }
  return total;
}
