/**
 * The Streamable HTTP endpoint as one web-standard function, `Request -> Response`, so that
 * serverless hosts can mount it as is and the Node server is a thin wrapper around it.
 *
 * Order of checks: route, Host/Origin (DNS rebinding), bearer token, concurrency, body size;
 * only then does the SDK see the request. Serving is stateless: every request gets a fresh
 * server instance from the shared factory, so any replica can answer any request, for current
 * (2026-07-28) and 2025-era clients alike.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { createMcpHandler } from "@modelcontextprotocol/server";
import type { ErrorCode } from "../../core/errors.js";
import { HTTP_RETRY_AFTER_SECONDS } from "../../core/limits.js";
import type { Logger } from "../../core/logger.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { PACKAGE_VERSION } from "../version.js";
import { CallCancellations } from "./cancellations.js";
import type { HttpSettings } from "./http-config.js";
import { isLoopbackHost } from "./http-config.js";
import { createMcpServer } from "./server.js";

export interface HttpHandlerOptions {
  readonly registry: ToolRegistry;
  readonly logger: Logger;
  readonly settings: Pick<
    HttpSettings,
    "token" | "allowedHosts" | "allowedOrigins" | "maxBodyBytes" | "maxConcurrentRequests"
  >;
}

export interface HttpHandler {
  readonly fetch: (request: Request) => Promise<Response>;
  /** Requests currently being served (bodies still streaming included). */
  inFlight(): number;
  /** Resolves once no request is in flight. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const MCP_PATH = "/mcp";
const HEALTH_PATH = "/healthz";

export function createHttpHandler(options: HttpHandlerOptions): HttpHandler {
  const { registry, logger, settings } = options;
  const expectedDigest = settings.token === undefined ? undefined : sha256(settings.token);
  const cancellations = new CallCancellations();
  const mcp = createMcpHandler(
    (ctx) => createMcpServer({ registry, logger, cancellations }, { caller: callerOf(ctx.authInfo?.token) }),
    { onerror: (error) => logger.debug("mcp http exchange error", { error: error.message }) },
  );
  let inFlight = 0;
  let idleWaiters: Array<() => void> = [];
  const release = () => {
    inFlight -= 1;
    if (inFlight === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const wake of waiters) wake();
    }
  };

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === HEALTH_PATH) {
      if (request.method !== "GET" && request.method !== "HEAD") return methodNotAllowed("GET");
      // Public and provider-free: platforms probe it without credentials.
      return json(200, { status: "ok", version: PACKAGE_VERSION });
    }
    if (url.pathname !== MCP_PATH)
      return errorResponse(404, "invalid_arguments", `No route ${url.pathname}.`);

    const hostProblem = checkHost(request, settings.allowedHosts);
    if (hostProblem !== undefined) return errorResponse(403, "forbidden", hostProblem);
    const originProblem = checkOrigin(request, settings.allowedOrigins);
    if (originProblem !== undefined) return errorResponse(403, "forbidden", originProblem);

    let token: string | undefined;
    if (expectedDigest !== undefined) {
      token = bearerToken(request);
      if (token === undefined || !timingSafeEqual(sha256(token), expectedDigest)) {
        const response = errorResponse(
          401,
          "unauthorized",
          token === undefined ? "Missing bearer token." : "Invalid bearer token.",
        );
        response.headers.set("www-authenticate", 'Bearer realm="evident"');
        return response;
      }
    }

    if (inFlight >= settings.maxConcurrentRequests) {
      const response = errorResponse(503, "overloaded", "Too many concurrent requests; retry shortly.");
      response.headers.set("retry-after", String(HTTP_RETRY_AFTER_SECONDS));
      return response;
    }
    inFlight += 1;
    let released = false;
    const releaseOnce = () => {
      if (!released) {
        released = true;
        release();
      }
    };
    try {
      const bounded = await boundBody(request, settings.maxBodyBytes);
      if (bounded instanceof Response) {
        releaseOnce();
        return bounded;
      }
      routeCancellation(bounded.bodyBytes, request.signal, callerOf(token), cancellations);
      const response = await mcp.fetch(
        bounded,
        token === undefined ? {} : { authInfo: { token, clientId: callerOf(token), scopes: [] } },
      );
      return trackBody(response, releaseOnce);
    } catch (error) {
      releaseOnce();
      logger.error("mcp http request failed", {
        error: error instanceof Error ? error.message : String(error),
      });
      return errorResponse(500, "internal_error", "Internal error.");
    }
  }

  return {
    fetch: handle,
    inFlight: () => inFlight,
    idle: () =>
      inFlight === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            idleWaiters.push(resolve);
          }),
    close: () => mcp.close(),
  };
}

/**
 * Reaches a running call from outside its server instance: a `notifications/cancelled` from the
 * same caller aborts the call it names, and a `tools/call` whose HTTP request goes away (client
 * disconnect) is aborted too.
 */
