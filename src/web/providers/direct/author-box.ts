/**
 * A writer's box inside an article's block: a heading or label "About the author" (or the
 * reviewer), then the writer's bio, photo and links to their other posts. It describes the site's
 * staff, not the article, so it goes with its heading; a heading sets where it ends.
 */
import { textLength } from "./document.js";

// biome-ignore lint/suspicious/noExplicitAny: linkedom's nodes are untyped here, as in extract.ts.
type Dom = any;

const HEADING =
  /^about (the|this|our) (author|authors|writer|writers|reviewer|reviewers|contributor|contributors)\s*:?$/i;
/** A bio set in one paragraph behind the label: "About the author: Jane Doe writes ...". */
const LABELLED = /^about the (author|writer)\s*:\s*\p{Lu}/iu;
/** Longer than a label or a one-paragraph bio: a block of the article's own. */
const MAX_LABEL_CHARS = 400;
/** More text than a bio after the heading: the heading is then the article's own. */
const BIO_MAX = 1500;

const squeeze = (element: Dom) => (element.textContent ?? "").replace(/\s+/g, " ").trim();
const isHeading = (element: Dom) => /^h[1-6]$/.test(element.localName);

export function dropAuthorBoxes(root: Dom): void {
  // One pass over the text first: most articles have no such box, and their blocks go unmeasured.
  if (!/about (the|this|our) (author|writer|reviewer|contributor)/i.test(root.textContent ?? "")) return;
  const doomed: Dom[] = [];
  for (const element of Array.from(root.querySelectorAll("h2, h3, h4, h5, h6, p, div, strong")) as Dom[]) {
    if (doomed.some((gone) => gone.contains(element))) continue;
    if (textLength(element) > MAX_LABEL_CHARS) continue;
    const text = squeeze(element);
    if (LABELLED.test(text)) {
      doomed.push(element);
      continue;
    }
    if (!HEADING.test(text)) continue;
    // The label alone inside a wrapper (`<p><strong>About the author</strong></p>`): its block.
    let label = element;
    while (label.parentNode && label.parentNode !== root && squeeze(label.parentNode) === text)
      label = label.parentNode;
    const bio: Dom[] = [];
    let length = 0;
    for (
      let next = label.nextElementSibling;
      next != null && !isHeading(next);
      next = next.nextElementSibling
    ) {
      length += textLength(next);
      bio.push(next);
    }
    if (length > BIO_MAX) continue;
    doomed.push(label, ...bio);
  }
  for (const element of doomed) element.remove();
}
