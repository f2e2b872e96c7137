/**
 * A real HTTP CONNECT proxy on loopback, built on Node's http module, for proxy tests: it
 * records every tunnel asked for, resolves names through its own table (as a proxy resolves
 * names itself), and can refuse tunnels with a status.
 */
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";

export interface ConnectProxy {
  readonly url: string;
  /** `host:port` of every CONNECT received, in order. */
  readonly tunnels: string[];
  /** Answer CONNECT with this status instead of tunnelling (e.g. 407, 403). */
  refuseWith: number | undefined;
  close(): Promise<void>;
}

export async function startConnectProxy(names: Readonly<Record<string, string>> = {}): Promise<ConnectProxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((_req, res) => {
    // Only tunnels: a plain proxied request would bypass what these tests check.
    res.writeHead(405).end();
  });
  const state: ConnectProxy = {
    url: "",
    tunnels: [],
    refuseWith: undefined,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
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
