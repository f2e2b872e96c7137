/**
 * A discussion thread (a forum topic, a Q&A page) read as its posts: every post's text, in
 * order, under its author line (who wrote it, when). The replies are the content of such a page;
 * an article extractor keeps the block with the most prose (often the first post alone) and the
 * clean-up drops the author lines as page furniture.
 *
 * A post is found by its text block, named the way the widely used forum platforms and
 * schema.org microdata name it: `itemprop="text"` in a posting, XenForo's `bbWrapper`, phpBB's
 * `postbody .content`, vBulletin's `postcontent`, Invision's `commentContent`, Flarum's
 * `Post-body`, Vanilla's `Item-Body .userContent`, Reddit's `thing .usertext-body` (its older
 * interface, where a subreddit's sidebar rules carry the same class outside any post), Lemmy's
 * `md-div` in its post and comment nodes. Microdata alone is also what blogs give their comments, so it counts only on a
 * page that says it is a discussion (a DiscussionForumPosting or QAPage). The post around a text
 * block is its largest ancestor that holds no other post's text; the author line comes from it.
 */
import { textLength } from "./document.js";

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

export interface Post {
  /** The post's text block. */
  readonly body: Dom;
  /** The post around it: the largest ancestor that holds no other post's text. */
  readonly unit: Dom;
  /** "author · date", as the page shows them; empty when the post names neither. */
  readonly byline: string;
}

/** Post text blocks by the markup of forum platforms (each is a forum's, never a blog's). */
const PLATFORM_BODIES = [
  ".message-body .bbWrapper",
  ".postbody .content",
  ".postcontent",
  "[id^='post_message_']",
  ".js-post__content-text",
  "[data-role='commentContent']",
  ".Post-body",
  ".Item-Body .userContent",
  ".thing .usertext-body",
  "#postContent .md-div",
  ".comment-node .md-div",
].join(", ");

/** schema.org types that make a page a discussion. */
const DISCUSSION = /(DiscussionForumPosting|QAPage|SocialMediaPosting)\b/;

/** Elements that can hold a post's text (a comment's `<span itemprop="text">` is not a post). */
const BLOCKS = new Set(["div", "section", "article", "blockquote", "td", "li"]);

/** At least this many posts make a thread; one post is an article's business. */
const MIN_POSTS = 2;

/** The thread's posts in page order, or undefined when the page is not a thread. */
export function findThread(body: Dom): Post[] | undefined {
  const bodies = new Set<Dom>(Array.from(body.querySelectorAll(PLATFORM_BODIES)) as Dom[]);
  if (isDiscussion(body)) {
    for (const element of Array.from(body.querySelectorAll("[itemprop~='text']")) as Dom[]) {
      if (BLOCKS.has(element.localName)) bodies.add(element);
    }
  }
  return postsOf(body, bodies);
}

/**
 * The posts around a set of text blocks, in page order, each with its author line; undefined
 * when fewer than two blocks hold text.
 */
export function postsOf(body: Dom, bodies: Set<Dom>): Post[] | undefined {
  // A text block inside another one (a quote in a post) belongs to that post.
  const outer = [...bodies].filter((element) => !hasAncestorIn(element, bodies) && textLength(element) > 0);
  if (outer.length < MIN_POSTS) return undefined;
  const ordered = inPageOrder(body, new Set(outer));
  const holding = postsHeld(ordered);
  return ordered.map((element) => {
    const unit = postOf(element, holding);
    return { body: element, unit, byline: byline(unit, element) };
  });
}

/** Whether the page states it is a discussion (schema.org microdata or JSON-LD). */
export function isDiscussion(body: Dom): boolean {
  const document = body.ownerDocument;
  for (const element of Array.from(document.querySelectorAll("[itemtype]")) as Dom[]) {
    if (DISCUSSION.test(element.getAttribute("itemtype") ?? "")) return true;
  }
  for (const script of Array.from(document.querySelectorAll('script[type="application/ld+json"]')) as Dom[]) {
    if (/"@type"\s*:\s*"(DiscussionForumPosting|QAPage)"/.test(script.textContent ?? "")) return true;
  }
  return false;
}

function hasAncestorIn(element: Dom, set: Set<Dom>): boolean {
  for (let node = element.parentElement; node; node = node.parentElement) if (set.has(node)) return true;
  return false;
}

/** The elements of `wanted` in document order (a selector list answers in its own order). */
function inPageOrder(root: Dom, wanted: Set<Dom>): Dom[] {
  return (Array.from(root.querySelectorAll("*")) as Dom[]).filter((element) => wanted.has(element));
}

/** How many post text blocks each ancestor of one holds (a walk up from each: posts x depth). */
function postsHeld(texts: readonly Dom[]): Map<Dom, number> {
  const held = new Map<Dom, number>();
  for (const text of texts) {
    for (let node = text.parentElement; node; node = node.parentElement)
      held.set(node, (held.get(node) ?? 0) + 1);
  }
  return held;
}

/** The largest ancestor of a text block that holds no other post's text: the post. */
function postOf(text: Dom, held: Map<Dom, number>): Dom {
  let post = text;
  for (let parent = post.parentElement; parent && held.get(parent) === 1; parent = parent.parentElement) {
    post = parent;
  }
  return post;
}

/** Class words that mark an author's name in a post's header. */
const AUTHOR_CLASS =
  /(^|\s)(username|user-name|author|creator|poster|postauthor|message-name|cAuthorPane_author|PostUser-name)(\s|$)/i;

/** A post's author and date, read outside its text block. */
function byline(post: Dom, text: Dom): string {
  const outside = (element: Dom) => !text.contains(element);
  const parts: string[] = [];
  const author = authorOf(post, outside);
  if (author !== undefined) parts.push(author);
  const time = (Array.from(post.querySelectorAll("time")) as Dom[]).find(outside);
  const when = time === undefined ? "" : oneLine(time.textContent) || (time.getAttribute("datetime") ?? "");
  if (when !== "") parts.push(when);
  return parts.join(" · ");
}

function authorOf(post: Dom, outside: (element: Dom) => boolean): string | undefined {
  const named = post.getAttribute("data-author");
  if (named) return oneLine(named);
  for (const element of Array.from(post.querySelectorAll("[itemprop~='author']")) as Dom[]) {
    if (!outside(element)) continue;
    const name = element.querySelector("[itemprop~='name']");
    const value = oneLine(name?.getAttribute("content") || name?.textContent || element.textContent);
    if (value !== "" && value.length <= 80) return value;
  }
  for (const element of Array.from(post.querySelectorAll("[class]")) as Dom[]) {
    if (!outside(element) || !AUTHOR_CLASS.test(element.getAttribute("class") ?? "")) continue;
    const value = oneLine(element.textContent);
    if (value !== "" && value.length <= 80) return value;
  }
  for (const link of Array.from(post.querySelectorAll("a[href]")) as Dom[]) {
    if (!outside(link) || !PROFILE_PATH.test(link.getAttribute("href") ?? "")) continue;
    const value = oneLine(link.textContent);
    if (value !== "" && value.length <= 80) return value;
  }
  return undefined;
}

/** A link to a member's page, which a post's header names its author by. */
const PROFILE_PATH =
  /^(https?:)?\/\/[^/]+\/(~|u\/|users?\/|members?\/|profiles?\/|people\/|authors?\/)[^/?#]+/i;

function oneLine(text: string | null | undefined): string {
  return (text ?? "").replace(/\s+/g, " ").trim();
}
