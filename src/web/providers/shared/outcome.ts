/**
 * Building provider outcomes the same way in every adapter: rows carry only the documented row
 * fields (never the provider's name: rows already sit under their provider's key), an empty
 * answer is omitted rather than sent as "", and the result count never exceeds what was asked.
 */
import {
  type ContentPart,
  ProviderError,
  type ProviderReadOutcome,
  type ProviderSearchOutcome,
  type ReadMetadata,
  type SearchRow,
  type TimeRange,
} from "../../provider.js";
import { arrayOf, httpUrl, isRecord, text } from "./values.js";

export interface RowInput {
  readonly title?: unknown;
  readonly url?: unknown;
  readonly snippet?: unknown;
  readonly publishedAt?: unknown;
  readonly author?: unknown;
}

/** A result row, or undefined when the vendor gave no usable http(s) URL. */
export function toRow(input: RowInput): SearchRow | undefined {
  const url = httpUrl(input.url);
  if (url === undefined) return undefined;
  const snippet = text(input.snippet);
  const publishedAt = text(input.publishedAt);
  const author = text(input.author);
  return {
    // An untitled result keeps an empty title rather than one we invented.
    title: text(input.title) ?? "",
    url,
    ...(snippet === undefined ? {} : { snippet }),
    ...(publishedAt === undefined ? {} : { publishedAt }),
    ...(author === undefined ? {} : { author }),
  };
}

/** Rows from a vendor's result list: each record picked into a row, anything else dropped. */
export function rowsOf(
  items: unknown,
  pick: (item: Record<string, unknown>) => RowInput,
): (SearchRow | undefined)[] {
  return arrayOf(items).map((item) => (isRecord(item) ? toRow(pick(item)) : undefined));
}

export function searchOutcome(input: {
  readonly rows: readonly (SearchRow | undefined)[];
  readonly maxResults: number;
  readonly answer?: unknown;
  readonly warnings?: readonly string[];
}): ProviderSearchOutcome {
  const results = input.rows.filter((row): row is SearchRow => row !== undefined).slice(0, input.maxResults);
  const answer = text(input.answer);
  const warnings = input.warnings ?? [];
  return {
    ...(answer === undefined ? {} : { answer }),
    results,
    ...(warnings.length === 0 ? {} : { warnings }),
  };
}

/**
 * A read outcome. A read that produced no text at all is a failure the router can fall back
 * from, never an empty success that looks like an empty page.
 */
export function readOutcome(
  providerId: string,
  input: {
    readonly title?: unknown;
    readonly parts: readonly (string | undefined)[];
    readonly links?: readonly unknown[];
    readonly metadata?: ReadMetadata;
    readonly warnings?: readonly string[];
  },
): ProviderReadOutcome {
  const content: ContentPart[] = [];
  for (const part of input.parts) {
    if (part !== undefined && part.trim().length > 0) content.push({ type: "text", text: part });
  }
  if (content.length === 0) {
    throw new ProviderError(providerId, "upstream", `${providerId} returned no content for the page`);
  }
  const title = text(input.title);
  const links = uniqueUrls(input.links ?? []);
  const warnings = input.warnings ?? [];
  const metadata =
    input.metadata !== undefined && Object.keys(input.metadata).length > 0 ? input.metadata : undefined;
  return {
    ...(title === undefined ? {} : { title }),
    content,
    ...(links.length === 0 ? {} : { links }),
    ...(metadata === undefined ? {} : { metadata }),
    ...(warnings.length === 0 ? {} : { warnings }),
  };
}

function uniqueUrls(values: readonly unknown[]): string[] {
  const seen = new Set<string>();
  for (const value of values) {
    const url = httpUrl(value);
    if (url !== undefined) seen.add(url);
  }
  return [...seen];
}

/** The warning an adapter adds when the vendor has no way to honour a requested time range. */
export function timeRangeIgnored(providerId: string, timeRange: TimeRange | undefined): string[] {
  return timeRange === undefined
    ? []
    : [`${providerId} cannot filter by time; timeRange "${timeRange}" was not applied`];
}

/** The earliest instant inside a time range, as an ISO string (for vendors that take a date). */
export function timeRangeStart(timeRange: TimeRange, now: Date = new Date()): string {
  const days = { day: 1, week: 7, month: 31, year: 366 }[timeRange];
  return new Date(now.getTime() - days * 24 * 60 * 60 * 1000).toISOString();
}

/** Google-style `tbs` recency filter (Serper, Firecrawl search). */
export function googleTbs(timeRange: TimeRange | undefined): string | undefined {
  return timeRange === undefined ? undefined : `qdr:${timeRange.charAt(0)}`;
}
