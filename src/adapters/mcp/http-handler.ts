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
  /** Carry structured results too (see McpServerOptions.structured). */
  readonly structured?: boolean;
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

/** A request that passed every header-level check and holds a concurrency slot. */
export interface Admission {
  /** Caller key derived from the credential (see `callerOf`). */
  readonly caller: string;
  readonly token: string | undefined;
  /** Frees the slot; idempotent. `dispatch` frees it when the response body ends. */
  release(): void;
}

/**
 * The two phases of serving, for hosts that can read the body themselves (the Node server):
 * `admit` decides from the method, path and headers alone, before any body byte is read;
 * `dispatch` serves an admitted request whose body has been read within the cap.
 */
export interface HttpHandlerPhases extends HttpHandler {
  admit(method: string, pathname: string, headers: Headers): Response | Admission;
  dispatch(request: Request, body: Buffer | undefined, admission: Admission): Promise<Response>;
  readonly maxBodyBytes: number;
}

const MCP_PATH = "/mcp";
const HEALTH_PATH = "/healthz";

export function createHttpHandler(options: HttpHandlerOptions): HttpHandlerPhases {
  const { registry, logger, settings } = options;
  const expectedDigest = settings.token === undefined ? undefined : sha256(settings.token);
  const cancellations = new CallCancellations();
  const mcp = createMcpHandler(
    (ctx) =>
      createMcpServer(
        { registry, logger, cancellations, structured: options.structured ?? false },
        { caller: ctx.authInfo?.clientId ?? callerOf(undefined) },
      ),
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

  function admit(method: string, pathname: string, headers: Headers): Response | Admission {
    if (pathname === HEALTH_PATH) {
      if (method !== "GET" && method !== "HEAD") return methodNotAllowed("GET");
      // Public and provider-free: platforms probe it without credentials.
      return json(200, { status: "ok", version: PACKAGE_VERSION });
    }
    if (pathname !== MCP_PATH) return errorResponse(404, "invalid_arguments", `No route ${pathname}.`);

    const hostProblem = checkHost(headers.get("host") ?? "", settings.allowedHosts);
    if (hostProblem !== undefined) return errorResponse(403, "forbidden", hostProblem);
    const originProblem = checkOrigin(headers.get("origin"), settings.allowedOrigins);
    if (originProblem !== undefined) return errorResponse(403, "forbidden", originProblem);

    let token: string | undefined;
    let caller = callerOf(undefined);
    if (expectedDigest !== undefined) {
      token = bearerToken(headers.get("authorization"));
      // One digest per request: compared in constant time, and its prefix names the caller.
      const digest = token === undefined ? undefined : sha256(token);
      if (digest === undefined || !timingSafeEqual(digest, expectedDigest)) {
        const response = errorResponse(
          401,
          "unauthorized",
          token === undefined ? "Missing bearer token." : "Invalid bearer token.",
        );
        response.headers.set("www-authenticate", 'Bearer realm="evident"');
        return response;
      }
      caller = callerFromDigest(digest);
    }

    if (inFlight >= settings.maxConcurrentRequests) {
      const response = errorResponse(503, "overloaded", "Too many concurrent requests; retry shortly.");
      response.headers.set("retry-after", String(HTTP_RETRY_AFTER_SECONDS));
      return response;
    }
    inFlight += 1;
    let released = false;
    return {
      caller,
      token,
      release() {
        if (!released) {
          released = true;
          release();
        }
      },
    };
  }

  async function dispatch(
    request: Request,
    body: Buffer | undefined,
    admission: Admission,
  ): Promise<Response> {
    try {
      const parsed = parseJson(body);
      routeCancellation(parsed, request.signal, admission.caller, cancellations);
      const response = await mcp.fetch(request, {
        ...(parsed === undefined ? {} : { parsedBody: parsed }),
        ...(admission.token === undefined
          ? {}
          : { authInfo: { token: admission.token, clientId: admission.caller, scopes: [] } }),
      });
      return trackBody(response, admission.release);
    } catch (error) {
      admission.release();
      logger.error("mcp http request failed", {
        error: error instanceof Error ? error.message : String(error),
      });
      return errorResponse(500, "internal_error", "Internal error.");
    }
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    // Web-standard runtimes keep the authority in the URL rather than a Host header.
    const headers = request.headers.has("host") ? request.headers : withHost(request.headers, url.host);
    const admission = admit(request.method, url.pathname, headers);
    if (admission instanceof Response) return admission;
    let body: Buffer | undefined;
    if (request.method === "POST" && request.body !== null) {
      const read = await readWebBody(request, settings.maxBodyBytes);
      if (read === undefined) {
        admission.release();
        return tooLarge(settings.maxBodyBytes);
      }
      body = read;
    }
    const replay =
      body === undefined
        ? request
        : new Request(request.url, {
            method: request.method,
            headers: request.headers,
            body,
            signal: request.signal,
          });
    return dispatch(replay, body, admission);
  }

  return {
    fetch: handle,
    admit,
    dispatch,
    maxBodyBytes: settings.maxBodyBytes,
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

function withHost(headers: Headers, host: string): Headers {
  const copy = new Headers(headers);
  copy.set("host", host);
  return copy;
}

function parseJson(body: Buffer | undefined): unknown {
  if (body === undefined || body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined; // the SDK answers malformed JSON itself, from the raw body
  }
}

export function tooLarge(maxBytes: number): Response {
  return errorResponse(413, "payload_too_large", `Request body exceeds ${maxBytes} bytes.`);
}

/**
 * Reaches a running call from outside its server instance: a `notifications/cancelled` from the
 * same caller aborts the call it names, and a `tools/call` whose HTTP request goes away (client
 * disconnect) is aborted too.
 */
function routeCancellation(
  message: unknown,
  requestSignal: AbortSignal,
  caller: string,
  cancellations: CallCancellations,
): void {
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
  return token === undefined ? "http:anonymous" : callerFromDigest(sha256(token));
}

function callerFromDigest(digest: Buffer): string {
  return `http:${digest.subarray(0, 16).toString("hex")}`;
}

function sha256(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

function bearerToken(header: string | null): string | undefined {
  if (header === null) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function hostnameOf(hostHeader: string): string {
  // "[::1]:8787" -> "[::1]", "example.com:80" -> "example.com"
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1).toLowerCase();
  return hostHeader.split(":")[0]?.toLowerCase() ?? "";
}

function checkHost(header: string, allowed: readonly string[] | undefined): string | undefined {
  if (allowed === undefined) return undefined;
  if (header === "") return "Missing Host header.";
  const hostname = hostnameOf(header);
  if (allowed.includes(hostname)) return undefined;
  return `Host "${hostname}" is not allowed; set EVIDENT_ALLOWED_HOSTS to accept it.`;
}

function checkOrigin(origin: string | null, allowed: readonly string[] | "loopback"): string | undefined {
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
 * Reads a web-standard body within the cap; undefined when it is larger. The declared length is
 * checked first so an honest oversize request is refused unread.
 */
async function readWebBody(request: Request, maxBytes: number): Promise<Buffer | undefined> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) return undefined;
  if (request.body === null) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
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
