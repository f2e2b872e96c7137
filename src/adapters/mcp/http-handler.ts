/**
 * The Streamable HTTP endpoint as one web-standard function, `Request -> Response`, so that
 * serverless hosts can mount it as is and the Node server is a thin wrapper around it.
 *
 * `GET /metrics` (metrics.ts) passes the same route, Host/Origin and token checks (the token
 * unless the operator made it public).
 *
 * Order of checks: route, Host/Origin (DNS rebinding), CORS preflight, bearer token, then the
 * body is read within its size cap and time limit, and only then is a concurrency slot taken:
 * a client that sends its body slowly holds its own socket, never a slot others need. The SDK
 * sees the request last. Serving is stateless: every request gets a fresh server instance from
 * the shared factory, so any replica can answer any request, for current (2026-07-28) and
 * 2025-era clients alike.
 */
import { randomUUID } from "node:crypto";
import { createMcpHandler, type McpServerFactory } from "@modelcontextprotocol/server";
import type { HttpSettings } from "../../config/http.js";
import { anySignal } from "../../core/abort.js";
import type { ErrorCode, EvidentError } from "../../core/errors.js";
import { Gauge } from "../../core/gauge.js";
import { HTTP_RETRY_AFTER_SECONDS } from "../../core/limits.js";
import type { Logger } from "../../core/logger.js";
import { type Counter, METRICS_CONTENT_TYPE, type Metrics } from "../../core/metrics.js";
import { type TraceContext, traceContext } from "../../core/trace.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { PACKAGE_VERSION } from "../version.js";
import { Exchange, HttpCalls } from "./http-calls.js";
import {
  authenticate,
  callerOf,
  checkHost,
  checkOrigin,
  preflight,
  tokenDigests,
  withCors,
} from "./http-guards.js";
import { answersWithJson, serveJson, withJsonAccept } from "./http-json.js";
import { createMcpServer } from "./server.js";

export interface HttpHandlerOptions {
  readonly registry: ToolRegistry;
  readonly logger: Logger;
  /** Carry structured results too (see McpServerOptions.structured). */
  readonly structured?: boolean;
  /** `GET /metrics` answers without the bearer token (EVIDENT_METRICS_PUBLIC); default false. */
  readonly metricsPublic?: boolean;
  readonly settings: Pick<
    HttpSettings,
    | "tokens"
    | "allowedHosts"
    | "allowedOrigins"
    | "maxBodyBytes"
    | "maxConcurrentRequests"
    | "bodyReadTimeoutMs"
  >;
}

export interface HttpHandler {
  readonly fetch: (request: Request) => Promise<Response>;
  /**
   * Concurrency slots taken: one per JSON-RPC request being served (each of a batch; a body
   * carrying none takes one), answers still streaming included.
   */
  inFlight(): number;
  /** Resolves once no request is in flight. */
  idle(): Promise<void>;
  /**
   * Shutdown has begun: every request from now on, and every one whose body was still being
   * read, is answered 503 with Retry-After; calls already running go on.
   */
  drain(): void;
  /** Cancels every running tool call with `reason`, which each answers; returns how many. */
  cancelCalls(reason: EvidentError): number;
  close(): Promise<void>;
}

/** A request whose headers passed every check; its body has not been read yet. */
interface Admission {
  /** Caller key derived from the credential (see `callerOf`). */
  readonly caller: string;
  readonly token: string | undefined;
  /** Adds the CORS headers this request's Origin gets (none without an Origin). */
  finish(response: Response): Response;
}

/** What one handler holds: its settings, the SDK endpoint, running calls and taken slots. */
interface Endpoint {
  readonly settings: HttpHandlerOptions["settings"];
  readonly logger: Logger;
  readonly digests: readonly Buffer[];
  readonly mcp: ReturnType<typeof createMcpHandler>;
  /** Builds each request's server: the SDK's handler and the JSON answers (http-json.ts) share it. */
  readonly factory: McpServerFactory;
  readonly calls: HttpCalls;
  /** Concurrency slots taken: one per JSON-RPC request being served. */
  readonly slots: Gauge;
  /** The registry's metrics, which `/metrics` writes. */
  readonly metrics: Metrics;
  /** Requests refused because every concurrency slot was taken. */
  readonly refused: Counter;
  readonly metricsPublic: boolean;
  draining: boolean;
}

/** What a request's calls carry beyond its caller: its id and the trace context it arrived with. */
interface RequestScope {
  readonly exchange: Exchange;
  readonly requestId: string;
  readonly trace?: TraceContext;
}

