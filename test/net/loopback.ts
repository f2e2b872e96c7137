/**
 * Loopback servers for tests: real sockets on 127.0.0.1, with every connection and request
 * recorded so a test can assert what reached the server (or that nothing did); a server of the
 * test's own put on an ephemeral port; a port nothing listens on.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import {
  type AddressInfo,
  createServer as createNetServer,
  type Server as NetServer,
  type Socket,
} from "node:net";

export interface Loopback {
  readonly server: Server;
  readonly url: string;
  readonly port: number;
  /** Connections accepted so far (a canary must keep this at zero). */
  connections: number;
  readonly requests: Array<{
    method: string;
    url: string;
    headers: IncomingMessage["headers"];
    body: string;
  }>;
  /** Resolves when a socket accepted by this server closes, in order of acceptance. */
  readonly socketClosed: Array<Promise<void>>;
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export async function startLoopback(handler: Handler, host = "127.0.0.1"): Promise<Loopback> {
  const sockets = new Set<Socket>();
  const state: Loopback = {
    server: undefined as unknown as Server,
    url: "",
    port: 0,
    connections: 0,
    requests: [],
    socketClosed: [],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => state.server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      state.requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      handler(req, res, body);
    });
  });
  server.on("connection", (socket: Socket) => {
    state.connections++;
    sockets.add(socket);
    state.socketClosed.push(new Promise((resolve) => socket.once("close", () => resolve())));
    socket.once("close", () => sockets.delete(socket));
  });
  const port = await listenOnLoopback(server, host);
  Object.assign(state, { server, port, url: `http://${host.includes(":") ? `[${host}]` : host}:${port}` });
  return state;
}

/** Listens on an ephemeral port of `host` (loopback by default); resolves with the port. */
export async function listenOnLoopback(server: NetServer, host = "127.0.0.1"): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  return (server.address() as AddressInfo).port;
}

/** A port that was free a moment ago on 127.0.0.1: bound, then released (nothing listens on it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}
