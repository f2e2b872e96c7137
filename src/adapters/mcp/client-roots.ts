/**
 * The roots an MCP client offers (the `roots` capability of 2025-era connections): listed once
 * the connection is initialized and again on every `notifications/roots/list_changed`, so each
 * code_search call searches the client's current first root. A client without roots, a
 * stateless HTTP request (no server-to-client channel), a 2026-era connection (which has no
 * push-style roots/list) or a failed listing leaves the surface's own root in force.
 */
import type { Server } from "@modelcontextprotocol/server";
import { ROOTS_LIST_TIMEOUT_MS } from "../../core/limits.js";
import type { Logger } from "../../core/logger.js";
import { rootsFromUris } from "../../tools/project-root.js";

export class ClientRoots {
  readonly #server: Server;
  readonly #logger: Logger;
  #current: Promise<string[] | undefined> = Promise.resolve(undefined);

  constructor(server: Server, logger: Logger) {
    this.#server = server;
    this.#logger = logger;
    server.oninitialized = () => this.refresh();
    server.setNotificationHandler("notifications/roots/list_changed", () => this.refresh());
  }

  refresh(): void {
    if (this.#server.getClientCapabilities()?.roots === undefined) return;
    this.#current = this.#server
      .listRoots(undefined, { timeout: ROOTS_LIST_TIMEOUT_MS })
      .then((result) => {
        const roots = rootsFromUris(result.roots.map((root) => root.uri));
        return roots.length > 0 ? roots : undefined;
      })
      .catch((error: unknown) => {
        this.#logger.warn("the client's roots could not be listed; using the server's project root", {
          error: error instanceof Error ? error.message : String(error),
        });
        return undefined;
      });
  }

  /** The latest listing (awaited if one is under way); undefined when the client named none. */
  current(): Promise<string[] | undefined> {
    return this.#current;
  }
}