const MCP_PATH = "/mcp";
const HEALTH_PATH = "/healthz";
const METRICS_PATH = "/metrics";
/** Methods served on /mcp besides OPTIONS (the SDK answers GET and DELETE itself). */
const MCP_METHODS = new Set(["POST", "GET", "DELETE"]);
/** The first protocol revision without JSON-RPC batches. */
const BATCHLESS_SINCE = "2025-06-18";

export function createHttpHandler(options: HttpHandlerOptions): HttpHandler {
  const { registry, logger, settings } = options;
  const calls = new HttpCalls();
  const factory: McpServerFactory = (ctx) => {
    const caller = ctx.authInfo?.clientId ?? callerOf(undefined);
    const scope = (ctx.authInfo?.extra as { scope?: RequestScope } | undefined)?.scope;
    return createMcpServer(
      { registry, logger, structured: options.structured ?? false },
      scope === undefined
        ? { caller }
        : {
            caller,
            track: (id) => calls.begin(scope.exchange, id),
            requestId: scope.requestId,
            ...(scope.trace === undefined ? {} : { trace: scope.trace }),
          },
    );
  };
  const mcp = createMcpHandler(factory, {
    onerror: (error) => logger.debug("mcp http exchange error", { error: error.message }),
  });
  const endpoint: Endpoint = {
    settings,
    logger,
    digests: tokenDigests(settings.tokens),
    mcp,
    factory,
    calls,
    slots: new Gauge(),
    metrics: registry.metrics,
    refused: registry.metrics.counter(
      "evident_http_calls_refused_total",
      "HTTP requests answered 503 because the concurrency bound (EVIDENT_HTTP_MAX_CONCURRENT) was full.",
      [],
    ),
    metricsPublic: options.metricsPublic ?? false,
    draining: false,
  };
  registry.metrics.sampled(
    "evident_http_calls_in_flight",
    "JSON-RPC requests being served over HTTP now (concurrency slots taken, answers still streaming included).",
    "gauge",
    () => [{ value: endpoint.slots.value }],
  );
  return {
    fetch: (request) => serve(endpoint, request),
    inFlight: () => endpoint.slots.value,
    idle: () => endpoint.slots.zero(),
    drain: () => {
      endpoint.draining = true;
    },
    cancelCalls: (reason) => calls.cancelAll(reason),
    close: () => mcp.close(),
  };
}

/**
 * Header checks first, so nothing is read of a request that will be refused; then the body
 * within its cap and time limit, and only then a concurrency slot.
 */
async function serve(endpoint: Endpoint, request: Request): Promise<Response> {
  if (endpoint.draining) return shuttingDown();
  const url = new URL(request.url);
  // Web-standard runtimes keep the authority in the URL rather than a Host header.
  const headers = request.headers.has("host") ? request.headers : withHost(request.headers, url.host);
  const admission = admit(endpoint, request.method, url.pathname, headers);
  if (admission instanceof Response) return admission;
  let body: Buffer | undefined;
  if (request.method === "POST" && request.body !== null) {
    const { maxBodyBytes, bodyReadTimeoutMs } = endpoint.settings;
    const read = await readWebBody(request, maxBodyBytes, bodyReadTimeoutMs);
    if (read === "too_large") return admission.finish(bodyTooLarge(maxBodyBytes));
    if (read === "timeout") return admission.finish(bodyTimedOut(bodyReadTimeoutMs));
    body = read;
  }
  // Shutdown began while the body arrived.
  if (endpoint.draining) return admission.finish(shuttingDown());
  return dispatch(endpoint, admission, request, body);
}

/** Decides from the method, path and headers alone: an answer, or who may go on. */
function admit(endpoint: Endpoint, method: string, pathname: string, headers: Headers): Response | Admission {
  const { settings } = endpoint;
  if (pathname === HEALTH_PATH) {
    if (method !== "GET" && method !== "HEAD") return methodNotAllowed("GET");
    // Public and provider-free: platforms probe it without credentials.
    return json(200, { status: "ok", version: PACKAGE_VERSION });
  }
  if (pathname !== MCP_PATH && pathname !== METRICS_PATH) {
    return errorResponse(404, "invalid_arguments", `No route ${pathname}.`);
  }

  const hostProblem = checkHost(headers.get("host") ?? "", settings.allowedHosts);
  if (hostProblem !== undefined) return errorResponse(403, "forbidden", hostProblem);
  const origin = headers.get("origin");
  const originProblem = checkOrigin(origin, settings.allowedOrigins);
  if (originProblem !== undefined) return errorResponse(403, "forbidden", originProblem);
  const finish = (response: Response) => withCors(response, origin);

  if (pathname === METRICS_PATH) return finish(scrape(endpoint, method, headers));
  // A preflight carries no credentials: it is answered before the token check.
  if (method === "OPTIONS") return finish(preflight(origin));
  // GET and DELETE are the SDK's to answer (405 while serving statelessly); anything else is
  // refused here (the Node server hands TRACE, which a Request cannot carry, on as unsupported).
  if (!MCP_METHODS.has(method)) return finish(methodNotAllowed("POST"));

  if (endpoint.digests.length === 0) return { caller: callerOf(undefined), token: undefined, finish };
  const proven = authenticate(headers.get("authorization"), endpoint.digests);
  if ("problem" in proven) return finish(unauthorized(proven.problem));
  return { ...proven, finish };
}

