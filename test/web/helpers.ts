/**
 * Small in-test providers implementing the Provider interface, and a map-backed provider source,
 * for router and tool tests. They record every call so tests can assert order and counts. And
 * the two web tools as the product registers them, for tool tests.
 */
import type { LookupAddress } from "node:dns";
import { join } from "node:path";
import { resolveSettings } from "../../src/config/settings.js";
import { silentLogger } from "../../src/core/logger.js";
import type { LookupFunction } from "../../src/net/guard.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { createWebReadTool } from "../../src/tools/web-read.js";
import { createWebSearchTool } from "../../src/tools/web-search.js";
import type { WebToolOptions } from "../../src/tools/web-shared.js";
import type {
  Provider,
  ProviderContext,
  ProviderReadOutcome,
  ProviderReadRequest,
  ProviderSearchOutcome,
  ProviderSearchRequest,
} from "../../src/web/provider.js";
import { ProviderError } from "../../src/web/provider.js";
import type { ProviderSource } from "../../src/web/router.js";

export interface FakeBehaviour {
  readonly search?: (
    request: ProviderSearchRequest,
    context: ProviderContext,
  ) => Promise<ProviderSearchOutcome>;
  readonly read?: (request: ProviderReadRequest, context: ProviderContext) => Promise<ProviderReadOutcome>;
  readonly focus?: boolean;
  readonly anonymous?: boolean;
  readonly attemptDeadlineMs?: number;
}

export interface FakeProvider extends Provider {
  readonly calls: Array<{ kind: "search" | "read"; request: unknown }>;
}

export function fake(id: string, behaviour: FakeBehaviour): FakeProvider {
  const calls: FakeProvider["calls"] = [];
  return {
    id,
    adapter: "fake",
    anonymous: behaviour.anonymous ?? false,
    capabilities: {
      search: behaviour.search !== undefined,
      read: behaviour.read !== undefined,
      focus: behaviour.focus ?? false,
    },
    ...(behaviour.attemptDeadlineMs === undefined ? {} : { attemptDeadlineMs: behaviour.attemptDeadlineMs }),
    calls,
    ...(behaviour.search === undefined
      ? {}
      : {
          search: (request: ProviderSearchRequest, context: ProviderContext) => {
            calls.push({ kind: "search", request });
            return (behaviour.search as NonNullable<FakeBehaviour["search"]>)(request, context);
          },
        }),
    ...(behaviour.read === undefined
      ? {}
      : {
          read: (request: ProviderReadRequest, context: ProviderContext) => {
            calls.push({ kind: "read", request });
            return (behaviour.read as NonNullable<FakeBehaviour["read"]>)(request, context);
          },
        }),
  };
}

export const rows = (id: string, n = 2): ProviderSearchOutcome => ({
  results: Array.from({ length: n }, (_, i) => ({
    title: `${id} result ${i}`,
    url: `https://${id}.example.com/${i}`,
    snippet: `snippet ${i} from ${id}`,
  })),
});

export const failing =
  (id: string, status = 429) =>
  async (): Promise<never> => {
    throw new ProviderError(id, "http", `${id} HTTP ${status}`, { status });
  };

/** Resolves when the signal aborts, never otherwise: a provider that hangs until stopped. */
export const untilAborted = (context: ProviderContext): Promise<never> =>
  new Promise((_resolve, reject) => {
    context.signal.addEventListener("abort", () => reject(context.signal.reason), { once: true });
  });

export function source(providers: readonly Provider[]): ProviderSource {
  const map = new Map(providers.map((p) => [p.id, p]));
  return {
    has: (id) => map.has(id),
    ids: (capability) =>
      [...map.values()]
        .filter((p) => capability === undefined || p.capabilities[capability])
        .map((p) => p.id),
    get: async (id) => {
      const provider = map.get(id);
      if (provider === undefined) throw new Error(`no provider ${id}`);
      return provider;
    },
  };
}

/** Every name resolves to a documentation-free public address; nothing is ever sent to it. */
export const publicLookup: LookupFunction = (_hostname, options, callback) => {
  const answer: LookupAddress = { address: "93.184.216.34", family: 4 };
  if (options.all) callback(null, [answer]);
  else callback(null, answer.address, answer.family);
};

/** A promise plus its resolver, for "this has started" signals between test and provider. */
export function latch<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * web_search and web_read registered as the product does, working in `dir`. Their environment is
 * only what the test sets (and a config directory that does not exist): never the developer's
 * real keys or switches.
 */
export function webTools(
  dir: string,
  vars: Record<string, string>,
  options: WebToolOptions = {},
): ToolRegistry {
  const settings = resolveSettings({ XDG_CONFIG_HOME: join(dir, "no-config"), ...vars });
  const env = { cwd: dir, settings, logger: silentLogger };
  return new ToolRegistry()
    .register(createWebSearchTool(env, options))
    .register(createWebReadTool(env, options));
}
