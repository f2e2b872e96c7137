/**
 * The main content of a page: Readability's choice, else the page body.
 */
import { Readability } from "@mozilla/readability";

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

export interface MainContent {
  /** The element whose children are the content. */
  readonly root: Dom;
  /** Readability found a main-content block (otherwise `root` is the body). */
  readonly found: boolean;
  readonly title?: string;
  readonly byline?: string;
}

export function extractMain(document: Dom): MainContent {
  const body = document.body ?? document.documentElement;
  let article: { title?: string | null; content?: Dom; byline?: string | null } | null = null;
  try {
    // keepClasses: code blocks name their language in a class; serializer: keep the element.
    article = new Readability(document, {
      keepClasses: false,
      serializer: (element: Dom) => element,
    }).parse();
  } catch {
    article = null;
  }
  const title = article?.title?.trim() || undefined;
  const byline = article?.byline?.replace(/\s+/g, " ").trim() || undefined;
  if (article?.content) {
    return { root: article.content, found: true, ...(title ? { title } : {}), ...(byline ? { byline } : {}) };
  }
  return { root: body, found: false, ...(title ? { title } : {}) };
}
