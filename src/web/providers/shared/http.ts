/**
 * What vendor HTTP answers and failures become: URLs joined to an operator-configured base, every
 * way a call can go wrong (transport, status, body) turned into a ProviderError whose `reason` is
 * safe to show an agent. `define.ts` sends through `context.http` (never `fetch`) and uses these.
 *
 * Reasons are built from the provider id and fixed words only: never from a vendor's body, a
 * header or a URL (which may carry a key). What the vendor actually said stays in `cause`, for
 * logs.
 */
import { abortReason } from "../../../core/abort.js";
import { isEvidentError } from "../../../core/errors.js";
import { MAX_RESPONSE_BODY_BYTES } from "../../../core/limits.js";
import { HttpClientError, type HttpResponse } from "../../../net/http-client.js";
import { ProviderError } from "../../provider.js";

/** Joins a configured base URL (with or without a path prefix or trailing slash) and a path. */
export function joinUrl(baseUrl: string, path: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return path.length === 0 ? base : `${base}${path.startsWith("/") ? path : `/${path}`}`;
}

/** Appends query parameters, skipping undefined values. */
export function withQuery(url: string, params: Readonly<Record<string, string | undefined>>): string {
  const parsed = new URL(url);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) parsed.searchParams.set(key, value);
  }
  return parsed.toString();
}

/** The sanitized failure for a non-2xx answer: "<id> HTTP <status>". */
export function httpStatusError(providerId: string, response: HttpResponse): ProviderError {
  return new ProviderError(providerId, "http", `${providerId} HTTP ${response.status}`, {
    status: response.status,
  });
}

/** Maps anything the HTTP client threw to a sanitized ProviderError. */
export function transportError(providerId: string, signal: AbortSignal, thrown: unknown): ProviderError {
  if (thrown instanceof ProviderError) return thrown;
  // The signal knows best why we stopped: the router's attempt deadline or the caller.
  const code = signal.aborted
    ? abortReason(signal).code
    : isEvidentError(thrown)
      ? thrown.code
      : isAbortError(thrown)
        ? "cancelled"
        : undefined;
  if (code === "deadline_exceeded") {
    return new ProviderError(providerId, "timeout", `${providerId} did not answer within the deadline`, {
      cause: thrown,
    });
  }
  if (code === "cancelled") {
    return new ProviderError(providerId, "cancelled", `${providerId} request was cancelled`, {
      cause: thrown,
    });
  }
  if (isEvidentError(thrown) && thrown.code === "url_not_allowed") {
    return new ProviderError(providerId, "configuration", `${providerId} base URL was refused`, {
      cause: thrown,
    });
  }
  return clientFailure(providerId, thrown);
}

/**
 * An HTTP client failure as a ProviderError of its class: `tavily: connection refused`,
 * `duckduckgo: DNS lookup failed`, `exa: TLS certificate error`. The client's message is fixed
 * words (net/failure.ts), never a host or body.
 */
export function clientFailure(providerId: string, thrown: unknown): ProviderError {
  if (thrown instanceof HttpClientError) {
    if (thrown.kind === "body_too_large") {
      return new ProviderError(
        providerId,
        "too_large",
        `${providerId} response exceeded ${MAX_RESPONSE_BODY_BYTES / (1024 * 1024)} MiB`,
        { cause: thrown },
      );
    }
    if (thrown.kind === "headers_too_large") {
      return new ProviderError(providerId, "too_large", `${providerId}: ${thrown.message}`, {
        cause: thrown,
      });
    }
    if (thrown.kind === "malformed_response") {
      return new ProviderError(providerId, "malformed", `${providerId}: ${thrown.message}`, {
        cause: thrown,
      });
    }
    if (thrown.kind === "redirect" || thrown.kind === "encoding") {
      return new ProviderError(providerId, "upstream", `${providerId}: ${thrown.message}`, { cause: thrown });
    }
    return new ProviderError(providerId, thrown.kind, `${providerId}: ${thrown.message}`, { cause: thrown });
  }
  return new ProviderError(providerId, "network", `${providerId}: network error`, { cause: thrown });
}

function isAbortError(thrown: unknown): boolean {
  return thrown instanceof Error && (thrown.name === "AbortError" || thrown.name === "TimeoutError");
}

/** A 2xx answer parsed as JSON; an undecodable body, HTML or broken JSON is `malformed`. */
export function parseJson(providerId: string, response: HttpResponse): unknown {
  let body: string;
  try {
    body = response.text();
  } catch (cause) {
    throw new ProviderError(providerId, "malformed", `${providerId} returned an undecodable body`, { cause });
  }
  if (looksLikeHtml(response, body)) {
    throw new ProviderError(providerId, "malformed", `${providerId} returned HTML instead of JSON`);
  }
  try {
    return JSON.parse(body) as unknown;
  } catch (cause) {
    throw new ProviderError(providerId, "malformed", `${providerId} returned malformed JSON`, { cause });
  }
}

function looksLikeHtml(response: HttpResponse, body: string): boolean {
  const type = response.headers["content-type"] ?? "";
  if (/\bhtml\b/i.test(type)) return true;
  return /^\s*</.test(body);
}

/** The failure for a 2xx answer whose JSON does not have the documented shape. */
export function unexpectedShape(providerId: string, what = "an unexpected JSON shape"): ProviderError {
  return new ProviderError(providerId, "malformed", `${providerId} returned ${what}`);
}
