/**
 * MCP over stdio: the zero-argument default of `evident mcp`. stdout carries only the protocol;
 * everything else goes to stderr through the logger. One connection is one caller.
 */
import { randomUUID } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import type { Logger } from "../../core/logger.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { createMcpServer } from "./server.js";

export interface StdioOptions {
  readonly registry: ToolRegistry;
  readonly logger: Logger;
  /** Injectable for tests; default process.stdin / process.stdout. */
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  /** Carry structured results too (see McpServerOptions.structured). */
  readonly structured?: boolean;
}

export interface StdioHandle {
  /** Resolves when the client has gone away (stdin closed) and the connection is torn down. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

export function startStdioServer(options: StdioOptions): StdioHandle {
  const caller = `stdio:${randomUUID()}`;
  const transport = new StdioServerTransport(options.stdin, options.stdout);
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  // serveStdio owns the transport and sets its callbacks; wrap onclose after it does.
  const handle = serveStdio(() => createMcpServer(options, { caller }), {
    transport,
    // A malformed line from the client is reported briefly; the SDK's message can be kilobytes.
    onerror: (error) => options.logger.warn("stdio transport error", { error: error.message.slice(0, 200) }),
  });
  const previous = transport.onclose;
  transport.onclose = () => {
    previous?.();
    resolveClosed();
  };
  return {
    closed,
    async close() {
      await handle.close();
      resolveClosed();
    },
  };
}