/**
 * `GET /metrics`: the registry's metrics in the Prometheus text format, behind the bearer token
 * unless the operator made it public (EVIDENT_METRICS_PUBLIC) or serves anonymously.
 */
function scrape(endpoint: Endpoint, method: string, headers: Headers): Response {
  if (method !== "GET" && method !== "HEAD") return methodNotAllowed("GET");
  if (!endpoint.metricsPublic && endpoint.digests.length > 0) {
    const proven = authenticate(headers.get("authorization"), endpoint.digests);
    if ("problem" in proven) return unauthorized(proven.problem);
  }
  return new Response(method === "HEAD" ? null : endpoint.metrics.render(), {
    status: 200,
    headers: { "content-type": METRICS_CONTENT_TYPE, "cache-control": "no-store" },
  });
}

/**
 * Serves a request whose body has been read. Its signal aborts when the client goes away: the
 * SDK then ends this exchange, and only this one.
 */
async function dispatch(
  endpoint: Endpoint,
  admission: Admission,
  incoming: Request,
  body: Buffer | undefined,
): Promise<Response> {
  const { settings, slots, calls, logger } = endpoint;
  const parsed = parseJson(body);
  const refusal = batchRefusal(parsed, incoming.headers, settings.maxConcurrentRequests);
  if (refusal !== undefined) return admission.finish(refusal);
  // Each JSON-RPC request of a batch runs as a call of its own, so each takes a slot; a body
  // carrying none (a notification, or JSON the SDK will refuse) takes one.
  const requests = countRequests(parsed);
  const taken = Math.max(1, requests);
  if (slots.value + taken > settings.maxConcurrentRequests) {
    endpoint.refused.inc({});
    const response = errorResponse(503, "overloaded", "Too many concurrent requests; retry shortly.");
    response.headers.set("retry-after", String(HTTP_RETRY_AFTER_SECONDS));
    return admission.finish(response);
  }
  slots.add(taken);
  let linked: ReturnType<typeof anySignal> | undefined;
  let released = false;
  const done = () => {
    if (released) return;
    released = true;
    linked?.dispose();
    slots.remove(taken);
  };
  const requestId = randomUUID();
  try {
    const exchange = new Exchange(admission.caller, requests, incoming.signal);
    const trace = traceContext(incoming.headers.get("traceparent"), incoming.headers.get("tracestate"));
    const scope: RequestScope = { exchange, requestId, ...(trace === undefined ? {} : { trace }) };
    routeNotices(parsed, admission.caller, calls, logger);
    linked = anySignal([incoming.signal, exchange.abandoned]);
    const { pathname, search } = new URL(incoming.url);
    const asJson = await answersWithJson(incoming, parsed);
    const request = new Request(`http://localhost${pathname}${search}`, {
      method: incoming.method,
      headers: asJson ? withJsonAccept(incoming.headers) : incoming.headers,
      signal: linked.signal,
      ...(body === undefined ? {} : { body }),
    });
    const options = {
      ...(parsed === undefined ? {} : { parsedBody: parsed }),
      authInfo: { token: admission.token ?? "", clientId: admission.caller, scopes: [], extra: { scope } },
    };
    const response = asJson
      ? await serveJson(endpoint.factory, request, options)
      : await endpoint.mcp.fetch(request, options);
    return admission.finish(withRequestId(trackBody(response, done), requestId));
  } catch (error) {
    done();
    logger.error("mcp http request failed", {
      requestId,
      error: error instanceof Error ? error.message : String(error),
    });
    return admission.finish(errorResponse(500, "internal_error", "Internal error."));
  }
}

