/**
 * What web_search and web_read share: one WebService per tool environment (so both tools use
 * the same providers, HTTP pools and upstream MCP connections) and its lazy loading. The
 * service module, and through it undici and the adapters, loads on
 * the first call: registering the tools costs nothing at startup.
 */
import { phrasingFor } from "../core/phrasing.js";
import type { CallScope } from "../web/router.js";
import type { WebService, WebServiceOptions } from "../web/service.js";
import { keptPoolFor } from "./kept-pool.js";
import type { ToolContext, ToolEnvironment } from "./tool.js";

interface Shared {
  service: Promise<WebService> | undefined;
  users: number;
  closing: Promise<void> | undefined;
}

const shared = new WeakMap<ToolEnvironment, Shared>();

/** Seams for tests and embedders; the product passes none. */
export type WebToolOptions = Partial<
  Omit<WebServiceOptions, "settings" | "logger" | "cwd" | "pages" | "memoryPool">
>;

export interface WebServiceHandle {
  get(): Promise<WebService>;
  release(): Promise<void>;
}

/** The service shared by the web tools of one environment; each tool releases it on close. */
export function webServiceFor(env: ToolEnvironment, options: WebToolOptions = {}): WebServiceHandle {
  let entry = shared.get(env);
  if (entry === undefined || entry.closing !== undefined) {
    entry = { service: undefined, users: 0, closing: undefined };
    shared.set(env, entry);
    // Said at startup, before any call loads the configuration (which logs it again, along with
    // the config file's switch): an operator must see that the guard is relaxed.
    if (env.settings.web.privateNetworkAtStart) {
      env.logger.warn(
        "EVIDENT_ALLOW_PRIVATE_NETWORK=true: web_read may reach loopback, private and link-local addresses",
      );
    }
  }
  const current = entry;
  current.users++;
  let released = false;
  return {
    get() {
      current.service ??= import("../web/service.js").then(
        ({ WebService }) =>
          new WebService({
            settings: env.settings,
            logger: env.logger,
            cwd: env.cwd,
            // One-shot surfaces keep long reads on disk so the next process can continue a cursor.
            pages: env.snapshots === "persistent" ? "persistent" : "memory",
            // In memory, long pages share one bound with code_search's results.
            memoryPool: keptPoolFor(env),
            phrasing: phrasingFor(env.surface ?? "mcp"),
            ...(env.metrics === undefined ? {} : { metrics: env.metrics }),
            ...options,
          }),
      );
      return current.service;
    },
    async release() {
      if (released) return current.closing;
      released = true;
      current.users--;
      if (current.users > 0) return;
      current.closing ??= (async () => {
        if (current.service !== undefined) await (await current.service).close();
      })();
      return current.closing;
    },
  };
}

/** What a web call passes down besides its arguments: the call's logger and trace context. */
export function callScope(context: ToolContext): CallScope {
  return { logger: context.logger, ...(context.trace === undefined ? {} : { trace: context.trace }) };
}
