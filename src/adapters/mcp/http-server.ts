/**
 * The Node HTTP server around the web-standard handler: converts `IncomingMessage` into a
 * streaming `Request` (so header checks run before any body byte is read), writes the
 * `Response` back with backpressure, and shuts down gracefully.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import type { Logger } from "../../core/logger.js";
import type { ToolRegistry } from "../../tools/registry.js";
import type { HttpSettings } from "./http-config.js";
import { createHttpHandler, type HttpHandler, type HttpHandlerPhases, tooLarge } from "./http-handler.js";

export interface HttpServerOptions {
  readonly registry: ToolRegistry;
  readonly logger: Logger;
  /** Carry structured results too (see McpServerOptions.structured). */
  readonly structured?: boolean;
  readonly settings: HttpSettings;
}

export interface RunningHttpServer {
  readonly url: string;
  readonly port: number;
  readonly handler: HttpHandler;
  /**
   * Stops accepting connections, lets in-flight requests finish within the grace period, then
   * closes every connection and the tools. Concurrent calls share one shutdown.
   */
  close(): Promise<void>;
}

export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const { settings, logger } = options;
  const handler = createHttpHandler(options);
  // Responses not yet fully written to their socket; shutdown waits for these, not only for the
  // handler, so a finished call's bytes are flushed before connections are closed.
  const open = new OpenResponses();
  const server = createServer((req, res) => {
    open.add(res);
    serve(handler, req, res, logger).catch((error: unknown) => {
      logger.error("http response failed", { error: error instanceof Error ? error.message : String(error) });
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await listen(server, settings.port, settings.host);
  const { port } = server.address() as AddressInfo;
  const hostForUrl = settings.host.includes(":") ? `[${settings.host}]` : settings.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostForUrl}:${port}/mcp`,
    port,
    handler,
    close() {
      closing ??= shutdown(server, handler, open, options);
      return closing;
    },
  };
}

class OpenResponses {
  #count = 0;
  #waiters: Array<() => void> = [];
  add(res: ServerResponse): void {
    this.#count += 1;
    res.once("close", () => {
      this.#count -= 1;
      if (this.#count === 0) for (const wake of this.#waiters.splice(0)) wake();
    });
  }
  get count(): number {
    return this.#count;
  }
  idle(): Promise<void> {
    return this.#count === 0 ? Promise.resolve() : new Promise((resolve) => this.#waiters.push(resolve));
  }
}

async function shutdown(
  server: Server,
  handler: HttpHandlerPhases,
  open: OpenResponses,
  options: HttpServerOptions,
): Promise<void> {
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), options.settings.shutdownGraceMs);
  });
  const outcome = await Promise.race([open.idle().then(() => "idle" as const), grace]);
  clearTimeout(timer);
  if (outcome === "timeout") {
    options.logger.warn("shutdown grace period over; closing remaining connections", {
      inFlight: open.count,
    });
  }
  server.closeAllConnections();
  await stopped;
  await handler.close();
  await options.registry.close();
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

async function serve(
  handler: HttpHandlerPhases,
  req: IncomingMessage,
  res: ServerResponse,
  logger: Logger,
): Promise<void> {
  const controller = new AbortController();
  // The client went away before we answered: cancel the tool call it started.
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  const method = req.method ?? "GET";
  const url = new URL(req.url ?? "/", "http://localhost");
  const headers = toHeaders(req);
  // Header-level checks first: nothing is read from a request that will be refused.
  const admission = handler.admit(method, url.pathname, headers);
  if (admission instanceof Response) return write(admission, req, res, logger);
  let response: Response;
  try {
    let body: Buffer | undefined;
    if (method === "POST") {
      body = await readNodeBody(req, handler.maxBodyBytes);
      if (body === undefined) {
        admission.release();
        res.shouldKeepAlive = false; // the rest of an oversize body is not read
        return write(tooLarge(handler.maxBodyBytes), req, res, logger);
      }
    }
    // The Host header was checked by `admit`; the URL's authority is not used past this point.
    const request = new Request(`http://localhost${url.pathname}${url.search}`, {
      method,
      headers,
      signal: controller.signal,
      ...(body === undefined ? {} : { body }),
    });
    response = await handler.dispatch(request, body, admission);
  } catch (error) {
    admission.release();
    throw error;
  }
  return write(response, req, res, logger);
}

async function write(
  response: Response,
  req: IncomingMessage,
  res: ServerResponse,
  logger: Logger,
): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  res.writeHead(response.status, headers);
  if (response.body === null || req.method === "HEAD") {
    res.end();
    return;
  }
  const body = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>);
  body.on("error", (error) => {
    logger.debug("response stream error", { error: error.message });
    res.destroy();
  });
  body.pipe(res);
}

function toHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return headers;
}

/** Reads a Node request body within the cap; undefined when it is larger. */
function readNodeBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers["content-length"] ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) {
        req.off("data", onData);
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("error", reject);
  });
}
