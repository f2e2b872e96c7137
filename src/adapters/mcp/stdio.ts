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
import { frameStdin } from "./stdio-framing.js";

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
  const stdout = options.stdout ?? process.stdout;
  const input = frameStdin(options.stdin ?? process.stdin, stdout, options.logger);
  const transport = new StdioServerTransport(input.messages, stdout, { maxBufferSize: input.maxLineBytes });
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  // serveStdio owns the transport and sets its callbacks; wrap onclose after it does.
  const handle = serveStdio(() => createMcpServer(options, { caller }), {
    transport,
    // Malformed lines are answered by the framing; what still arrives here is reported briefly.
    onerror: (error) => options.logger.warn("stdio transport error", { error: error.message.slice(0, 200) }),
  });
  const previous = transport.onclose;
  transport.onclose = () => {
    previous?.();
    input.stop();
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
