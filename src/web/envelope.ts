/**
 * The one JSON document a web_search or web_read call returns, fitted to a character budget.
 *
 * What the agent needs to judge the evidence (provenance, warnings, allowlisted metadata,
 * provider failures) is placed first and never clipped. The remaining budget holds the longest
 * prefix of the providers' native content, unchanged and in their order. `truncated` reports our
 * clipping only; what a provider cut on its side is its own business and shows in its warnings.
 * `sources` lists public URLs that appeared (results, outgoing links): seen, not fetched, not
 * verified. The document is serialized once per trial and the returned string is what is sent.
 */
import { fitJson, safePrefix } from "../core/budget.js";
import { WEB_SOURCES_MAX, WEB_SOURCES_MAX_BUDGET_SHARE } from "../core/limits.js";
import { type Phrasing, phrasingFor } from "../core/phrasing.js";
import { isPublicUrl } from "../net/public-url.js";
import type {
  EnvelopeContentPart,
  Provenance,
  ReadEnvelope,
  ReadMetadata,
  SearchEnvelope,
  SearchRow,
} from "./envelope-schema.js";
import type { ContentPart, ProviderReadOutcome, ProviderSearchOutcome } from "./provider.js";
import { deepEqual, parseJson } from "./providers/shared/values.js";

export type { Provenance, ReadEnvelope, SearchEnvelope };

export interface Fitted<T> {
  readonly json: string;
  readonly data: T;
}

// ---------------------------------------------------------------------------------------------
// web_search
// ---------------------------------------------------------------------------------------------

/** What an envelope opens with: provenance, warnings and the failures, as the caller decided them. */
type Head = Pick<SearchEnvelope, "provenance" | "warnings" | "providerErrors" | "providerReasons">;

export interface SearchEnvelopeInput extends Head {
  readonly outcomes: ReadonlyArray<{ readonly id: string; readonly outcome: ProviderSearchOutcome }>;
  readonly budgetChars: number;
}

/** A piece of search output that is kept or left out as a whole: an answer or one row. */
type Unit =
  | { readonly id: string; readonly kind: "answer"; readonly text: string }
  | { readonly id: string; readonly kind: "row"; readonly row: SearchRow };

/** One provider's cleaned part of the search answer. */
interface Section {
  readonly id: string;
  readonly answer: string | undefined;
  readonly rows: readonly SearchRow[];
}

/** Builds the envelope of the units kept, and of the part of one more unit that fits. */
type BuildSearch = (kept: readonly Unit[], partial?: Unit) => SearchEnvelope;

export function buildSearchEnvelope(input: SearchEnvelopeInput): Fitted<SearchEnvelope> {
  const sections: Section[] = input.outcomes.map(({ id, outcome }) => ({
    id,
    answer: nonEmpty(outcome.answer),
    rows: outcome.results.map(cleanRow).filter((row): row is SearchRow => row !== undefined),
  }));
  const units = roundRobin(sections);
  const build = searchBuilder(input, sections, units);
  const complete = build(units);
  const whole = JSON.stringify(complete);
  if (whole.length <= input.budgetChars) return { json: whole, data: complete };

  const kept = units.slice(0, wholeUnitsThatFit(units, input.budgetChars, build));
  const partial = fitNextInPart(units[kept.length], kept, input.budgetChars, build);
  if (partial !== undefined) return partial;
  const json = JSON.stringify(build(kept));
  return { json, data: JSON.parse(json) as SearchEnvelope };
}

/**
 * Round-robin order, so that a tight budget keeps every provider's top rows rather than all of
 * one provider's: answers first, then each provider's first row, then the second rows...
 */
function roundRobin(sections: readonly Section[]): Unit[] {
  const units: Unit[] = [];
  for (const section of sections)
    if (section.answer !== undefined) units.push({ id: section.id, kind: "answer", text: section.answer });
  const depth = Math.max(0, ...sections.map((section) => section.rows.length));
  for (let rank = 0; rank < depth; rank++) {
    for (const section of sections) {
      const row = section.rows[rank];
      if (row !== undefined) units.push({ id: section.id, kind: "row", row });
    }
  }
  return units;
}

