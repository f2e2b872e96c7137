/**
 * Skip links: the first links of many pages ("Skip to main content", "Zum Inhalt springen") jump
 * to an anchor of the same page for keyboard and screen-reader users. A browser shows them only
 * on focus; they say nothing of the page, and every reading kept them as its first line.
 */

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

/** Longer than any skip link's text: a long same-page link is a table of contents' entry. */
const MAX_SKIP_CHARS = 60;

/** "skip to/navigation", "jump to content" and their usual translations, at the text's start. */
const SKIP_TEXT =
  /^(?:skip(?:\s+to|\s+(?:main\s+)?navigation|\s+nav)\b|jump\s+to\s+(?:the\s+)?(?:main\s+)?(?:content|navigation)\b|zum\s+(?:haupt)?inhalt\b|direkt\s+zum\s+inhalt\b|(?:aller|passer)\s+au\s+contenu\b|(?:ir|saltar)\s+al\s+contenido\b|(?:vai|salta)\s+al\s+contenuto\b|(?:pular|ir)\s+para\s+o\s+conte[uú]do\b|przejd[zź]\s+do\s+(?:tre[sś]ci|zawarto[sś]ci)\b|naar\s+(?:de\s+)?(?:hoofd)?inhoud\b)/iu;

/** Removes links to an anchor of the same page whose text is a skip link's, before anything reads the page. */
export function dropSkipLinks(document: Dom): void {
  const links = Array.from(document.getElementsByTagName("a")) as Dom[];
  for (const link of links) {
    if (!(link.getAttribute("href") ?? "").startsWith("#")) continue;
    const text = (link.textContent ?? "").replace(/\s+/g, " ").trim();
    if (text.length <= MAX_SKIP_CHARS && SKIP_TEXT.test(text)) link.remove();
  }
}
