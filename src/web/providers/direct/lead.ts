/**
 * An article's lead (standfirst): the paragraph under the headline that sums the story up,
 * which news sites put in the article's header (`article-intro`, `entry-excerpt`, `ts-intro`,
 * `subtitle`). Readability takes the body below the header and leaves it out; readers read it
 * first, so it is put back at the top when the extracted text lacks it.
 */
import { nextUnder, textLength } from "./document.js";

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

/** Class or id words that name a lead. */
const LEAD_WORDS = new Set([
  "intro",
  "lead",
  "lede",
  "standfirst",
  "subtitle",
  "subheadline",
  "excerpt",
  "summary",
  "abstract",
  "dek",
]);

const BLOCKS = new Set(["p", "div", "h2", "span", "section"]);

/**
 * The page's lead, copied before Readability moves nodes: the first block named as one that sits
 * above the article's first long paragraph, holds a sentence or more, and is not a link teaser.
 */
export function findLead(body: Dom): Dom | undefined {
  for (let element = nextUnder(body, body); element !== null; element = nextUnder(body, element)) {
    const named = BLOCKS.has(element.localName) && isNamedLead(element);
    // Text is read only where it decides something: it is slow to gather on large wrappers.
    if (!named && element.localName !== "p") continue;
    // Past the first long paragraph, a block named "summary" is something else. A paragraph not
    // named a lead is only counted, its text not built.
    if (!named) {
      if (textLength(element) >= 200) return undefined;
      continue;
    }
    const text = textOf(element);
    if (isLead(element, text)) return element.cloneNode(true);
    if (element.localName === "p" && text.length >= 200) return undefined;
  }
  return undefined;
}

/** Puts the lead at the top of the extracted content when the content does not hold it. */
export function addLead(root: Dom, lead: Dom | undefined): void {
  if (lead === undefined) return;
  const text = textOf(lead);
  if (textOf(root).includes(text.slice(0, 80))) return;
  const paragraph = root.ownerDocument.createElement("p");
  for (const child of Array.from(lead.childNodes) as Dom[]) paragraph.appendChild(child);
  root.insertBefore(paragraph, root.firstChild);
}

function isNamedLead(element: Dom): boolean {
  const names = `${element.getAttribute("class") ?? ""} ${element.getAttribute("id") ?? ""}`.toLowerCase();
  return names.split(/[\s_-]+/).some((word: string) => LEAD_WORDS.has(word));
}

function isLead(element: Dom, text: string): boolean {
  if (text.length < 60 || text.length > 600) return false;
  // A block of text, not a wrapper of blocks or a teaser link.
  if (element.querySelector("p, div, li, h1, h2, h3, img") !== null) return false;
  let linked = 0;
  for (const link of Array.from(element.querySelectorAll("a")) as Dom[]) linked += textOf(link).length;
  return linked < text.length * 0.3;
}

function textOf(element: Dom): string {
  return (element.textContent ?? "").replace(/\s+/g, " ").trim();
}
