/**
 * Streamable HTTP settings, resolved once from the environment (deployment platforms set env,
 * not flags). Refusing to start is a decision made here, with the reason in the error message.
 */
import { EvidentError } from "../../core/errors.js";
import {
  HTTP_DEFAULT_HOST,
  HTTP_DEFAULT_PORT,
  HTTP_MAX_BODY_BYTES,
  HTTP_MAX_CONCURRENT_REQUESTS,
  HTTP_MIN_TOKEN_CHARS,
  HTTP_SHUTDOWN_GRACE_MS,
} from "../../core/limits.js";

export interface HttpSettings {
  readonly host: string;
  readonly port: number;
  /** The bearer token, or undefined when the operator chose anonymous access. */
  readonly token: string | undefined;
  /** Host header names accepted (lower-case, port-less); undefined accepts any host. */
  readonly allowedHosts: readonly string[] | undefined;
  /** Exact origins accepted (`scheme://host[:port]`); `loopback` accepts any loopback origin. */
  readonly allowedOrigins: readonly string[] | "loopback";
  readonly maxBodyBytes: number;
  readonly maxConcurrentRequests: number;
  readonly shutdownGraceMs: number;
}

const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]", "::1"];

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return LOOPBACK_HOSTS.includes(h) || /^127(\.\d{1,3}){3}$/.test(h) || h.endsWith(".localhost");
}

function list(value: string | undefined): string[] | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  return value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

function positiveInt(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  fallback: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new EvidentError("configuration_error", `${name} must be a positive integer, got "${raw}".`, {
      details: { key: name },
    });
  }
  return value;
}

export function resolveHttpSettings(env: Readonly<Record<string, string | undefined>>): HttpSettings {
  const host = env.EVIDENT_HTTP_HOST?.trim() || HTTP_DEFAULT_HOST;
  const portRaw = env.EVIDENT_HTTP_PORT ?? env.PORT;
  const port = portRaw === undefined || portRaw === "" ? HTTP_DEFAULT_PORT : Number(portRaw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new EvidentError(
      "configuration_error",
      `The HTTP port must be an integer 0-65535, got "${portRaw}".`,
      {
        details: { key: env.EVIDENT_HTTP_PORT === undefined ? "PORT" : "EVIDENT_HTTP_PORT" },
      },
    );
  }
  const anonymous = env.EVIDENT_ALLOW_ANONYMOUS === "true";
  const token = env.EVIDENT_AUTH_TOKEN;
  if (!anonymous) {
    if (token === undefined || token === "") {
      throw new EvidentError(
        "configuration_error",
        "Refusing to start the HTTP server without authentication: set EVIDENT_AUTH_TOKEN to a random " +
          `secret of at least ${HTTP_MIN_TOKEN_CHARS} characters (for example \`openssl rand -hex 32\`), ` +
          "or set EVIDENT_ALLOW_ANONYMOUS=true on a trusted network.",
        { details: { key: "EVIDENT_AUTH_TOKEN" } },
      );
    }
    if (token.length < HTTP_MIN_TOKEN_CHARS) {
      throw new EvidentError(
        "configuration_error",
        `Refusing to start the HTTP server: EVIDENT_AUTH_TOKEN is ${token.length} characters long; ` +
          `use at least ${HTTP_MIN_TOKEN_CHARS} random characters (for example \`openssl rand -hex 32\`).`,
        { details: { key: "EVIDENT_AUTH_TOKEN" } },
      );
    }
  }
  const loopbackBound = isLoopbackHost(host);
  const hosts = list(env.EVIDENT_ALLOWED_HOSTS)?.map((h) => h.toLowerCase());
  const origins = list(env.EVIDENT_ALLOWED_ORIGINS);
  return {
    host,
    port,
    token: anonymous ? undefined : token,
    allowedHosts: hosts ?? (loopbackBound ? LOOPBACK_HOSTS : undefined),
    allowedOrigins: origins ?? (loopbackBound ? "loopback" : []),
    maxBodyBytes: positiveInt(env, "EVIDENT_HTTP_MAX_BODY_BYTES", HTTP_MAX_BODY_BYTES),
    maxConcurrentRequests: positiveInt(env, "EVIDENT_HTTP_MAX_CONCURRENT", HTTP_MAX_CONCURRENT_REQUESTS),
    shutdownGraceMs: positiveInt(env, "EVIDENT_HTTP_SHUTDOWN_GRACE_MS", HTTP_SHUTDOWN_GRACE_MS),
  };
}
