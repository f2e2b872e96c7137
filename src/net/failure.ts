/**
 * Why a request failed below HTTP, in classes a person can act on: DNS, refused, reset, TLS,
 * proxy, timeout. Read from the error codes Node and undici attach (ENOTFOUND, ECONNREFUSED,
 * CERT_HAS_EXPIRED, UND_ERR_CONNECT_TIMEOUT...), anywhere in the cause chain. The detail is
 * fixed words only (never a host, URL or body); the underlying code is kept for debug logs.
 */

/** The classes, in the order every surface lists them (web/'s provider failures start with them). */
export const NETWORK_FAILURE_KINDS = [
  "dns",
  "connection_refused",
  "connection_reset",
  "tls",
  "proxy",
  "timeout",
  "network",
] as const;
export type NetworkFailureKind = (typeof NETWORK_FAILURE_KINDS)[number];

export interface NetworkFailure {
  readonly kind: NetworkFailureKind;
  /** Fixed words, safe to show: "DNS lookup failed", "connection refused"... */
  readonly detail: string;
  /** The underlying error code (ENOTFOUND, ECONNREFUSED...), for logs. */
  readonly code?: string;
}

const DNS = new Set([
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_FAIL",
  "EAI_NONAME",
  "EAI_NODATA",
  "ENODATA",
  "ESERVFAIL",
]);
const REFUSED = new Set(["ECONNREFUSED"]);
const RESET = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);
const TIMEOUT = new Set([
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);
const UNREACHABLE = new Set(["EHOSTUNREACH", "ENETUNREACH", "EHOSTDOWN", "ENETDOWN"]);

/**
 * Classifies a transport error. `proxied`: the request went through an HTTP proxy, so a failed
 * lookup or connection can only be the proxy's (the target is resolved and reached by it).
 */
export function classifyNetworkError(thrown: unknown, proxied = false): NetworkFailure {
  const chain = errorChain(thrown);
  const code = chain.map((error) => stringCode(error)).find((c) => c !== undefined);
  const tunnel = chain
    .map((error) => /^Proxy response \((\d{3})\)/.exec(messageOf(error))?.[1])
    .find((status) => status !== undefined);
  if (tunnel !== undefined)
    return { kind: "proxy", detail: `proxy refused the tunnel (HTTP ${tunnel})`, ...withCode(code) };
  if (chain.some((error) => /Proxy Authentication Required/i.test(messageOf(error))))
    return { kind: "proxy", detail: "proxy refused the tunnel (HTTP 407)", ...withCode(code) };
  if (code === "UND_ERR_PRX_TLS") return { kind: "proxy", detail: "proxy TLS error", code };
  if (code === undefined) return { kind: "network", detail: "network error" };
  if (proxied && (DNS.has(code) || REFUSED.has(code) || UNREACHABLE.has(code)))
    return { kind: "proxy", detail: `proxy could not be reached (${plain(code)})`, code };
  if (DNS.has(code)) return { kind: "dns", detail: "DNS lookup failed", code };
  if (REFUSED.has(code)) return { kind: "connection_refused", detail: "connection refused", code };
  if (RESET.has(code)) return { kind: "connection_reset", detail: "connection reset", code };
  if (TIMEOUT.has(code)) return { kind: "timeout", detail: "connection timed out", code };
  if (isCertificateCode(code)) return { kind: "tls", detail: "TLS certificate error", code };
  if (code === "EPROTO" || code.startsWith("ERR_SSL_") || code.startsWith("ERR_TLS_"))
    return { kind: "tls", detail: "TLS handshake failed", code };
  if (UNREACHABLE.has(code)) return { kind: "network", detail: "host or network unreachable", code };
  return { kind: "network", detail: "network error", code };
}

/** What the server sent that HTTP cannot carry: the server's fault, not the network's. */
export interface ResponseFailure {
  readonly kind: "headers_too_large" | "malformed_response";
  /** Fixed words, safe to show. */
  readonly detail: string;
  readonly code?: string;
}

/**
 * Classifies a failure caused by the answer itself, or undefined when there is none: a head over
 * `maxHeaderBytes` (undici's UND_ERR_HEADERS_OVERFLOW), bytes its HTTP/1.1 parser refuses (an
 * HTTPParserError, HPE_* codes), a body that contradicts its Content-Length. Told as "network
 * error", these sent people to check a network that was fine.
 */
export function classifyResponseError(thrown: unknown, maxHeaderBytes: number): ResponseFailure | undefined {
  const chain = errorChain(thrown);
  const codes = chain.map((error) => stringCode(error)).filter((code) => code !== undefined);
  if (codes.includes("UND_ERR_HEADERS_OVERFLOW")) {
    return {
      kind: "headers_too_large",
      detail: `the response headers exceed ${sizeWords(maxHeaderBytes)}`,
      code: "UND_ERR_HEADERS_OVERFLOW",
    };
  }
  const parser = chain.find(
    (error) =>
      (error instanceof Error && error.name === "HTTPParserError") || /^HPE_/.test(stringCode(error) ?? ""),
  );
  if (parser !== undefined) {
    return {
      kind: "malformed_response",
      detail: "the server's response is not valid HTTP",
      ...withCode(stringCode(parser)),
    };
  }
  if (codes.includes("UND_ERR_RES_CONTENT_LENGTH_MISMATCH")) {
    return {
      kind: "malformed_response",
      detail: "the response body does not match its Content-Length",
      code: "UND_ERR_RES_CONTENT_LENGTH_MISMATCH",
    };
  }
  return undefined;
}

function sizeWords(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

const NETWORK_KINDS: ReadonlySet<string> = new Set(NETWORK_FAILURE_KINDS);

const DOCTOR = "`evident doctor` shows the proxy in use and probes each provider.";

/**
 * The next step after a network failure, in fixed words, or undefined when none of `kinds` is
 * one: the same sentence wherever such a failure is told (web_search, web_read, a page whose
 * host did not resolve), so an agent with no network learns what to do from any of them.
 */
export function networkNextStep(kinds: Iterable<string>): string | undefined {
  const seen = new Set([...kinds].filter((kind) => NETWORK_KINDS.has(kind)));
  if (seen.size === 0) return undefined;
  if (seen.has("proxy")) {
    return (
      "Next step: check the proxy that HTTPS_PROXY / HTTP_PROXY name (its address, and credentials " +
      `as http://user:pass@host:port) and NO_PROXY (hosts reached directly). ${DOCTOR}`
    );
  }
  const tls = seen.size === 1 && seen.has("tls");
  return (
    (tls
      ? "Next step: if a proxy or firewall on this network re-signs TLS, point NODE_EXTRA_CA_CERTS at its certificate; "
      : "Next step: check this machine's network connection and DNS; ") +
    "if it reaches the web only through a proxy, set HTTPS_PROXY and HTTP_PROXY to the proxy's URL " +
    `(NO_PROXY lists hosts reached directly). ${DOCTOR}`
  );
}

function isCertificateCode(code: string): boolean {
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ALTNAME|HOSTNAME_MISMATCH/.test(code);
}

function plain(code: string): string {
  if (DNS.has(code)) return "DNS lookup failed";
  if (REFUSED.has(code)) return "connection refused";
  return "unreachable";
}

function withCode(code: string | undefined): { code?: string } {
  return code === undefined ? {} : { code };
}

/** A system or library error code (ENOTFOUND, UND_ERR_SOCKET); our own snake_case codes are not. */
function stringCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[A-Z][A-Z0-9_]+$/.test(code) ? code : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : "";
}

/** The error, its causes and (for AggregateError, as from happy-eyeballs connects) its members. */
export function errorChain(thrown: unknown): unknown[] {
  const chain: unknown[] = [];
  const queue: unknown[] = [thrown];
  while (queue.length > 0 && chain.length < 16) {
    const current = queue.shift();
    if (current === undefined || current === null || chain.includes(current)) continue;
    chain.push(current);
    queue.push((current as { cause?: unknown }).cause);
    if (current instanceof AggregateError) queue.push(...current.errors);
  }
  return chain;
}

/** The first error code in the chain, for debug logs ("ENOTFOUND"). */
export function underlyingCode(thrown: unknown): string | undefined {
  return errorChain(thrown)
    .map((error) => stringCode(error))
    .find((code) => code !== undefined);
}