function routeCancellation(
  body: Buffer | undefined,
  requestSignal: AbortSignal,
  caller: string,
  cancellations: CallCancellations,
): void {
  if (body === undefined || body.length === 0) return;
  let message: unknown;
  try {
    message = JSON.parse(body.toString("utf8"));
  } catch {
    return; // the SDK answers malformed JSON itself
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) return;
  const { method, id, params } = message as {
    method?: unknown;
    id?: unknown;
    params?: { requestId?: unknown };
  };
  if (method === "notifications/cancelled") {
    const requestId = params?.requestId;
    if (typeof requestId === "string" || typeof requestId === "number") {
      cancellations.cancel(CallCancellations.key(caller, requestId));
    }
  } else if (method === "tools/call" && (typeof id === "string" || typeof id === "number")) {
    requestSignal.addEventListener("abort", () => cancellations.cancel(CallCancellations.key(caller, id)), {
      once: true,
    });
  }
}

/** The caller key for cursor binding: a digest of the credential, never the credential. */
export function callerOf(token: string | undefined): string {
  return token === undefined ? "http:anonymous" : `http:${sha256(token).subarray(0, 16).toString("hex")}`;
}

function sha256(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

function bearerToken(request: Request): string | undefined {
  const header = request.headers.get("authorization");
  if (header === null) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function hostnameOf(hostHeader: string): string {
  // "[::1]:8787" -> "[::1]", "example.com:80" -> "example.com"
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1).toLowerCase();
  return hostHeader.split(":")[0]?.toLowerCase() ?? "";
}

function checkHost(request: Request, allowed: readonly string[] | undefined): string | undefined {
  if (allowed === undefined) return undefined;
  // Web-standard runtimes keep the authority in the URL rather than a Host header.
  const header = request.headers.get("host") ?? new URL(request.url).host;
  if (header === "") return "Missing Host header.";
  const hostname = hostnameOf(header);
  if (allowed.includes(hostname)) return undefined;
  return `Host "${hostname}" is not allowed; set EVIDENT_ALLOWED_HOSTS to accept it.`;
}

function checkOrigin(request: Request, allowed: readonly string[] | "loopback"): string | undefined {
  const origin = request.headers.get("origin");
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
 * Reads the body within the cap and returns a request the SDK can read again, or a 413.
 * The declared length is checked first so an honest oversize request is refused unread.
 */
async function boundBody(
  request: Request,
  maxBytes: number,
): Promise<(Request & { readonly bodyBytes?: Buffer }) | Response> {
  if (request.method !== "POST" || request.body === null) return request;
  const tooLarge = () => errorResponse(413, "payload_too_large", `Request body exceeds ${maxBytes} bytes.`);
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) return tooLarge();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return tooLarge();
    }
    chunks.push(value);
  }
  const bodyBytes = Buffer.concat(chunks);
  const copy = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: bodyBytes,
    signal: request.signal,
  });
  return Object.assign(copy, { bodyBytes });
}

/** Keeps the request counted until its response body (JSON or SSE) has been fully sent. */
function trackBody(response: Response, done: () => void): Response {
  if (response.body === null) {
    done();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: finished, value } = await reader.read();
        if (finished) {
          controller.close();
          done();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        done();
        controller.error(error);
      }
    },
    async cancel(reason) {
      done();
      await reader.cancel(reason).catch(() => {});
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

function json(status: number, value: unknown): Response {
  return new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
}

function errorResponse(status: number, code: ErrorCode, message: string): Response {
  return json(status, { error: { code, message } });
}

function methodNotAllowed(allow: string): Response {
  const response = errorResponse(405, "invalid_arguments", "Method not allowed.");
  response.headers.set("allow", allow);
  return response;
}
