/**
 * What a page states about itself: title, author, publication date, language, canonical URL and
 * site name, read from `<meta>` (Open Graph, Dublin Core, article:*), JSON-LD and `<link>`.
 * Only what the page states: nothing is guessed from the text, and a value that is not of the
 * expected form (a date that does not parse, a canonical URL that is not http(s)) is left out.
 * The elements are found in the page's profile (profile.ts), the walk the reader makes once.
 */
import { type PageProfile, pageProfile } from "./profile.js";

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

export interface PageMetadata {
  title?: string;
  byline?: string;
  published?: string;
  language?: string;
  canonicalUrl?: string;
  siteName?: string;
  /** The page's summary of itself (`description`, Open Graph, Twitter). */
  description?: string;
}

/** Longest value kept for a text field (a byline or title longer than this is not one). */
const FIELD_MAX_CHARS = 300;
/** Longest description kept: a summary, not a page. */
const DESCRIPTION_MAX_CHARS = 2000;
/** The meta names of a description, in the order they are preferred. */
const DESCRIPTIONS = new Set(["description", "og:description", "twitter:description"]);

export function pageMetadata(
  document: Dom,
  pageUrl: string,
  profile: PageProfile = pageProfile(document),
): PageMetadata {
  const meta = new Map<string, string>();
  for (const element of profile.metas) {
    const key = (
      element.getAttribute("property") ??
      element.getAttribute("name") ??
      element.getAttribute("itemprop") ??
      ""
    )
      .trim()
      .toLowerCase();
    if (key === "" || meta.has(key)) continue;
    // A description may be longer than the other fields: it is kept to its own bound.
    const value = DESCRIPTIONS.has(key)
      ? clean(element.getAttribute("content"), DESCRIPTION_MAX_CHARS)
      : clean(element.getAttribute("content"));
    if (value !== undefined) meta.set(key, value);
  }
  const ld = jsonLd(profile.jsonLd);
  const first = (...values: Array<string | undefined>) => values.find((value) => value !== undefined);

  const out: PageMetadata = {};
  const title = first(
    meta.get("og:title"),
    ld.headline,
    meta.get("twitter:title"),
    clean(profile.title?.textContent),
  );
  if (title !== undefined) out.title = title;
  const byline = first(
    ld.author,
    notUrl(meta.get("author")),
    notUrl(meta.get("article:author")),
    notUrl(meta.get("dc.creator")),
    notUrl(meta.get("parsely-author")),
    clean(profile.relAuthor?.textContent),
  );
  if (byline !== undefined) out.byline = byline;
  const published = [
    ld.datePublished,
    meta.get("article:published_time"),
    meta.get("datepublished"),
    meta.get("date"),
    meta.get("dc.date"),
    meta.get("dc.date.issued"),
    meta.get("dcterms.created"),
    meta.get("pubdate"),
    meta.get("publishdate"),
    meta.get("parsely-pub-date"),
    profile.publishedTime?.getAttribute("datetime") ?? undefined,
  ].find((value) => value !== undefined && isDate(value));
  if (published !== undefined) out.published = published;
  const language = first(
    languageTag(document.documentElement?.getAttribute("lang")),
    languageTag(meta.get("content-language")),
    languageTag(ld.inLanguage),
    languageTag(meta.get("og:locale")?.replace("_", "-")),
  );
  if (language !== undefined) out.language = language;
  const canonical = first(
    absoluteHttp(profile.canonical?.getAttribute("href"), pageUrl),
    absoluteHttp(meta.get("og:url"), pageUrl),
  );
  if (canonical !== undefined) out.canonicalUrl = canonical;
  const siteName = first(meta.get("og:site_name"), ld.publisher, meta.get("application-name"));
  if (siteName !== undefined) out.siteName = siteName;
  const description = first(...[...DESCRIPTIONS].map((key) => meta.get(key)));
  if (description !== undefined) out.description = description;
  return out;
}

interface LdFacts {
  headline?: string;
  author?: string;
  datePublished?: string;
  publisher?: string;
  inLanguage?: string;
}

/** The first of each fact across the page's JSON-LD objects (`@graph` included). */
function jsonLd(values: readonly unknown[]): LdFacts {
  const facts: LdFacts = {};
  const visit = (value: unknown, depth: number) => {
    if (depth > 4 || value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    const record = value as Record<string, unknown>;
    facts.headline ??= clean(stringOf(record.headline));
    facts.datePublished ??= clean(stringOf(record.datePublished));
    facts.inLanguage ??= clean(stringOf(record.inLanguage));
    facts.author ??= names(record.author);
    facts.publisher ??= names(record.publisher);
    if (record["@graph"] !== undefined) visit(record["@graph"], depth + 1);
  };
  for (const value of values) visit(value, 0);
  return facts;
}

function names(value: unknown): string | undefined {
  const list = (Array.isArray(value) ? value : [value])
    .map((item) =>
      typeof item === "string"
        ? notUrl(clean(item))
        : clean(stringOf((item as { name?: unknown } | null)?.name)),
    )
    .filter((name): name is string => name !== undefined);
  return list.length === 0 ? undefined : clean([...new Set(list)].join(", "));
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function clean(value: string | null | undefined, maxChars = FIELD_MAX_CHARS): string | undefined {
  const text = value?.replace(/\s+/g, " ").trim();
  return text === undefined || text === "" || text.length > maxChars ? undefined : text;
}

function notUrl(value: string | undefined): string | undefined {
  return value === undefined || /^https?:\/\//i.test(value) ? undefined : value;
}

function isDate(value: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}/.test(value) &&
    !Number.isNaN(Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value))
  );
}

function languageTag(value: string | null | undefined): string | undefined {
  const tag = value?.trim();
  return tag !== undefined && /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i.test(tag) ? tag : undefined;
}

function absoluteHttp(value: string | null | undefined, base: string): string | undefined {
  if (value === null || value === undefined || value.trim() === "") return undefined;
  try {
    const url = new URL(value.trim(), base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}
