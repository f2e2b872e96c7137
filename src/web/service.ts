/**
 * The web service behind web_search and web_read: it owns the configuration generations.
 *
 * Before each call it compares the config file's revision with the one its router was built
 * from. On a change it loads the new configuration and builds a new router (providers, HTTP
 * client); the old generation is retired and closed once its in-flight calls have finished, so
 * a call never loses its providers halfway. An invalid configuration is kept as a generation
 * too: every call then fails with the `configuration_error` that names the bad key, and the
 * tools stay listed.
 */

import type { ConfigLocation, ConfigResult, WebConfig } from "../config/load.js";
import type { ProviderEntry } from "../config/schema.js";
import { cacheDirOf, type Settings, settingValue } from "../config/settings.js";
import { anySignal } from "../core/abort.js";
import { EvidentError } from "../core/errors.js";
import { FileKeptStore } from "../core/file-kept-store.js";
import { type KeptOptions, type KeptStore, redoErrors } from "../core/kept.js";
import { type KeptPool, MemoryKeptStore } from "../core/kept-memory.js";
import { WEB_PAGES_TTL_MS } from "../core/limits.js";
import type { Logger } from "../core/logger.js";
import type { Metrics } from "../core/metrics.js";
import type { Phrasing } from "../core/phrasing.js";
import { RedisKeptStore } from "../core/redis/kept-store.js";
import type { ToolSuccess } from "../core/result.js";
import { createHttpClient, type HttpClientOptions } from "../net/client.js";
import type { LookupFunction } from "../net/guard.js";
import type { HttpClient } from "../net/http-client.js";
import { configFileSchema } from "./config-schema.js";
import type { ReadEnvelope, SearchEnvelope } from "./envelope.js";
import { PROVIDER_FACTORIES, type ProviderFactory, ProviderSet } from "./provider-set.js";
import { type KeptPage, ReadPages } from "./read-pages.js";
import { type CallScope, type ReadInput, type SearchInput, WebRouter } from "./router.js";

export interface WebServiceOptions {
  /** The operator's settings, resolved once by the adapter (config/settings.ts). */
  readonly settings: Settings;
  readonly logger: Logger;
  /** DNS lookup for every connection and URL check (tests map names to loopback). */
  readonly lookup?: LookupFunction;
  /** Replaces adapter factories by adapter name (tests, embedding). */
  readonly factories?: Readonly<Record<string, ProviderFactory>>;
  /** Addresses the guard treats as public (tests only; see HttpClientOptions.treatAsPublic). */
  readonly treatAsPublic?: readonly string[];
  /** Default per-attempt deadline; PROVIDER_ATTEMPT_DEADLINE_MS when unset. */
  readonly attemptDeadlineMs?: number;
  /**
   * Where long reads are kept for their cursors: in memory (long-lived surfaces), or in the
   * private cache directory (`persistent`: the one-shot CLI, whose next process continues).
   * The shared store (`EVIDENT_SNAPSHOT_STORE`), when configured, takes precedence on every surface.
   */
  readonly pages?: "memory" | "persistent";
  /** Kept in memory, long pages hold one bound with the other stores of this pool (code_search's). */
  readonly memoryPool?: KeptPool;
  /** Base of a relative `EVIDENT_CACHE_DIR`. */
  readonly cwd?: string;
  /** How advice in warnings and errors is written for the surface (default: MCP's). */
  readonly phrasing?: Phrasing;
  /** Where provider attempts are counted (the registry's metrics). */
  readonly metrics?: Metrics;
}

interface Generation {
  readonly revision: string;
  readonly result: ConfigResult;
  readonly router?: WebRouter;
  readonly providers?: ProviderSet;
  readonly http?: HttpClient;
  inFlight: number;
  retired: boolean;
  closed?: Promise<void>;
}

export class WebService {
  readonly #options: WebServiceOptions;
  #current: Generation | undefined;
  #loading: Promise<Generation> | undefined;
  #closing: Promise<void> | undefined;
  readonly #all = new Set<Generation>();
  /**
   * Calls in flight, each aborted by close() before the HTTP clients are: a call then ends
   * `cancelled`, not as a provider's "network error" when its connection is torn down under it.
   * A set rather than one shared signal every call listens to, which gained a listener per call
   * in flight (MaxListenersExceededWarning from the eleventh).
   */
  readonly #calls = new Set<AbortController>();
  /** Outlives configuration generations: a cursor from before a config change still reads. */
  readonly #pages: ReadPages;

