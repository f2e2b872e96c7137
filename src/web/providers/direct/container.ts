/**
 * The element a page marks as its main text by convention: `itemprop="articleBody"`, the class
 * or id names that CMSs and themes give the article body (`entry-content`, `post-body`,
 * `article__body`, `story-text`...), else the page's one `<article>`.
 *
 * Readability scores blocks by their paragraphs, and on some pages another block wins: a
 * cookie notice or comment form beside a short post, a list of signatories under a letter, a
 * recipe's steps without its ingredients. The container is a second opinion on such pages.
 */
import { nextUnder, textLength } from "./document.js";

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

/**
 * A class or id word that names an article body: a subject (entry, post, article...) and a
 * part (content, body, text), joined or not; `articleBody`; `rich-text` style editor output.
 */
const BODY_NAME =
  /^(?:(?:entry|post|article|story|blog|news)[-_]{0,2}(?:content|body|text|entry|inner)|article[-_]?(?:copy|main)|body[-_]?(?:text|copy)|text[-_]?(?:content|body)|rich[-_]?text|wysiwyg(?:[-_]content)?)$/i;

/** The conventional main-text container, or undefined when the page has none or several. */
export function findContainer(body: Dom): Dom | undefined {
  let named: Dom | undefined;
  let namedText = 0;
  const articles: Dom[] = [];
  for (let element = nextUnder(body, body); element !== null; element = nextUnder(body, element)) {
    if (element.localName === "article") articles.push(element);
    if (!isNamedBody(element)) continue;
    // Nested matches (`post-content` around `article-body`): the outer one holds both.
    if (named?.contains(element)) continue;
    const text = textLength(element);
    // Several separate ones (a list of posts): the one holding most text, if it dominates.
    if (named === undefined || text > namedText) {
      if (named !== undefined && namedText * 2 > text) return undefined;
      named = element;
      namedText = text;
    } else if (text * 2 > namedText) {
      return undefined;
    }
  }
  if (named !== undefined && namedText > 0) return named;
  const outer = articles.filter(
    (article) => !articles.some((other) => other !== article && other.contains(article)),
  );
  if (outer.length === 1) return outer[0];
  return undefined;
}

function isNamedBody(element: Dom): boolean {
  if ((element.getAttribute("itemprop") ?? "").toLowerCase() === "articlebody") return true;
  return namesBody(element.getAttribute("class")) || namesBody(element.getAttribute("id"));
}

/** Whether a word of a class or id value names an article body; a one-word value is not split. */
function namesBody(value: string | null): boolean {
  if (value === null || value === "") return false;
  if (!/\s/.test(value)) return BODY_NAME.test(value);
  for (const name of value.split(/\s+/)) if (BODY_NAME.test(name)) return true;
  return false;
}
