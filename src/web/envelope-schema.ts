/**
 * The JSON document web_search and web_read answer with, described once: the tools publish these
 * schemas as their output schemas, and the envelope (envelope.ts), the router and the providers'
 * rows and metadata take their types from them.
 */
import { z } from "zod";
import { PAGE_TYPES, PROVIDER_FAILURES, READ_STRATEGIES } from "./provider.js";

const provenanceSchema = z.object({
  tool: z.enum(["web_search", "web_read"]),
  /** web_search: the query as given. */
  query: z.string().optional(),
  intent: z.string().optional(),
  /** web_read: exactly the URL the agent asked for. */
  url: z.string().optional(),
  focus: z.string().optional(),
  /** `route`: ordered fallback chain; `fanout`: the named providers in parallel; `reader`: one named reader. */
  mode: z.enum(["route", "fanout", "reader"]),
  /** Providers called, in order of attempt (fan-out: in the order named). */
  attempted: z.array(z.string()),
  /** Providers whose output is in this document. */
  used: z.array(z.string()),
  /** Providers among `used` that were called without any credential of the operator's. */
  anonymous: z.array(z.string()),
  /** When this process received the content (local time, ISO 8601). */
  retrievedAt: z.string(),
  /** Present when the operator let agent URLs reach private networks. */
  privateNetworkAllowed: z.literal(true).optional(),
  /** web_read: the kind of page, as the reader decided it from the page's structure and metadata. */
  pageType: z.enum(PAGE_TYPES).optional(),
  /** web_read: how the reader chose the content (thread posts, article block, whole body...). */
  strategy: z.enum(READ_STRATEGIES).optional(),
});

/** The fields every web envelope opens with: who was asked and who answered, what to watch, who failed and why. */
const envelopeHead = {
  provenance: provenanceSchema,
  warnings: z.array(z.string()),
  providerErrors: z
    .record(z.string(), z.string())
    .optional()
    .describe("Sanitized reason per provider that failed."),
  providerReasons: z
    .record(z.string(), z.enum(PROVIDER_FAILURES))
    .optional()
    .describe(
      "The class of each failure (dns, connection_refused, tls, proxy, timeout, auth, rate_limited, ...).",
    ),
};

const rowSchema = z.object({
  title: z.string(),
  url: z.string(),
  snippet: z.string().optional(),
  publishedAt: z.string().optional(),
  author: z.string().optional(),
});

const metadataSchema = z.object({
  creditsUsed: z.number().optional(),
  cacheState: z.enum(["hit", "miss"]).optional(),
  cachedAt: z.string().optional(),
  byline: z.string().optional(),
  published: z.string().optional(),
  language: z.string().optional(),
  canonicalUrl: z.string().optional(),
  siteName: z.string().optional(),
  description: z.string().optional(),
});

const contentPartSchema = z.union([
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("json"), value: z.unknown() }),
]);

export const webSearchOutputSchema = z.object({
  ...envelopeHead,
  /** Each provider's answer and rows under its id, in provider order, never merged or re-ranked. */
  results: z.record(z.string(), z.object({ answer: z.string().optional(), results: z.array(rowSchema) })),
  sources: z.array(z.string()),
  truncated: z.boolean(),
  /** Result rows left out to fit the budget (only when `truncated`). */
  omittedResults: z.number().int().optional(),
});

export const webReadOutputSchema = z.object({
  ...envelopeHead,
  title: z.string().optional(),
  metadata: metadataSchema
    .optional()
    .describe(
      "Facts the reader reported: credits and cache state of hosted readers; the byline, publication date, language, canonical URL and site name the page itself states (never guessed), and its stated description when the content is empty.",
    ),
  content: z.array(contentPartSchema),
  /**
   * Characters of native content in this part and in the whole document (JSON parts counted as
   * their JSON text); `from` is where this part starts when it continues a cursor.
   */
  contentChars: z.object({
    kept: z.number().int(),
    total: z.number().int(),
    from: z.number().int().optional(),
  }),
  sources: z.array(z.string()),
  sourcesOmitted: z.number().int().optional(),
  truncated: z.boolean(),
  /** The next part of the same document, without fetching again (`web_read` with `cursor`). */
  cursor: z.string().optional(),
  /** Characters after this part. */
  remainingChars: z.number().int().optional(),
});

/** A schema's output with every field and array read-only: what the router builds and passes on. */
type Frozen<T> = T extends readonly (infer Item)[]
  ? readonly Frozen<Item>[]
  : T extends object
    ? { readonly [Key in keyof T]: Frozen<T[Key]> }
    : T;

export type Provenance = Frozen<z.output<typeof provenanceSchema>>;
export type SearchRow = Frozen<z.output<typeof rowSchema>>;
export type ReadMetadata = Frozen<z.output<typeof metadataSchema>>;
export type EnvelopeContentPart = Frozen<z.output<typeof contentPartSchema>>;
export type SearchEnvelope = Frozen<z.output<typeof webSearchOutputSchema>>;
export type ReadEnvelope = Frozen<z.output<typeof webReadOutputSchema>>;