/** The envelope of some units: every section present, sources deduplicated, every cut counted. */
function searchBuilder(
  input: SearchEnvelopeInput,
  sections: readonly Section[],
  units: readonly Unit[],
): BuildSearch {
  const totalRows = countRows(units);
  return (kept, partial) => {
    const results: Record<string, { answer?: string; results: SearchRow[] }> = {};
    for (const section of sections) results[section.id] = { results: [] };
    const sources: string[] = [];
    const seen = new Set<string>();
    for (const unit of partial === undefined ? kept : [...kept, partial]) {
      const target = results[unit.id] as { answer?: string; results: SearchRow[] };
      if (unit.kind === "answer") target.answer = unit.text;
      else {
        target.results.push(unit.row);
        if (!seen.has(unit.row.url) && isPublicUrl(unit.row.url)) {
          seen.add(unit.row.url);
          sources.push(unit.row.url);
        }
      }
    }
    const truncated = kept.length + (partial === undefined ? 0 : 1) < units.length || partial !== undefined;
    const omitted = totalRows - countRows(kept) - (partial?.kind === "row" ? 1 : 0);
    return {
      provenance: input.provenance,
      warnings: input.warnings,
      ...failureFields(input),
      results,
      sources,
      truncated,
      ...(truncated ? { omittedResults: omitted } : {}),
    };
  };
}

