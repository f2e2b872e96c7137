/**
 * A real HTTP proxy on loopback, built on Node's http module, for proxy tests. It speaks both
 * forms a client may use: CONNECT tunnels (for https targets) and requests in absolute form
 * (`GET http://host:port/path`, for http targets), which it forwards as proxies do. It records
 * every tunnel and forwarded request, resolves names through its own table (as a proxy resolves
 * names itself), and can refuse either form with a status.
 */
import { createServer, type IncomingHttpHeaders, request, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";

export interface ConnectProxy {
  readonly url: string;
  /** `host:port` of every CONNECT received, in order. */
  readonly tunnels: string[];
  /** `METHOD absolute-url` of every request received in absolute form, in order. */
  readonly forwarded: string[];
  /** The headers of each forwarded request, as the proxy received them (same order). */
  readonly forwardedHeaders: IncomingHttpHeaders[];
  /** Answer CONNECT, and requests in absolute form, with this status instead (e.g. 407, 403). */
  refuseWith: number | undefined;
  close(): Promise<void>;
}

/** Headers for this hop only (RFC 9110 7.6.1): a proxy does not pass them on. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

export async function startConnectProxy(names: Readonly<Record<string, string>> = {}): Promise<ConnectProxy> {
  const sockets = new Set<Socket>();
  const state: ConnectProxy = {
    url: "",
    tunnels: [],
    forwarded: [],
    forwardedHeaders: [],
    refuseWith: undefined,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const raw = req.url ?? "";
    if (!raw.startsWith("http://")) {
      // Origin-form: a request for the proxy itself, not one to forward.
      res.writeHead(400).end();
      return;
    }
    state.forwarded.push(`${req.method} ${raw}`);
    state.forwardedHeaders.push(req.headers);
    if (state.refuseWith !== undefined) {
      res.writeHead(state.refuseWith, { "content-length": "0" }).end();
      return;
    }
    const target = new URL(raw);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    const upstream = request(
      {
        host: names[target.hostname] ?? target.hostname,
        port: Number(target.port || 80),
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502, { "content-length": "0" }).end();
    });
    req.pipe(upstream);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("connect", (req, client: Socket, head: Buffer) => {
    const target = req.url ?? "";
    state.tunnels.push(target);
    if (state.refuseWith !== undefined) {
      client.end(`HTTP/1.1 ${state.refuseWith} Refused\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const colon = target.lastIndexOf(":");
    const host = target.slice(0, colon);
    const upstream = connect(Number(target.slice(colon + 1)), names[host] ?? host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.once("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  Object.assign(state, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  return state;
}
