/**
 * Streamable HTTP settings, resolved once from the environment (deployment platforms set env,
 * not flags) with the other settings (`Settings.http`). Refusing to start is a decision made
 * here, with the reason in the error message.
 */
import { EvidentError } from "../core/errors.js";
import {
  HTTP_BODY_READ_TIMEOUT_MS,
  HTTP_DEFAULT_HOST,
  HTTP_DEFAULT_PORT,
  HTTP_HEADERS_TIMEOUT_MS,
  HTTP_KEEP_ALIVE_TIMEOUT_MS,
  HTTP_MAX_BODY_BYTES,
  HTTP_MAX_CONCURRENT_REQUESTS,
  HTTP_MAX_CONNECTIONS,
  HTTP_MAX_CONNECTIONS_PER_CLIENT,
  HTTP_MIN_TOKEN_CHARS,
  HTTP_SHUTDOWN_GRACE_MS,
  HTTP_SHUTDOWN_QUIET_MS,
} from "../core/limits.js";
import { envList, envValue } from "./env.js";

export interface HttpSettings {
  readonly host: string;
  readonly port: number;
  /**
   * Accepted bearer tokens (EVIDENT_AUTH_TOKEN, then each of EVIDENT_AUTH_TOKENS): each one is a
   * caller of its own. Empty only when the operator chose anonymous access.
   */
  readonly tokens: readonly string[];
  /** Host header names accepted (lower-case, port-less); undefined accepts any host. */
  readonly allowedHosts: readonly string[] | undefined;
  /** Exact origins accepted (`scheme://host[:port]`); `loopback` accepts any loopback origin. */
  readonly allowedOrigins: readonly string[] | "loopback";
  readonly maxBodyBytes: number;
  readonly maxConcurrentRequests: number;
  /** Open connections held at once; more are closed as they arrive. */
  readonly maxConnections: number;
  /** Open connections one client address (an IPv6 /64) holds; more from it are refused. */
  readonly maxConnectionsPerClient: number;
  readonly shutdownGraceMs: number;
  /** See HTTP_SHUTDOWN_QUIET_MS; a setting so tests can lengthen it. */
  readonly shutdownQuietMs: number;
  /** Node server timeouts (limits.ts); settings rather than constants so tests can shorten them. */
  readonly headersTimeoutMs: number;
  readonly bodyReadTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
}

const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]", "::1"];

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return LOOPBACK_HOSTS.includes(h) || /^127(\.\d{1,3}){3}$/.test(h) || h.endsWith(".localhost");
}

function positiveInt(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  fallback: number,
): number {
  const raw = envValue(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new EvidentError("configuration_error", `${name} must be a positive integer, got "${raw}".`, {
      details: { key: name },
    });
  }
  return value;
}

export function resolveHttpSettings(env: Readonly<Record<string, string | undefined>>): HttpSettings {
  const host = envValue(env, "EVIDENT_HTTP_HOST") ?? HTTP_DEFAULT_HOST;
  const portRaw = envValue(env, env.EVIDENT_HTTP_PORT === undefined ? "PORT" : "EVIDENT_HTTP_PORT");
  const port = portRaw === undefined ? HTTP_DEFAULT_PORT : Number(portRaw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new EvidentError(
      "configuration_error",
      `The HTTP port must be an integer 0-65535, got "${portRaw}".`,
      {
        details: { key: env.EVIDENT_HTTP_PORT === undefined ? "PORT" : "EVIDENT_HTTP_PORT" },
      },
    );
  }
  const tokens = resolveTokens(env);
  const loopbackBound = isLoopbackHost(host);
  const hosts = envList(env, "EVIDENT_ALLOWED_HOSTS")?.map((h) => h.toLowerCase());
  const origins = envList(env, "EVIDENT_ALLOWED_ORIGINS");
  return {
    host,
    port,
    tokens,
    allowedHosts: hosts ?? (loopbackBound ? LOOPBACK_HOSTS : undefined),
    allowedOrigins: origins ?? (loopbackBound ? "loopback" : []),
    maxBodyBytes: positiveInt(env, "EVIDENT_HTTP_MAX_BODY_BYTES", HTTP_MAX_BODY_BYTES),
    maxConcurrentRequests: positiveInt(env, "EVIDENT_HTTP_MAX_CONCURRENT", HTTP_MAX_CONCURRENT_REQUESTS),
    maxConnections: positiveInt(env, "EVIDENT_HTTP_MAX_CONNECTIONS", HTTP_MAX_CONNECTIONS),
    maxConnectionsPerClient: positiveInt(
      env,
      "EVIDENT_HTTP_MAX_CONNECTIONS_PER_CLIENT",
      HTTP_MAX_CONNECTIONS_PER_CLIENT,
    ),
    shutdownGraceMs: positiveInt(env, "EVIDENT_HTTP_SHUTDOWN_GRACE_MS", HTTP_SHUTDOWN_GRACE_MS),
    shutdownQuietMs: HTTP_SHUTDOWN_QUIET_MS,
    headersTimeoutMs: HTTP_HEADERS_TIMEOUT_MS,
    bodyReadTimeoutMs: HTTP_BODY_READ_TIMEOUT_MS,
    keepAliveTimeoutMs: HTTP_KEEP_ALIVE_TIMEOUT_MS,
  };
}