/** The answer to any request that arrives once shutdown has begun. */
function shuttingDown(): Response {
  const response = errorResponse(503, "overloaded", "The server is shutting down; retry elsewhere.");
  response.headers.set("retry-after", String(HTTP_RETRY_AFTER_SECONDS));
  return response;
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

function bodyTooLarge(maxBytes: number): Response {
  return errorResponse(413, "payload_too_large", `Request body exceeds ${maxBytes} bytes.`);
}

function bodyTimedOut(timeoutMs: number): Response {
  return errorResponse(
    408,
    "deadline_exceeded",
    `The request body did not arrive within ${timeoutMs} ms; send it whole and retry.`,
  );
}

function isRequestMessage(message: unknown): message is { method: string; id: string | number } {
  if (typeof message !== "object" || message === null) return false;
  const { method, id } = message as { method?: unknown; id?: unknown };
  return typeof method === "string" && (typeof id === "string" || typeof id === "number");
}

function countRequests(parsed: unknown): number {
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return messages.filter(isRequestMessage).length;
}

/**
 * JSON-RPC batches exist in protocol revision 2025-03-26 only: 2025-06-18 removed them, and the
 * 2026-07-28 era refuses them in the SDK. A batch sent under a later revision (the
 * MCP-Protocol-Version header every post-initialize request carries) is refused whole, and so is
 * a batch holding `initialize`, which no revision allowed, and one holding more requests than the
 * concurrency bound, each of which would take a slot.
 */
function batchRefusal(parsed: unknown, headers: Headers, maxConcurrent: number): Response | undefined {
  if (!Array.isArray(parsed)) return undefined;
  const version = headers.get("mcp-protocol-version")?.trim();
  const requests = countRequests(parsed);
  let why: string | undefined;
  if (version !== undefined && version >= BATCHLESS_SINCE) {
    why = `JSON-RPC batches are not part of protocol revision ${version.slice(0, 20)}; send one message per request.`;
  } else if (parsed.some((message) => isRequestMessage(message) && message.method === "initialize")) {
    why = "initialize cannot be part of a JSON-RPC batch.";
  } else if (requests > maxConcurrent) {
    // It could never be admitted whole: refused as sent, not answered 503 to be retried forever.
    why = `A batch of ${requests} requests exceeds the ${maxConcurrent} this server runs at once; send at most ${maxConcurrent} per batch.`;
  }
  if (why === undefined) return undefined;
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: why } }), {
    status: 400,
    headers: { "content-type": "application/json" },
  });
}

/**
 * A `notifications/cancelled` from this caller reaches the call it names, if exactly one
 * running call of this caller has that id (see http-calls.ts).
 */
function routeNotices(parsed: unknown, caller: string, calls: HttpCalls, logger: Logger): void {
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  for (const message of messages) {
    if (typeof message !== "object" || message === null) continue;
    const { method, params } = message as { method?: unknown; params?: { requestId?: unknown } };
    if (method !== "notifications/cancelled") continue;
    const requestId = params?.requestId;
    if (typeof requestId !== "string" && typeof requestId !== "number") continue;
    if (calls.cancelNotice(caller, requestId) === "ambiguous") {
      logger.debug("cancel notice ignored: several running calls of this caller have its id", {
        caller,
      });
    }
  }
}

/**
 * Reads a web-standard body within the size cap and time limit. The declared length is checked
 * first so an honest oversize request is refused unread.
 */
async function readWebBody(
  request: Request,
  maxBytes: number,
  timeoutMs: number,
): Promise<Buffer | "too_large" | "timeout"> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) return "too_large";
  if (request.body === null) return Buffer.alloc(0);
  const reader = request.body.getReader();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), expired]);
      if (next === "timeout") {
        await reader.cancel().catch(() => {});
        return "timeout";
      }
      if (next.done) break;
      total += next.value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        return "too_large";
      }
      chunks.push(next.value);
    }
  } finally {
    clearTimeout(timer);
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

/** The id the request's log lines carry, for a client to quote when it reports a problem. */
function withRequestId(response: Response, requestId: string): Response {
  response.headers.set("x-request-id", requestId);
  return response;
}

function json(status: number, value: unknown): Response {
  return new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
}

function errorResponse(status: number, code: ErrorCode, message: string): Response {
  return json(status, { error: { code, message } });
}

function unauthorized(message: string): Response {
  const response = errorResponse(401, "unauthorized", message);
  response.headers.set("www-authenticate", 'Bearer realm="evident"');
  return response;
}

function methodNotAllowed(allow: string): Response {
  const response = errorResponse(405, "invalid_arguments", "Method not allowed.");
  response.headers.set("allow", allow);
  return response;
}
