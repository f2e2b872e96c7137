/**
 * Quotes in a thread's replies that repeat an earlier post of the same thread.
 *
 * Forum replies quote what they answer: a reply to a long post carries that post again, and a
 * thread of twenty replies can carry its opening post ten times over. The earlier post is in the
 * same answer, so a repeated quote is cut to its attribution ("Ann said:") and an ellipsis: the
 * reader still sees whom the reply answers, and says it left the rest out. A quote whose text
 * is not in an earlier post (from another thread, a page before, an outside source) stays whole.
 */

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

/** Words in a run that make a quote's text recognisable in an earlier post. */
const RUN = 4;

/** The share of a quote's runs of words that must occur earlier for it to count as repeated. */
const REPEATED_SHARE = 0.6;

/** An attribution line is short: a name and a verb, perhaps a date and a link. */
const ATTRIBUTION_CHARS = 100;

/**
 * Cuts the quotes in `posts` (text blocks in thread order, already detached from the page) that
 * repeat an earlier post, each to its attribution line and an ellipsis.
 */
export function cutRepeatedQuotes(posts: readonly Dom[]): void {
  const earlier = new Set<number>();
  for (const post of posts) {
    // A post's own runs join the set before its quotes are cut: a later reply may quote this
    // post with its quote inside.
    const own = runsOf(post.textContent ?? "");
    for (const quote of quotesIn(post)) {
      const runs = runsOf(quote.textContent ?? "");
      if (runs.length === 0) continue;
      let seen = 0;
      for (const run of runs) if (earlier.has(run)) seen += 1;
      if (seen >= REPEATED_SHARE * runs.length) shorten(quote);
    }
    for (const run of own) earlier.add(run);
  }
}

/** The outermost quote blocks in a post: `<blockquote>`, or a block its platform names a quote. */
function quotesIn(post: Dom): Dom[] {
  const quotes = (Array.from(post.querySelectorAll("blockquote, [class]")) as Dom[]).filter(isQuote);
  const set = new Set(quotes);
  return quotes.filter((quote) => {
    for (let node = quote.parentElement; node && node !== post; node = node.parentElement)
      if (set.has(node)) return false;
    return true;
  });
}

/**
 * A class that ends in "quote" names a quote block (`bbcode_quote`, `ipsQuote`,
 * `bbCodeBlock--quote`); `js-` classes are script hooks (XenForo's `js-selectToQuote` marks
 * every post body).
 */
function isQuote(element: Dom): boolean {
  if (element.localName === "blockquote") return true;
  if (!QUOTE_BLOCKS.has(element.localName)) return false;
  return (element.getAttribute("class") ?? "")
    .split(/\s+/)
    .some((name: string) => /quote$/i.test(name) && !/^js-/i.test(name));
}

const QUOTE_BLOCKS = new Set(["div", "aside", "section", "table", "figure"]);

/** Replaces a quote's content with its attribution line, if it has one, and an ellipsis. */
function shorten(quote: Dom): void {
  const attribution = attributionOf(quote);
  const document = quote.ownerDocument;
  const line = document.createElement("p");
  line.textContent = attribution === undefined ? "…" : `${attribution} …`;
  const block = document.createElement("blockquote");
  block.appendChild(line);
  quote.replaceWith(block);
}

/**
 * The line that says whose words a quote holds: a `<cite>`, a title or citation element that
 * platforms put first in the quote, or a first short line that ends in a colon ("Ann said:").
 */
function attributionOf(quote: Dom): string | undefined {
  for (const element of Array.from(quote.querySelectorAll("cite, [class]")) as Dom[]) {
    const named =
      element.localName === "cite" ||
      /(^|[\s_-])(title|citation|cite|postedby|attribution)([\s_-]|$)/i.test(
        splitCamel(element.getAttribute("class") ?? ""),
      );
    if (!named) continue;
    const text = oneLine(element.textContent);
    if (text !== "" && text.length <= ATTRIBUTION_CHARS) return text;
  }
  const first = oneLine(quote.firstElementChild?.textContent);
  return first !== "" && first.length <= ATTRIBUTION_CHARS && first.endsWith(":") ? first : undefined;
}

/** `ipsQuote_citation` to `ips quote_citation`: a camel-case class's words, for matching. */
function splitCamel(names: string): string {
  return names.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}

/** Each run of RUN words as a 32-bit hash: a long thread's runs would cost more as strings. */
export function runsOf(text: string): number[] {
  const words = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map(hash);
  const runs: number[] = [];
  for (let i = 0; i + RUN <= words.length; i++) {
    let run = 0;
    for (let j = i; j < i + RUN; j++) run = Math.imul(run ^ (words[j] as number), 0x01000193) >>> 0;
    runs.push(run);
  }
  return runs;
}

/** FNV-1a over a word's UTF-16 units. */
function hash(word: string): number {
  let value = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) value = Math.imul(value ^ word.charCodeAt(i), 0x01000193) >>> 0;
  return value;
}

function oneLine(text: string | null | undefined): string {
  return (text ?? "").replace(/\s+/g, " ").trim();
}