/**
 * The accepted tokens, or [] for explicit anonymous access. A token a client could not send as
 * `Authorization: Bearer <token>` (RFC 6750 b64token) is refused here, at startup, rather than
 * locking every client out later: whitespace of any kind (a secret file's trailing newline), or
 * a character outside the token alphabet. The token itself never appears in the message.
 */
function resolveTokens(env: Readonly<Record<string, string | undefined>>): string[] {
  const anonymousRaw = env.EVIDENT_ALLOW_ANONYMOUS;
  if (
    anonymousRaw !== undefined &&
    anonymousRaw !== "" &&
    anonymousRaw !== "true" &&
    anonymousRaw !== "false"
  ) {
    throw configError(
      "EVIDENT_ALLOW_ANONYMOUS",
      `EVIDENT_ALLOW_ANONYMOUS must be true or false, got "${anonymousRaw.slice(0, 20)}".`,
    );
  }
  const single = env.EVIDENT_AUTH_TOKEN ?? "";
  const list = env.EVIDENT_AUTH_TOKENS ?? "";
  if (anonymousRaw === "true") {
    if (single !== "" || list !== "") {
      const which = single !== "" ? "EVIDENT_AUTH_TOKEN" : "EVIDENT_AUTH_TOKENS";
      throw configError(
        which,
        `Refusing to start the HTTP server: EVIDENT_ALLOW_ANONYMOUS=true and ${which} are both set, so it ` +
          `is unclear whether clients must authenticate. Unset ${which} to serve anonymously, or unset ` +
          "EVIDENT_ALLOW_ANONYMOUS to require the token.",
      );
    }
    return [];
  }
  const tokens: string[] = [];
  if (single !== "") tokens.push(checkToken(single, "EVIDENT_AUTH_TOKEN", "EVIDENT_AUTH_TOKEN"));
  if (list !== "") {
    list.split(",").forEach((token, index) => {
      const name = `EVIDENT_AUTH_TOKENS entry ${index + 1}`;
      if (token === "")
        throw configError("EVIDENT_AUTH_TOKENS", `${name} is empty; separate tokens with single commas.`);
      checkToken(token, "EVIDENT_AUTH_TOKENS", name);
      if (tokens.includes(token)) {
        throw configError(
          "EVIDENT_AUTH_TOKENS",
          `${name} repeats a token already accepted; give each client a token of its own.`,
        );
      }
      tokens.push(token);
    });
  }
  if (tokens.length === 0) {
    throw configError(
      "EVIDENT_AUTH_TOKEN",
      "Refusing to start the HTTP server without authentication: set EVIDENT_AUTH_TOKEN to a random " +
        `secret of at least ${HTTP_MIN_TOKEN_CHARS} characters (for example \`openssl rand -hex 32\`), ` +
        "EVIDENT_AUTH_TOKENS to one such token per client (comma-separated), or " +
        "EVIDENT_ALLOW_ANONYMOUS=true on a trusted network.",
    );
  }
  return tokens;
}

/** RFC 6750 `b64token`: what may follow `Bearer ` in an Authorization header. */
export const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

function checkToken(token: string, key: string, name: string): string {
  if (/\s/.test(token)) {
    const where = /\s$/.test(token)
      ? "ends with whitespace (a newline kept from a secret file?)"
      : "contains whitespace";
    throw configError(
      key,
      `Refusing to start the HTTP server: ${name} ${where}, which no client can send in an ` +
        "Authorization header. Remove it (for example `tr -d '\\n'`).",
    );
  }
  if (!BEARER_TOKEN.test(token)) {
    throw configError(
      key,
      `Refusing to start the HTTP server: ${name} has a character a bearer token cannot carry; use ` +
        "letters, digits and - . _ ~ + / (for example `openssl rand -hex 32`).",
    );
  }
  if (token.length < HTTP_MIN_TOKEN_CHARS) {
    throw configError(
      key,
      `Refusing to start the HTTP server: ${name} is ${token.length} characters long; use at least ` +
        `${HTTP_MIN_TOKEN_CHARS} random characters (for example \`openssl rand -hex 32\`).`,
    );
  }
  return token;
}

function configError(key: string, message: string): EvidentError {
  return new EvidentError("configuration_error", message, { details: { key } });
}
