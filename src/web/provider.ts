/**
 * The one interface every web provider implements: built-in HTTP adapters, the keyless
 * defaults and upstream MCP bindings alike. Adapters translate a vendor's wire format into
 * these shapes and back; they never decide routing, fallback or budgets.
 */
import type { Logger } from "../core/logger.js";
import type { TraceContext } from "../core/trace.js";
import { NETWORK_FAILURE_KINDS } from "../net/failure.js";
import type { HttpClient } from "../net/http-client.js";
import type { ReadMetadata, SearchRow } from "./envelope-schema.js";

export type TimeRange = "day" | "week" | "month" | "year";

export interface ProviderSearchRequest {
  readonly query: string;
  readonly maxResults: number;
  readonly timeRange?: TimeRange;
  readonly intent?: string;
}

export interface ProviderReadRequest {
  /** Exactly the URL the agent asked for. */
  readonly url: string;
  /** Present only when the provider declared `focus` support; the router checks first. */
  readonly focus?: string;
}

/**
 * One result row (`SearchRow`), and the small, validated facts a provider reported about a read
 * (`ReadMetadata`: allowlisted, never summed; what the page states about itself, never inferred),
 * as the tools' output schema describes them. The provider id is never repeated in a row: rows
 * sit under their provider's key.
 */
export type { ReadMetadata, SearchRow };

export interface ProviderSearchOutcome {
  /** Prose answer from model-backed or answer-capable providers; omitted when empty. */
  readonly answer?: string;
  readonly results: readonly SearchRow[];
  readonly warnings?: readonly string[];
}

/** A piece of native content, in the order the provider gave it. */
export type ContentPart =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "json"; readonly value: unknown };

/** Kinds of page a reader may recognise (provenance `pageType`). */
export const PAGE_TYPES = [
  "article",
  "documentation",
  "forum",
  "product",
  "collection",
  "listing",
  "service",
] as const;
export type PageType = (typeof PAGE_TYPES)[number];

/**
 * How a reader chose the content it returns (provenance `strategy`): a thread's posts, a
 * listing's cards, an article extractor's block, the block the page names as its body, the whole
 * body (no block found, or the block held almost nothing), or its plain text; a product page's describing blocks and stated facts (`product`), a service page's
 * sections; `none` when nothing of the page is returned (it holds no text of its own, or only
 * its site's chrome; a warning says which).
 */
export const READ_STRATEGIES = [
  "thread",
  "cards",
  "product",
  "sections",
  "article",
  "container",
  "body",
  "body-fallback",
  "plain-text",
  "none",
] as const;
export type ReadStrategy = (typeof READ_STRATEGIES)[number];

export interface ProviderReadOutcome {
  /** The kind of page, when the reader decides one (`direct` does, from structure and metadata). */
  readonly pageType?: PageType;
  /** How the reader chose the content, when it says. */
  readonly strategy?: ReadStrategy;
  readonly title?: string;
  readonly content: readonly ContentPart[];
  /** Outgoing links the provider reported or the content holds (indexed as sources, not fetched). */
  readonly links?: readonly string[];
  readonly metadata?: ReadMetadata;
  readonly warnings?: readonly string[];
}

export interface ProviderContext {
  readonly signal: AbortSignal;
  readonly http: HttpClient;
  readonly logger: Logger;
  /**
   * Says what the attempt is waiting for now, not the vendor (`undefined` once it no longer
   * waits), so that a timeout says so: "the page reader, busy with another large page".
   */
  readonly waiting?: (what: string | undefined) => void;
  /**
   * The caller's W3C trace context: an HTTP vendor's requests carry it as `traceparent`
   * (defineHttpProvider), an upstream MCP server's tool call in `_meta`. Never sent to a page
   * an agent asked to read.
   */
  readonly trace?: TraceContext;
}

export interface ProviderCapabilities {
  readonly search: boolean;
  readonly read: boolean;
  /** The read accepts a focus that the adapter really maps (Tavily query, Jina question, ...). */
  readonly focus: boolean;
}

export interface Provider {
  readonly id: string;
  /** Which adapter implements it (`tavily`, `mcp`, ...). */
  readonly adapter: string;
  /** Called without any credential of the operator's (keyless defaults, anonymous tiers). */
  readonly anonymous: boolean;
  readonly capabilities: ProviderCapabilities;
  /** Per-attempt deadline override, connection included. */
  readonly attemptDeadlineMs?: number;
  search?(request: ProviderSearchRequest, context: ProviderContext): Promise<ProviderSearchOutcome>;
  read?(request: ProviderReadRequest, context: ProviderContext): Promise<ProviderReadOutcome>;
  /**
   * The smallest real request the vendor documents that proves the key and the connection
   * (`evident doctor`), when it has one cheaper than a one-result search (Tavily's usage,
   * Firecrawl's credit usage). Fails with a ProviderError like a call.
   */
  probe?(context: ProviderContext): Promise<void>;
  close?(): Promise<void>;
}

/**
 * Why a provider attempt failed, as every surface reports it (`reason` / `provider_reasons` in
 * error payloads, `providerReasons` in results, `doctor`). Stable snake_case values.
 */
export const PROVIDER_FAILURES = [
  ...NETWORK_FAILURE_KINDS,
  "auth",
  "rate_limited",
  "server_error",
  "http",
  "malformed",
  "too_large",
  "configuration",
  "upstream",
  "cancelled",
  "internal",
] as const;
export type ProviderFailure = (typeof PROVIDER_FAILURES)[number];

/** The class of an HTTP status: 401/403 a rejected key, 429 a rate limit, 5xx the vendor's fault. */
export function httpFailure(status: number): ProviderFailure {
  if (status === 401 || status === 403) return "auth";
  if (status === 429) return "rate_limited";
  if (status >= 500) return "server_error";
  return "http";
}

/**
 * A provider attempt failed. `reason` is what the agent sees: short, sanitized, never a key or
 * a raw body ("brave HTTP 429", "tavily: connection refused"). `cause` is for logs only.
 * `kind` classifies it; `configuration` marks failures the operator must fix (a SearXNG without
 * JSON output). An `http` kind with a status reports the status's class (`failure`).
 */
export class ProviderError extends Error {
  readonly providerId: string;
  readonly reason: string;
  readonly kind: Exclude<ProviderFailure, "auth" | "rate_limited" | "server_error" | "internal">;
  readonly status?: number;

  constructor(
    providerId: string,
    kind: ProviderError["kind"],
    reason: string,
    options: { cause?: unknown; status?: number } = {},
  ) {
    super(`${providerId}: ${reason}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ProviderError";
    this.providerId = providerId;
    this.kind = kind;
    this.reason = reason;
    if (options.status !== undefined) this.status = options.status;
  }

  /** The class reported on every surface. */
  get failure(): ProviderFailure {
    return this.kind === "http" && this.status !== undefined ? httpFailure(this.status) : this.kind;
  }
}
