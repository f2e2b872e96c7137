/**
 * A loopback HTTP server standing in for a vendor API. Each test installs a handler that
 * checks what we sent and answers in the vendor's documented wire format. Only 127.0.0.1: no
 * test traffic ever leaves the machine.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { listenOnLoopback } from "../../net/loopback.js";

export interface RecordedRequest {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  json(): unknown;
}

export type Handler = (request: RecordedRequest, response: ServerResponse, raw: IncomingMessage) => void;

export interface FakeVendor {
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** Replaces the handler for the next requests. */
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export async function startFakeVendor(): Promise<FakeVendor> {
  let handler: Handler = (_request, response) => sendJson(response, 500, { error: "no handler installed" });
  const requests: RecordedRequest[] = [];
  const server = createServer((raw, response) => {
    const chunks: Buffer[] = [];
    raw.on("data", (chunk: Buffer) => chunks.push(chunk));
    raw.on("end", () => {
      const url = new URL(raw.url ?? "/", "http://127.0.0.1");
      const body = Buffer.concat(chunks).toString("utf8");
      const recorded: RecordedRequest = {
        method: raw.method ?? "",
        path: url.pathname,
        query: url.searchParams,
        headers: raw.headers,
        body,
        json: () => JSON.parse(body) as unknown,
      };
      requests.push(recorded);
      // Writes after the client hung up (cancellation, body cap) must not crash the test.
      response.on("error", () => {});
      try {
        handler(recorded, response, raw);
      } catch (error) {
        // Tests assert on `requests` after the call; a throwing handler just fails the call.
        sendJson(response, 599, { error: `fake vendor handler failed: ${String(error)}` });
      }
    });
  });
  const port = await listenOnLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      handler = next;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}

export function sendText(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body) });
  response.end(body);
}
