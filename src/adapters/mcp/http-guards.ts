/**
 * What the HTTP handler checks of a request's headers before anything else: the Host and Origin
 * (DNS rebinding), the bearer token (digests compared in constant time; the caller key derived
 * from it), and the CORS headers an accepted Origin gets. Pure functions of headers and settings.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { isIPv6 } from "node:net";
import { BEARER_TOKEN, isLoopbackHost } from "../../config/http.js";
import { HTTP_CORS_MAX_AGE_SECONDS } from "../../core/limits.js";

/** Request headers a browser client may send (MCP's own, and what the SDK client sets). */
const CORS_ALLOW_HEADERS =
  "authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id, mcp-method, mcp-name";
/** Response headers a browser client may read. */
const CORS_EXPOSE_HEADERS =
  "mcp-session-id, mcp-protocol-version, www-authenticate, retry-after, x-request-id";

/** What each accepted token is compared as: its SHA-256 digest. */
export function tokenDigests(tokens: readonly string[]): Buffer[] {
  return tokens.map(sha256);
}

/**
 * The caller an `Authorization` header proves against the accepted digests, or why it proves
 * none. One digest per request: compared in constant time, and its prefix names the caller.
 */
export function authenticate(
  header: string | null,
  accepted: readonly Buffer[],
): { readonly caller: string; readonly token: string } | { readonly problem: string } {
  const credential = bearerToken(header);
  if (typeof credential !== "string") return credential;
  const digest = sha256(credential);
  if (!matchesAny(digest, accepted)) return { problem: "Invalid bearer token." };
  return { caller: callerFromDigest(digest), token: credential };
}

/** The caller key for cursor binding: a digest of the credential, never the credential. */
export function callerOf(token: string | undefined): string {
  return token === undefined ? "http:anonymous" : callerFromDigest(sha256(token));
}

function callerFromDigest(digest: Buffer): string {
  return `http:${digest.subarray(0, 16).toString("hex")}`;
}

/** Compares against every accepted digest, without stopping at a match, in constant time each. */
function matchesAny(digest: Buffer, accepted: readonly Buffer[]): boolean {
  let found = false;
  for (const candidate of accepted) found = timingSafeEqual(digest, candidate) || found;
  return found;
}

function sha256(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

/**
 * The token of an `Authorization: Bearer <token>` header, or why there is none. Each wrong shape
 * names its cause; no message quotes the header, which may hold a secret.
 */
function bearerToken(header: string | null): string | { readonly problem: string } {
  if (header === null || header.trim() === "") return { problem: "Missing bearer token." };
  const [scheme = "", ...rest] = header.trim().split(/[ \t]+/);
  if (scheme.toLowerCase() !== "bearer") {
    return { problem: "Malformed Authorization header: it must use the Bearer scheme (Bearer <token>)." };
  }
  if (rest.length === 0)
    return { problem: "Malformed Authorization header: Bearer is not followed by a token." };
  if (rest.length > 1) {
    return {
      problem:
        "Malformed Authorization header: more than one value follows Bearer; send Bearer <token> alone.",
    };
  }
  const token = rest[0] as string;
  if (!BEARER_TOKEN.test(token)) {
    return {
      problem: "Malformed Authorization header: the token has a character a bearer token cannot carry.",
    };
  }
  return token;
}

/** A DNS name or IPv4 address (labels of letters, digits, `-` and `_`), then an optional port. */
const NAME_HOST = /^((?:[a-z0-9_-]+\.)*[a-z0-9_-]+\.?)(?::(\d{1,5}))?$/i;
/** A bracketed IPv6 literal, then an optional port. */
const IPV6_HOST = /^(\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/i;

/**
 * The host of a Host header (lower case; IPv6 in brackets), or undefined when the header is not
 * exactly a host and an optional port (RFC 9110 section 7.2): "[::1]:8787" is "[::1]",
 * "example.com:80" is "example.com", and "[::1]evil.com" or "localhost:80@evil.com" is nothing.
 */
function hostnameOf(hostHeader: string): string | undefined {
  const match = IPV6_HOST.exec(hostHeader) ?? NAME_HOST.exec(hostHeader);
  if (match === null) return undefined;
  const [, host = "", port] = match;
  if (port !== undefined && Number(port) > 65_535) return undefined;
  if (host.startsWith("[") && !isIPv6(host.slice(1, -1))) return undefined;
  return host.toLowerCase();
}

export function checkHost(header: string, allowed: readonly string[] | undefined): string | undefined {
  if (header === "") return allowed === undefined ? undefined : "Missing Host header.";
  const hostname = hostnameOf(header);
  // Refused even where any host is allowed: no client sends it, and a proxy or log downstream
  // must not read a host out of it that this check never saw.
  if (hostname === undefined)
    return "Malformed Host header: expected a host name or IP address and an optional port.";
  if (allowed === undefined || allowed.includes(hostname)) return undefined;
  return `Host "${hostname}" is not allowed; set EVIDENT_ALLOWED_HOSTS to accept it.`;
}

export function checkOrigin(
  origin: string | null,
  allowed: readonly string[] | "loopback",
): string | undefined {
  if (origin === null) return undefined; // non-browser MCP clients send none
  if (allowed === "loopback") {
    try {
      if (isLoopbackHost(new URL(origin).hostname)) return undefined;
    } catch {
      return "Malformed Origin header.";
    }
  } else if (allowed.includes(origin) || allowed.includes("*")) {
    return undefined;
  }
  return `Origin "${origin}" is not allowed; set EVIDENT_ALLOWED_ORIGINS to accept it.`;
}

/**
 * An accepted Origin may read the response: it is named (never `*`, so a listed origin is all
 * that is granted) and caches vary by it. Without an Origin nothing is added.
 */
export function withCors(response: Response, origin: string | null): Response {
  if (origin === null) return response;
  response.headers.set("access-control-allow-origin", origin);
  response.headers.set("access-control-expose-headers", CORS_EXPOSE_HEADERS);
  response.headers.append("vary", "Origin");
  return response;
}

/** The answer to `OPTIONS /mcp`: a CORS preflight when an Origin asks, else what is allowed. */
export function preflight(origin: string | null): Response {
  const headers = new Headers({ allow: "POST, OPTIONS" });
  if (origin !== null) {
    headers.set("access-control-allow-methods", "POST, OPTIONS");
    headers.set("access-control-allow-headers", CORS_ALLOW_HEADERS);
    headers.set("access-control-max-age", String(HTTP_CORS_MAX_AGE_SECONDS));
  }
  return new Response(null, { status: 204, headers });
}
