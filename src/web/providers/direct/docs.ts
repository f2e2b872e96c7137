/**
 * The block that holds a page's run of headed sections: documentation generators (Asciidoctor's
 * `sect1`, Sphinx's `<section>`s, man pages rendered to HTML) split a page into sibling blocks,
 * each under its heading. Readability scores blocks by their paragraphs and keeps the one that
 * scores best, often the longest section (a command's options) without the others (its name,
 * synopsis, examples). This block is a second opinion, like the page's named body
 * (container.ts): extract.ts takes it when Readability's choice is a part of it.
 */
import { textLength } from "./document.js";

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

/** Sibling sections that make a run: fewer are an article's parts, which Readability joins. */
const MIN_SECTIONS = 3;

/** The share of its block's text the run must hold: the block is the run, not a page around it. */
const RUN_SHARE = 0.6;

const HEADING = /^h[2-4]$/;

/**
 * The block whose children include the page's longest run of headed sections (three or more
 * siblings of one tag and class, each opening with a heading) holding most of its text, or
 * undefined when the page has none.
 */
export function findSectioned(body: Dom): Dom | undefined {
  let best: Dom | undefined;
  let bestText = 0;
  for (const parent of Array.from(body.querySelectorAll("div, section, main, article")) as Dom[]) {
    const groups = new Map<string, Dom[]>();
    for (const child of Array.from(parent.children ?? []) as Dom[]) {
      if (!headed(child)) continue;
      const key = `${child.localName}.${child.getAttribute("class") ?? ""}`;
      const group = groups.get(key);
      if (group === undefined) groups.set(key, [child]);
      else group.push(child);
    }
    for (const group of groups.values()) {
      if (group.length < MIN_SECTIONS) continue;
      let text = 0;
      for (const section of group) text += textLength(section);
      if (text > bestText && text >= RUN_SHARE * textLength(parent)) {
        best = parent;
        bestText = text;
      }
    }
  }
  return best;
}

/** Whether a block opens with a heading (itself first, or first in its first child). */
function headed(element: Dom): boolean {
  const first = element.firstElementChild;
  if (first == null) return false;
  return HEADING.test(first.localName) || HEADING.test(first.firstElementChild?.localName ?? "");
}

/**
 * Shows a documentation page's hidden tab panels. Docs give one step per system or one example
 * per language, each in a panel that its tab shows; every panel is the page's text, and
 * Readability drops what the markup hides.
 */
export function revealTabPanels(body: Dom): void {
  for (const panel of Array.from(body.querySelectorAll("[role='tabpanel']")) as Dom[]) {
    panel.removeAttribute("hidden");
    if (panel.getAttribute("aria-hidden") === "true") panel.removeAttribute("aria-hidden");
    const style = panel.getAttribute("style");
    if (style !== null && /display\s*:\s*none/i.test(style)) panel.removeAttribute("style");
  }
}
