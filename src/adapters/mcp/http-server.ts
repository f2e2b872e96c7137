/**
 * The Node HTTP server: an adapter around the web-standard handler that calls only its public
 * surface. It turns each request into a `Request` whose body is read only as the handler pulls
 * it, writes the `Response` back with backpressure, and owns what lives at the socket: Node's
 * timeouts, the connection bounds and shutdown.
 *
 * Shutdown (SIGTERM/SIGINT): the server stops accepting connections, and every request that
 * still arrives, on a kept-alive connection or after its body was read, is answered 503 with
 * `Connection: close`, as is every answer that starts after shutdown began. In-flight calls get
 * the grace period; those still running at its end are cancelled and answer `cancelled`. Idle
 * connections are closed only after a quiet period without requests, which still get 503.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, Server as NetServer, type Socket } from "node:net";
import type { HttpSettings } from "../../config/http.js";
import { EvidentError } from "../../core/errors.js";
import { Gauge } from "../../core/gauge.js";
import {
  HTTP_CONNECTION_DROP_LOG_MS,
  HTTP_RETRY_AFTER_SECONDS,
  HTTP_SHUTDOWN_FLUSH_MS,
} from "../../core/limits.js";
import type { Logger } from "../../core/logger.js";
import { ClientConnections, clientKey } from "./http-clients.js";
import { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from "./http-handler.js";

/** The handler's options, with every HTTP setting: the server's own are the socket's. */
export interface HttpServerOptions extends HttpHandlerOptions {
  readonly settings: HttpSettings;
}

export interface RunningHttpServer {
  readonly url: string;
  readonly port: number;
  readonly handler: HttpHandler;
  /**
   * Stops accepting connections, lets in-flight requests finish within the grace period, then
   * cancels what still runs, closes every connection and the tools. Concurrent calls share one
   * shutdown.
   */
  close(): Promise<void>;
}

/** Response headers that describe the connection, which Node owns, not the response. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding"]);

export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const { settings, logger } = options;
  const handler = createHttpHandler(options);
  // Responses not yet fully written to their socket; shutdown waits for these, not only for the
  // handler, so a finished call's bytes are flushed before connections are closed.
  const open = new OpenResponses();
  const state = { draining: false };
  const server = createServer(
    {
      headersTimeout: settings.headersTimeoutMs,
      // Node's own bound on receiving a whole request, behind the body read limit below.
      requestTimeout: settings.headersTimeoutMs + settings.bodyReadTimeoutMs + 1_000,
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      // How often Node checks those two timeouts (its default, 30 s, would let them overrun).
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, settings.headersTimeoutMs / 4)),
    },
    (req, res) => {
      open.add(res);
      serve(handler, req, res, state, logger).catch((error: unknown) => {
        logger.error("http response failed", {
          error: error instanceof Error ? error.message : String(error),
        });
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
    },
  );
  // Ahead of http's own listener, so a refused socket is closed before a parser reads from it.
  server.prependListener("connection", admitConnection(settings, logger));
  server.on("connection", (socket: Socket) => open.connected(socket));
  // Beyond the bound Node closes each new connection at once: idle or half-open sockets
  // (each lives until the headers timeout) cannot take the descriptors that calls need.
  server.maxConnections = settings.maxConnections;
  let lastDropWarning = Number.NEGATIVE_INFINITY;
  server.on("drop", () => {
    if (performance.now() - lastDropWarning < HTTP_CONNECTION_DROP_LOG_MS) return;
    lastDropWarning = performance.now();
    logger.warn("connection limit reached; closing new connections until others end", {
      maxConnections: settings.maxConnections,
    });
  });
  // Rejects with the listen error (a port in use, say), and leaves no listener behind.
  await once(server.listen(settings.port, settings.host), "listening");
  const { port } = server.address() as AddressInfo;
  const hostForUrl = settings.host.includes(":") ? `[${settings.host}]` : settings.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostForUrl}:${port}/mcp`,
    port,
    handler,
    close() {
      state.draining = true;
      handler.drain();
      closing ??= shutdown(server, handler, open, options);
      return closing;
    },
  };
}

/**
 * Bounds the connections one client address holds (see http-clients.ts): beyond it a new
 * connection is answered 503 with Retry-After and closed before any of its bytes are read, so an
 * address holding half-sent heads locks out itself, not everyone else (nor /healthz).
 */