/** Largest number of whole units that fits (serialized length grows with the count). */
function wholeUnitsThatFit(units: readonly Unit[], budgetChars: number, build: BuildSearch): number {
  let low = 0;
  let high = units.length - 1;
  let best = 0;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if (JSON.stringify(build(units.slice(0, mid))).length <= budgetChars) {
      best = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  return best;
}

/** The next unit may still fit in part: the longest prefix of its answer or snippet. */
function fitNextInPart(
  next: Unit | undefined,
  kept: readonly Unit[],
  budgetChars: number,
  build: BuildSearch,
): Fitted<SearchEnvelope> | undefined {
  if (next === undefined) return undefined;
  const text = next.kind === "answer" ? next.text : (next.row.snippet ?? "");
  if (text.length === 0) return undefined;
  const fit = fitJson(text, budgetChars, (prefix) =>
    build(
      kept,
      next.kind === "answer" ? { ...next, text: prefix } : { ...next, row: { ...next.row, snippet: prefix } },
    ),
  );
  if (fit.overBudget || fit.keptChars <= 0) return undefined;
  return { json: fit.json, data: JSON.parse(fit.json) as SearchEnvelope };
}

function countRows(units: readonly Unit[]): number {
  return units.reduce((count, unit) => count + (unit.kind === "row" ? 1 : 0), 0);
}

/** Only the documented row fields, and only non-empty ones: adapters' extras never leak through. */
function cleanRow(row: SearchRow): SearchRow | undefined {
  if (typeof row.url !== "string" || row.url.length === 0) return undefined;
  return {
    title: typeof row.title === "string" ? row.title : "",
    url: row.url,
    ...(nonEmpty(row.snippet) === undefined ? {} : { snippet: row.snippet as string }),
    ...(nonEmpty(row.publishedAt) === undefined ? {} : { publishedAt: row.publishedAt as string }),
    ...(nonEmpty(row.author) === undefined ? {} : { author: row.author as string }),
  };
}

// ---------------------------------------------------------------------------------------------
// web_read
// ---------------------------------------------------------------------------------------------

export interface ReadEnvelopeInput extends Head {
  readonly outcome: ProviderReadOutcome;
  readonly budgetChars: number;
  /** A continuation: the document's characters before this part, and its whole length. */
  readonly part?: { readonly from: number; readonly total: number };
  /** Gives the cursor of the part that starts at `offset` (in the whole document), when one can be kept. */
  readonly cursor?: (offset: number) => string | undefined;
  /** How the warning that names the next part's call is written for the surface (default: MCP's). */
  readonly phrasing?: Phrasing;
}

export function buildReadEnvelope(input: ReadEnvelopeInput): Fitted<ReadEnvelope> {
  const parts = dropRepeatedJson(input.outcome.content);
  const segments = parts.map((part) => (part.type === "text" ? part.text : JSON.stringify(part.value)));
  const whole = segments.join("");
  const metadata = validMetadata(input.outcome.metadata);
  const title = nonEmpty(input.outcome.title);

  // Sources: public, deduplicated, at most WEB_SOURCES_MAX and a bounded share of the budget.
  const links: string[] = [];
  const seen = new Set<string>();
  // Links the provider reported first, then URLs written in the content itself.
  for (const link of [...(input.outcome.links ?? []), ...urlsInText(parts)]) {
    if (typeof link !== "string" || seen.has(link) || !isPublicUrl(link)) continue;
    seen.add(link);
    links.push(link);
  }
  let sources = links.slice(0, WEB_SOURCES_MAX);
  const sourcesBudget = Math.floor(input.budgetChars * WEB_SOURCES_MAX_BUDGET_SHARE);
  while (sources.length > 0 && JSON.stringify(sources).length > sourcesBudget) sources = sources.slice(0, -1);
  const sourcesOmitted = links.length - sources.length;

  const from = input.part?.from ?? 0;
  const total = input.part?.total ?? whole.length;
  const build = (prefix: string, clipped: boolean): ReadEnvelope => {
    const end = from + prefix.length;
    // A part of a page kept only in part ends short of the whole even when it fits.
    const truncated = clipped || end < total;
    const next = truncated && input.cursor !== undefined ? input.cursor(end) : undefined;
    return {
      provenance: input.provenance,
      warnings:
        next === undefined
          ? input.warnings
          : [
              ...input.warnings,
              `the page continues: ${total - end} of ${total} characters remain; ${(input.phrasing ?? phrasingFor("mcp")).call("web_read", { cursor: next })} for the next part`,
            ],
      ...failureFields(input),
      ...(title === undefined ? {} : { title }),
      ...(metadata === undefined ? {} : { metadata }),
      content: splitPrefix(parts, segments, prefix.length),
      contentChars: { kept: prefix.length, total, ...(input.part === undefined ? {} : { from }) },
      sources,
      ...(sourcesOmitted > 0 ? { sourcesOmitted } : {}),
      truncated,
      ...(next === undefined ? {} : { cursor: next, remainingChars: total - end }),
    };
  };
  const fit = fitJson(whole, input.budgetChars, build);
  // The same document the JSON was serialized from, rebuilt rather than parsed back.
  return { json: fit.json, data: build(whole.slice(0, fit.keptChars), fit.truncated) };
}

const URL_IN_TEXT = /https?:\/\/[^\s<>()[\]{}"'`|\\^]+/g;
/** How much of a page is scanned for URLs (the index is bounded anyway). */
const URL_SCAN_CHARS = 1_000_000;

/** Absolute http(s) URLs written in the text parts (Markdown links, bare URLs), in order. */
function urlsInText(parts: readonly ContentPart[]): string[] {
  const found: string[] = [];
  let scanned = 0;
  for (const part of parts) {
    if (part.type !== "text" || scanned >= URL_SCAN_CHARS) continue;
    const text = part.text.slice(0, URL_SCAN_CHARS - scanned);
    scanned += text.length;
    for (const match of text.matchAll(URL_IN_TEXT)) {
      // Sentence punctuation after a bare URL is not part of it.
      found.push(match[0].replace(/[.,;:!?*_~]+$/, ""));
    }
  }
  return found;
}

/** The parts covering the first `length` characters; a JSON part cut short becomes its JSON text. */
function splitPrefix(
  parts: readonly ContentPart[],
  segments: readonly string[],
  length: number,
): EnvelopeContentPart[] {
  const out: EnvelopeContentPart[] = [];
  let remaining = length;
  parts.forEach((part, index) => {
    const segment = segments[index] ?? "";
    if (remaining <= 0 && segment.length > 0) return;
    if (remaining >= segment.length) {
      out.push(
        part.type === "text" ? { type: "text", text: part.text } : { type: "json", value: part.value },
      );
      remaining -= segment.length;
      return;
    }
    out.push({ type: "text", text: safePrefix(segment, remaining) });
    remaining = 0;
  });
  return out;
}

/**
 * A JSON part is left out when a text part already holds exactly the same document (deep
 * equality, key order irrelevant): the model would otherwise read it twice.
 */
function dropRepeatedJson(parts: readonly ContentPart[]): ContentPart[] {
  // Without a JSON part there is nothing to drop: a JSON page's text is not parsed again.
  if (!parts.some((part) => part.type === "json")) return [...parts];
  const parsedTexts = parts.flatMap((part) => {
    const parsed = part.type === "text" ? parseJson(part.text) : undefined;
    return parsed === undefined ? [] : [parsed];
  });
  if (parsedTexts.length === 0) return [...parts];
  return parts.filter(
    (part) => part.type !== "json" || !parsedTexts.some((text) => deepEqual(text, part.value)),
  );
}

/** Longest stated page fact kept in the metadata (a byline or site name, not a paragraph). */
const STATED_MAX_CHARS = 300;
/** A page's stated description: a summary, longer than the other facts, never a page. */
const DESCRIPTION_MAX_CHARS = 2000;

/** Only the allowlisted facts, each validated; anything else a provider reported is dropped. */
function validMetadata(metadata: ReadMetadata | undefined): ReadMetadata | undefined {
  if (metadata === undefined) return undefined;
  const out: { -readonly [K in keyof ReadMetadata]: ReadMetadata[K] } = {};
  if (
    typeof metadata.creditsUsed === "number" &&
    Number.isFinite(metadata.creditsUsed) &&
    metadata.creditsUsed >= 0
  ) {
    out.creditsUsed = metadata.creditsUsed;
  }
  if (metadata.cacheState === "hit" || metadata.cacheState === "miss") out.cacheState = metadata.cacheState;
  if (isDateText(metadata.cachedAt)) out.cachedAt = metadata.cachedAt;
  for (const key of ["byline", "language", "siteName"] as const) {
    const value = metadata[key];
    if (typeof value === "string" && value.trim() !== "" && value.length <= STATED_MAX_CHARS)
      out[key] = value;
  }
  const description = metadata.description;
  if (
    typeof description === "string" &&
    description.trim() !== "" &&
    description.length <= DESCRIPTION_MAX_CHARS
  )
    out.description = description;
  if (isDateText(metadata.published)) out.published = metadata.published;
  if (typeof metadata.canonicalUrl === "string" && isPublicUrl(metadata.canonicalUrl))
    out.canonicalUrl = metadata.canonicalUrl;
  return Object.keys(out).length === 0 ? undefined : out;
}

function isDateText(value: unknown): value is string {
  return typeof value === "string" && value.length <= 64 && !Number.isNaN(Date.parse(value));
}

function nonEmpty(value: string | undefined): string | undefined {
  return typeof value === "string" && value.trim().length > 0 ? value : undefined;
}

/** `providerErrors` and `providerReasons`, present only when a provider failed. */
function failureFields(input: Head): Pick<Head, "providerErrors" | "providerReasons"> {
  if (input.providerErrors === undefined || Object.keys(input.providerErrors).length === 0) return {};
  return {
    providerErrors: input.providerErrors,
    ...(input.providerReasons === undefined ? {} : { providerReasons: input.providerReasons }),
  };
}