  constructor(options: WebServiceOptions) {
    this.#options = options;
    this.#pages = new ReadPages(keptPages(options));
  }

  /** Loads the configuration now (startup logging); calls would otherwise load it on first use. */
  async ready(): Promise<ConfigResult> {
    return (await this.#generation()).result;
  }

  async search(
    input: SearchInput,
    signal: AbortSignal,
    scope: CallScope = {},
  ): Promise<ToolSuccess<SearchEnvelope>> {
    return this.#with((router, linked) => router.search(input, linked, scope), signal);
  }

  async read(
    input: ReadInput,
    signal: AbortSignal,
    caller?: string,
    scope: CallScope = {},
  ): Promise<ToolSuccess<ReadEnvelope>> {
    return this.#with((router, linked) => router.read(input, linked, caller, scope), signal);
  }

  /** The next part of a long read, from the kept document (no provider is called). */
  async readCursor(cursor: string, caller?: string): Promise<ToolSuccess<ReadEnvelope>> {
    return this.#with((router) => router.readCursor(cursor, caller));
  }

  /** The configuration in use (for `doctor` and diagnostics). */
  async config(): Promise<ConfigResult> {
    return (await this.#generation()).result;
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      const reason = new EvidentError("cancelled", "The web tools are shutting down.");
      for (const call of this.#calls) call.abort(reason);
      await this.#loading?.catch(() => undefined);
      await Promise.allSettled([...this.#all].map((generation) => this.#closeGeneration(generation)));
      await this.#pages.close();
    })();
    return this.#closing;
  }

  async #with<T>(
    work: (router: WebRouter, signal: AbortSignal) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    if (this.#closing !== undefined) throw new EvidentError("cancelled", "The web tools are shutting down.");
    const generation = await this.#generation();
    if (!generation.result.ok) throw generation.result.error;
    // Closing began while the configuration loaded: close() did not see this call.
    if (this.#closing !== undefined) throw new EvidentError("cancelled", "The web tools are shutting down.");
    generation.inFlight++;
    const call = new AbortController();
    this.#calls.add(call);
    const linked = anySignal(signal === undefined ? [call.signal] : [signal, call.signal]);
    try {
      return await work(generation.router as WebRouter, linked.signal);
    } finally {
      this.#calls.delete(call);
      linked.dispose();
      generation.inFlight--;
      if (generation.retired && generation.inFlight === 0) void this.#closeGeneration(generation);
    }
  }

  async #generation(): Promise<Generation> {
    if (this.#loading !== undefined) return this.#loading;
    const current = this.#current;
    const revision = await this.#options.settings.web.revision();
    if (current !== undefined && current.revision === revision) return current;
    if (this.#loading !== undefined) return this.#loading;
    this.#loading = this.#load().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  async #load(): Promise<Generation> {
    const { settings, logger } = this.#options;
    const result = await loadWebConfig(settings);
    let generation: Generation;
    if (result.ok) {
      const config = result.config;
      const http = httpClientFor(config, {
        logger,
        ...(this.#options.lookup === undefined ? {} : { lookup: this.#options.lookup }),
        ...(this.#options.treatAsPublic === undefined ? {} : { treatAsPublic: this.#options.treatAsPublic }),
      });
      const factories = this.#options.factories;
      const providers = new ProviderSet(
        config.providers,
        { env: settings.childEnvironment, reader: settings.web.reader, logger },
        factories === undefined ? PROVIDER_FACTORIES : { ...PROVIDER_FACTORIES, ...factories },
      );
      generation = {
        revision: result.revision,
        result,
        http,
        providers,
        router: this.#router(config, providers, http),
        inFlight: 0,
        retired: false,
      };
      logStartup(config, logger);
    } else {
      logger.error(result.error.message);
      generation = { revision: result.revision, result, inFlight: 0, retired: false };
    }
    const previous = this.#current;
    this.#current = generation;
    this.#all.add(generation);
    if (previous !== undefined) {
      previous.retired = true;
      if (previous.inFlight === 0) void this.#closeGeneration(previous);
    }
    return generation;
  }

  /** The router of one configuration: its routes, budgets and guard switch, with the service's seams. */
  #router(config: WebConfig, providers: ProviderSet, http: HttpClient): WebRouter {
    return new WebRouter({ ...this.#options, ...config, providers, http, pages: this.#pages });
  }

  #closeGeneration(generation: Generation): Promise<void> {
    generation.closed ??= (async () => {
      await generation.providers?.close();
      await generation.http?.close();
      this.#all.delete(generation);
    })();
    return generation.closed;
  }
}

/**
 * Where long reads are kept: in the shared store when the environment names one (replicas then
 * continue each other's cursors; a wrong setting is a `configuration_error`), else in memory or
 * on disk as the surface asked.
 */
function keptPages(options: WebServiceOptions): KeptStore<KeptPage> {
  const bounds: KeptOptions = {
    ttlMs: WEB_PAGES_TTL_MS,
    maxBytes: settingValue(options.settings.keptMaxBytes),
    errors: redoErrors("read the URL again"),
  };
  const shared = settingValue(options.settings.sharedStore);
  if (shared !== undefined) {
    return new RedisKeptStore<KeptPage>({
      ...bounds,
      settings: shared,
      keys: { cursor: shared.keys.keptCursor, data: shared.keys.keptData },
      scope: "pages:",
      tool: "web_read",
      consequence: "web_read cannot keep or continue long pages",
      logger: options.logger,
    });
  }
  if (options.pages === "persistent") {
    return new FileKeptStore<KeptPage>({
      ...bounds,
      dir: cacheDirOf(settingValue(options.settings.cache), options.cwd ?? process.cwd(), "pages"),
      tool: "web_read",
    });
  }
  return new MemoryKeptStore<KeptPage>({
    ...bounds,
    ...(options.memoryPool === undefined ? {} : { pool: options.memoryPool }),
  });
}

/** The HTTP client a configuration calls for: its guard switch and proxies. */
export function httpClientFor(
  config: WebConfig,
  extra: Pick<HttpClientOptions, "logger" | "lookup" | "treatAsPublic"> = {},
): HttpClient {
  const { variables: _names, ...proxy } = config.proxy;
  return createHttpClient({
    allowPrivateNetwork: config.allowPrivateNetwork,
    proxy,
    agentUrlsViaProxy: config.agentUrlsViaProxy,
    ...extra,
  });
}

/**
 * The web configuration as every call sees it: environment, presets, config file, defaults.
 * `configFile` replaces the settings' config file (setup's trial of a planned file).
 */
export async function loadWebConfig(settings: Settings, configFile?: ConfigLocation): Promise<ConfigResult> {
  const { envEntries, envProblems } = await mcpPresetEntries(settings);
  return settings.web.load({
    schema: configFileSchema,
    envEntries,
    envProblems,
    ...(configFile === undefined ? {} : { configFile }),
  });
}

/** `EVIDENT_MCP_PRESETS` entries, read through the `mcp` adapter (loaded only when the variable is set). */
async function mcpPresetEntries(settings: Settings): Promise<{
  envEntries: Array<{ id: string; entry: ProviderEntry }>;
  envProblems: EvidentError[];
}> {
  const names = settings.web.mcpPresets;
  if (!names.ok) return { envEntries: [], envProblems: [names.error] };
  if (names.value.length === 0) return { envEntries: [], envProblems: [] };
  const { presetEntries } = await import("./providers/mcp/presets.js");
  const { MCP_PRESET_IDS } = await import("./providers/mcp/binding.js");
  const { entries, unknown } = presetEntries(names.value);
  return {
    envEntries: entries.map(({ id, entry }) => ({ id, entry: { ...entry } as ProviderEntry })),
    envProblems: unknown.map(
      (name) =>
        new EvidentError(
          "configuration_error",
          `Configuration error at EVIDENT_MCP_PRESETS: unknown preset "${name}"; known presets: ${MCP_PRESET_IDS.join(", ")}`,
          { details: { key: "EVIDENT_MCP_PRESETS" } },
        ),
    ),
  };
}

function logStartup(config: WebConfig, logger: Logger): void {
  for (const notice of config.notices) logger.warn(notice);
  if (config.allowPrivateNetwork) {
    logger.warn(
      `private network access is ON (${config.allowPrivateNetworkSource === "environment" ? "EVIDENT_ALLOW_PRIVATE_NETWORK" : "allowPrivateNetwork in the config file"}): agent-supplied URLs may reach loopback, private and link-local addresses`,
    );
  }
  logger.debug("web providers configured", {
    search_route: config.searchRoute,
    read_route: config.readRoute,
    providers: [...config.providers.values()].map((spec) => ({
      id: spec.id,
      adapter: spec.adapter,
      source: spec.source,
      ...(spec.unavailable === undefined ? {} : { unavailable: spec.unavailable }),
    })),
    ...(config.configPath === undefined ? {} : { config_file: config.configPath }),
  });
}