function admitConnection(settings: HttpSettings, logger: Logger): (socket: Socket) => void {
  const clients = new ClientConnections(settings.maxConnectionsPerClient);
  const refusal = refusalHead(settings.maxConnectionsPerClient);
  let lastWarning = Number.NEGATIVE_INFINITY;
  return (socket) => {
    const key = clientKey(socket.remoteAddress);
    if (key === undefined) return;
    const release = clients.admit(key);
    if (release !== undefined) {
      socket.once("close", release);
      return;
    }
    // Written at once (the socket's buffer is empty) and then closed: nothing of it is read.
    socket.on("error", () => {});
    socket.write(refusal);
    socket.destroy();
    if (performance.now() - lastWarning < HTTP_CONNECTION_DROP_LOG_MS) return;
    lastWarning = performance.now();
    logger.warn("per-client connection limit reached; closing that client's new connections", {
      client: key,
      maxConnectionsPerClient: settings.maxConnectionsPerClient,
    });
  };
}

function refusalHead(max: number): string {
  const body = JSON.stringify({
    error: {
      code: "overloaded",
      message: `This address holds ${max} open connections, the most one client may; close idle ones or retry shortly.`,
    },
  });
  return [
    "HTTP/1.1 503 Service Unavailable",
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    `Retry-After: ${HTTP_RETRY_AFTER_SECONDS}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

/** Responses being written, requests that ever arrived, and open connections. */
class OpenResponses {
  readonly responses = new Gauge();
  readonly connections = new Gauge();
  arrived = 0;

  connected(socket: Socket): void {
    this.connections.add();
    socket.once("close", () => this.connections.remove());
  }

  add(res: ServerResponse): void {
    this.responses.add();
    this.arrived += 1;
    res.once("close", () => this.responses.remove());
  }
}

/**
 * Resolves once no request has arrived for `quietMs` and no answer is being written, once no
 * connection is left, or after `boundMs`.
 */
async function quiet(open: OpenResponses, quietMs: number, boundMs: number): Promise<void> {
  const end = performance.now() + boundMs;
  for (;;) {
    const arrived = open.arrived;
    const left = end - performance.now();
    if (left <= 0 || open.connections.value === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise((resolve) => {
        timer = setTimeout(resolve, Math.min(quietMs, left));
      }),
      open.connections.zero(),
    ]);
    clearTimeout(timer);
    if (open.arrived === arrived && open.responses.value === 0) return;
    await idleWithin(open, Math.max(0, end - performance.now()));
  }
}

/** Resolves with "idle" once `open` has no response left, or "timeout" after `ms`. */
async function idleWithin(open: OpenResponses, ms: number): Promise<"idle" | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  try {
    return await Promise.race([open.responses.zero().then(() => "idle" as const), bound]);
  } finally {
    clearTimeout(timer);
  }
}

async function shutdown(
  server: Server,
  handler: HttpHandler,
  open: OpenResponses,
  options: HttpServerOptions,
): Promise<void> {
  // Stop listening, but not through http.Server#close: since Node 19 that also closes idle
  // kept-alive connections, where a client's next request may already be, sent but not yet read
  // (the busier the server, the longer). Those requests get 503 + Connection: close instead.
  const stopped = new Promise<void>((resolve) => {
    Reflect.apply(NetServer.prototype.close, server, [() => resolve()]);
  });
  if ((await idleWithin(open, options.settings.shutdownGraceMs)) === "timeout") {
    const cancelled = handler.cancelCalls(
      new EvidentError(
        "cancelled",
        "The server is shutting down; retry the call (on another replica if any).",
      ),
    );
    options.logger.warn("shutdown grace period over; cancelling the calls still running", {
      inFlight: open.responses.value,
      cancelled,
    });
    if ((await idleWithin(open, HTTP_SHUTDOWN_FLUSH_MS)) === "timeout") {
      options.logger.warn("closing connections whose calls did not answer their cancellation", {
        inFlight: open.responses.value,
      });
    }
  }
  // Connections that look idle may still bring requests: one sent before the signal but not yet
  // read (the busier the server, the longer it waits), or one a client sends on a connection
  // that an answer from before the signal kept alive. Each is answered 503 + Connection: close;
  // idle connections are closed once none has brought a request for a quiet period.
  await quiet(open, options.settings.shutdownQuietMs, HTTP_SHUTDOWN_FLUSH_MS);
  server.closeIdleConnections();
  await idleWithin(open, HTTP_SHUTDOWN_FLUSH_MS);
  server.closeAllConnections();
  server.close(); // what http adds to closing: its connection timeout checks stop
  await stopped;
  await handler.close();
  await options.registry.close();
}

async function serve(
  handler: HttpHandler,
  req: IncomingMessage,
  res: ServerResponse,
  state: { readonly draining: boolean },
  logger: Logger,
): Promise<void> {
  const controller = new AbortController();
  // The client went away before we answered: its exchange (and only its) is abandoned.
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  const response = await handler.fetch(toRequest(req, controller.signal));
  return write(response, req, res, state, logger);
}

/** Methods a web-standard Request cannot carry; the handler refuses them like any it does not serve. */
const UNCARRIED_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

/** The Node request as a web-standard one; a POST body is read only as the handler pulls it. */
function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const method = req.method ?? "GET";
  const url = new URL(req.url ?? "/", "http://localhost");
  const init: RequestInit & { duplex?: "half" } = {
    method: UNCARRIED_METHODS.has(method) ? "UNSUPPORTED" : method,
    headers: toHeaders(req),
    signal,
  };
  if (method === "POST") {
    init.body = bodyStream(req);
    init.duplex = "half";
  }
  return new Request(`http://localhost${url.pathname}${url.search}`, init);
}

async function write(
  response: Response,
  req: IncomingMessage,
  res: ServerResponse,
  state: { readonly draining: boolean },
  logger: Logger,
): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    if (!HOP_BY_HOP.has(key)) headers[key] = value;
  });
  const head = () => {
    // A request body we did not read whole, or a server going away: this connection ends here.
    if (state.draining || !req.complete) res.shouldKeepAlive = false;
    res.writeHead(response.status, headers);
  };
  if (response.body === null || req.method === "HEAD") {
    head();
    res.end();
    return;
  }
  // The head goes out with the body's first bytes, not before: a call's answer can take long to
  // start, and if shutdown began meanwhile its connection must be told to close.
  const reader = response.body.getReader();
  try {
    for (let first = true; ; first = false) {
      const { done, value } = await reader.read();
      if (first) head();
      if (done) {
        res.end();
        return;
      }
      if (res.destroyed) {
        await reader.cancel();
        return;
      }
      if (!res.write(value)) await drained(res);
    }
  } catch (error) {
    logger.debug("response stream error", { error: error instanceof Error ? error.message : String(error) });
    res.destroy();
  }
}

/** Resolves when the response can take more, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}

function toHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  // An HTTP/1.0 request may carry none: the handler must see it missing, not take the URL's.
  if (!headers.has("host")) headers.set("host", "");
  return headers;
}

/**
 * A request body that reads from the socket only when pulled (no queue ahead of the reader), so
 * the bytes of a request refused on its headers, or cut at its cap, are never read.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let detach = () => {};
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.pause(); // explicitly paused, a data listener does not start the flow
        const onData = (chunk: Buffer) => {
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        };
        const onEnd = () => {
          detach();
          controller.close();
        };
        const onError = (error: Error) => {
          detach();
          controller.error(error);
        };
        req.on("data", onData);
        req.once("end", onEnd);
        req.once("error", onError);
        detach = () => {
          req.off("data", onData);
          req.off("end", onEnd);
          req.off("error", onError);
        };
      },
      pull() {
        req.resume();
      },
      cancel() {
        detach();
        req.pause();
      },
    },
    { highWaterMark: 0 },
  );
}
