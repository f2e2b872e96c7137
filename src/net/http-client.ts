/**
 * The HTTP client contract every provider adapter uses. Providers never call `fetch` directly:
 * the client owns deadlines, cancellation down to the socket, the body-size cap and, for URLs an
 * agent supplied, the public-URL guard at connect time on every redirect hop.
 */
import type { NetworkFailureKind } from "./failure.js";

export interface HttpRequest {
  readonly method: "GET" | "POST" | "DELETE";
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string body is sent as is; an object is sent as JSON with `content-type: application/json`. */
  readonly body?: string | Readonly<Record<string, unknown>>;
  /**
   * `operator`: a URL from configuration (a provider's base URL), trusted, may be on loopback.
   * `agent`: a URL the agent supplied; it must pass the public-URL guard, redirects included.
   */
  readonly trust: "operator" | "agent";
  /** Follow redirects (each hop re-checked for `agent` URLs). Default false for operator URLs. */
  readonly followRedirects?: boolean;
  readonly signal: AbortSignal;
  /** Body cap in bytes; defaults to MAX_RESPONSE_BODY_BYTES. Exceeding it is an error, not a cut. */
  readonly maxBodyBytes?: number;
}

export interface HttpResponse {
  readonly status: number;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The URL finally answered (after redirects). */
  readonly url: string;
  /** The whole body, already read within the cap. */
  readonly body: Uint8Array;
  text(): string;
  /** Parses the body as JSON; throws a SyntaxError on malformed JSON. */
  json(): unknown;
}

export interface HttpClient {
  request(request: HttpRequest): Promise<HttpResponse>;
  /**
   * The same exchange as `request` (trust, redirects, guard, cancellation), answered as a
   * web-standard Response whose body streams as it arrives: for protocol clients that read an
   * answer while it is sent (an upstream MCP server's event stream). The body cap still holds:
   * a longer body errors the stream with `body_too_large`, it is never cut silently. Its `url`
   * is the URL finally answered (after redirects).
   */
  stream(request: HttpRequest): Promise<Response>;
  close(): Promise<void>;
}

/**
 * A request failed below HTTP semantics. Guard refusals are `url_not_allowed` EvidentErrors and
 * aborts are the signal's reason (`cancelled` / `deadline_exceeded` EvidentErrors), so
 * adapters can tell "the page was refused" and "time ran out" from these transport failures.
 * `message` is safe to show (fixed words: no host, URL or body).
 */
export class HttpClientError extends Error {
  /**
   * A network failure class (see net/failure.ts), or a body over the cap, or a response head over
   * its cap, or an answer that is not valid HTTP, or a bad redirect, or a body in a content
   * encoding that cannot be decoded.
   */
  readonly kind:
    | NetworkFailureKind
    | "body_too_large"
    | "headers_too_large"
    | "malformed_response"
    | "redirect"
    | "encoding";
  /** The underlying error code (ENOTFOUND, ECONNREFUSED...), for logs. */
  readonly code?: string;

  constructor(
    kind: HttpClientError["kind"],
    message: string,
    options: { cause?: unknown; code?: string } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "HttpClientError";
    this.kind = kind;
    if (options.code !== undefined) this.code = options.code;
  }
}

/** A body over its cap: the one failure every reader of a capped body throws. */
export function bodyTooLarge(cap: number): HttpClientError {
  return new HttpClientError("body_too_large", `the response body exceeds ${cap} bytes`);
}
