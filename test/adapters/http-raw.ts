/**
 * Raw HTTP for the transport tests: requests whose headers, body, timing and socket are exactly
 * what a test says (an SDK client would hide them), and SSE answers read as text.
 */
import { request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

export function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? "GET", headers: options.headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

export const JSON_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** Headers of a post-initialize request from a 2025-11-25 client holding `token`. */
export function legacyHeaders(token: string): Record<string, string> {
  return { ...JSON_HEADERS, authorization: `Bearer ${token}`, "mcp-protocol-version": "2025-11-25" };
}

export function toolCall(id: number | string, name: string, args: Record<string, unknown> = {}): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
}

export function cancelNotice(requestId: number | string): string {
  return JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } });
}

/** A request whose answer is read as it streams; `abort` drops the connection mid-answer. */
export interface OpenCall {
  /** Resolves with the status once the response headers arrived. */
  readonly started: Promise<number>;
  /** Resolves with the whole body once the response ended (rejects if the connection failed). */
  readonly ended: Promise<string>;
  abort(): void;
}

export function openCall(url: string, headers: Record<string, string>, body: string): OpenCall {
  let resolveStarted: (status: number) => void = () => {};
  let rejectStarted: (error: Error) => void = () => {};
  const started = new Promise<number>((resolve, reject) => {
    resolveStarted = resolve;
    rejectStarted = reject;
  });
  let req: ReturnType<typeof httpRequest> | undefined;
  const ended = new Promise<string>((resolve, reject) => {
    req = httpRequest(url, { method: "POST", headers, agent: false }, (res) => {
      resolveStarted(res.statusCode ?? 0);
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => resolve(text));
      res.on("error", reject);
    });
    req.on("error", (error) => {
      rejectStarted(error);
      reject(error);
    });
    req.end(body);
  });
  ended.catch(() => {});
  started.catch(() => {});
  return { started, ended, abort: () => req?.destroy() };
}

/** The JSON-RPC messages of an SSE or JSON answer. */
export function messagesOf(
  body: string,
): Array<{ id?: unknown; result?: unknown; error?: { code: number } }> {
  const trimmed = body.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    const parsed = JSON.parse(trimmed);
    return Array.isArray(parsed) ? parsed : [parsed];
  }
  return body
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)));
}

/** A raw socket to the server, for keep-alive, partial and pipelined requests. */
export class RawSocket {
  readonly socket: Socket;
  #buffer = "";
  #waiters: Array<() => void> = [];
  closed = false;

  constructor(port: number, host = "127.0.0.1", localAddress?: string) {
    this.socket = connect({ port, host, ...(localAddress === undefined ? {} : { localAddress }) });
    this.socket.setEncoding("utf8");
    this.socket.on("data", (chunk: string) => {
      this.#buffer += chunk;
      this.#wake();
    });
    this.socket.on("close", () => {
      this.closed = true;
      this.#wake();
    });
    this.socket.on("error", () => {});
  }

  #wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }

  write(text: string): void {
    this.socket.write(text);
  }

  /** Resolves with everything received once `predicate` holds or the socket closed. */
  async until(predicate: (received: string) => boolean): Promise<string> {
    while (!predicate(this.#buffer) && !this.closed) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    return this.#buffer;
  }

  /** Resolves once the server closed the connection. */
  async untilClosed(): Promise<string> {
    return this.until(() => false);
  }

  /** Drops what was received so far (before reading the next response). */
  clear(): void {
    this.#buffer = "";
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** The status line and headers of the first response in `text`. */
export function headOf(text: string): { status: number; headers: Record<string, string> } {
  const head = text.slice(0, text.indexOf("\r\n\r\n"));
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(" ")[1]), headers };
}
