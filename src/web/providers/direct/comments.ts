/**
 * A discussion that no forum platform's markup names: comments under a story (link aggregators,
 * news discussion sites), a forum theme of its own, a Q&A page. Such pages name their posts'
 * text blocks in their class words (`comment_text`, `commentBody`, `post-body`, `usertext-body`,
 * `postText`): a repeated class whose words join a post word and a text word. The posts around
 * those blocks, with their author lines, are the thread (thread.ts).
 *
 * Blogs name their comments the same way, and a listing of blog posts names each excerpt
 * `post-content`: the thread found here replaces the article only when it is the page's content
 * (joinDiscussion), and never where its posts carry headlines that link elsewhere (a listing).
 */

import { textLength } from "./document.js";
import { runsOf } from "./quotes.js";
import { type Post, postsOf } from "./thread.js";

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

/** A class name that names a post's text: a post word, then a text word (`postItmCntnt` too). */
const NAMED =
  /(post|comment|message|msg|reply|replies|answer|topic|usertext)s?[a-z]*?(body|text|content|cntnt)/;

/** Class words of a block beside or around a post's text, or of a form to write one. */
const NOT_TEXT =
  /(form|textarea|input|editor|count|header|footer|meta|title|avatar|action|button|toolbar|preview|signature|quote|marker)/;

/** Elements that hold a post's text (an article's paragraphs may carry the same words). */
const BLOCKS = new Set(["div", "section", "article", "td", "li", "blockquote"]);

/** Fewer repeated blocks than this are a blog's few comments or a page's two excerpts. */
const MIN_COMMENTS = 3;

/** The thread named by its class words, or undefined when the page names none. */
export function findComments(body: Dom): Post[] | undefined {
  const groups = new Map<string, Dom[]>();
  for (const element of Array.from(body.querySelectorAll("[class]")) as Dom[]) {
    for (const name of (element.getAttribute("class") ?? "").split(/\s+/) as string[]) {
      if (!BLOCKS.has(element.localName)) break;
      const words = name.replace(/[-_]/g, "").toLowerCase();
      if (!NAMED.test(words) || NOT_TEXT.test(words)) continue;
      const group = groups.get(name);
      if (group === undefined) groups.set(name, [element]);
      else if (group.at(-1) !== element) group.push(element);
    }
  }
  let best: { posts: Post[]; text: number } | undefined;
  for (const members of groups.values()) {
    if (members.length < MIN_COMMENTS) continue;
    const posts = postsOf(body, new Set(members));
    if (posts === undefined || posts.length < MIN_COMMENTS || listed(posts)) continue;
    let text = 0;
    for (const post of posts) text += textLength(post.body);
    if (best === undefined || text > best.text) best = { posts, text };
  }
  return best?.posts;
}

/**
 * Whether most posts carry a headline that links to a page of its own: a listing's cards, not
 * replies. A reply's title links to the reply within the thread (`comments.pl?cid=4`): one path.
 */
function listed(posts: readonly Post[]): boolean {
  const paths = new Set<string>();
  let headlines = 0;
  for (const post of posts) {
    const link = post.unit.querySelector(
      "h1 a[href], h2 a[href], h3 a[href], h4 a[href], a[href] h2, a[href] h3",
    );
    if (link === null) continue;
    headlines += 1;
    const href = link.localName === "a" ? link.getAttribute("href") : link.closest("a")?.getAttribute("href");
    paths.add(String(href).split(/[?#]/)[0] ?? "");
  }
  return headlines * 2 >= posts.length && paths.size * 2 > headlines;
}

/** The share of an article's runs of words a thread must hold for the article to be one of its posts. */
const HELD_SHARE = 0.5;

/**
 * What a page with both an article and a thread reads as: the thread alone when the article is
 * one of its posts (or all of them); on a page that states it is a discussion (schema.org), the
 * article then the thread when the thread outweighs it (a question and its answers); else
 * undefined: the article, whose comments stay out, as a blog's or a news story's do.
 */
export function joinDiscussion(
  document: Dom,
  article: Dom | undefined,
  thread: Dom,
  statedDiscussion: boolean,
): Dom | undefined {
  if (article === undefined) return thread;
  const articleRuns = runsOf(article.textContent ?? "");
  const threadRuns = new Set(runsOf(thread.textContent ?? ""));
  let held = 0;
  for (const run of articleRuns) if (threadRuns.has(run)) held += 1;
  if (held >= HELD_SHARE * articleRuns.length) return thread;
  if (!statedDiscussion || textLength(thread) < textLength(article)) return undefined;
  const root = document.createElement("div");
  root.appendChild(article);
  root.appendChild(thread);
  return root;
}
