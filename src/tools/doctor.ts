/**
 * What `evident config show` and `evident doctor` tell a person: the effective configuration
 * (keys masked to their last 4 characters, where each value came from), and for `doctor` a live
 * probe of each provider in use, in parallel, each bounded by its attempt deadline, with the
 * class of any failure; plus ripgrep, the config file, the network guard and the HTTP token.
 */
import { execFile } from "node:child_process";
import { statSync } from "node:fs";
import { resolveRgPath } from "../code/rg/binary.js";
import type { ConfigSource, ProviderSpec, WebConfig } from "../config/load.js";
import type { Settings } from "../config/settings.js";
import type { VariableReport } from "../config/variables.js";
import { raceAbort, withDeadline } from "../core/abort.js";
import { PROVIDER_ATTEMPT_DEADLINE_MS } from "../core/limits.js";
import { silentLogger } from "../core/logger.js";
import { describeUrl, type LookupFunction } from "../net/guard.js";
import type { HttpClient } from "../net/http-client.js";
import { describeProxy } from "../net/proxy.js";
import { type Provider, ProviderError, type ProviderFailure } from "../web/provider.js";
import { ProviderSet } from "../web/provider-set.js";
import { timedOutReason } from "../web/router.js";
import { httpClientFor, loadWebConfig } from "../web/service.js";

export interface ProviderView {
  readonly id: string;
  readonly adapter: string;
  readonly source: ConfigSource;
  /** `****abcd`: the key's last 4 characters (none shown for keys under 8 characters). */
  readonly key?: string;
  readonly baseUrl?: string;
  readonly unavailable?: string;
}

export interface ConfigView {
  readonly configFile: {
    readonly path: string;
    readonly exists: boolean;
    readonly mode?: string;
    /** Set when EVIDENT_CONFIG holds the configuration itself: then the file is not read. */
    readonly variable?: "EVIDENT_CONFIG";
  };
  readonly ok: boolean;
  /** `EVIDENT_*` variables evident does not read (unknown, with the closest name, or retired). */
  readonly variables?: readonly VariableReport[];
  /** The configuration error, when the configuration cannot be used. */
  readonly error?: { readonly message: string; readonly key?: unknown; readonly issues?: unknown };
  readonly providers?: readonly ProviderView[];
  readonly routes?: {
    readonly search: { readonly ids: readonly string[]; readonly source: ConfigSource };
    readonly intents: Readonly<Record<string, readonly string[]>>;
    readonly read: { readonly ids: readonly string[]; readonly source: ConfigSource };
  };
  readonly network?: {
    readonly allowPrivateNetwork: boolean;
    readonly allowPrivateNetworkSource: ConfigSource;
    readonly proxy: {
      readonly http?: string;
      readonly https?: string;
      readonly noProxy?: string;
      readonly variables: readonly string[];
    };
    readonly agentUrlsViaProxy: boolean;
  };
  readonly callDeadlineMs?: number;
  readonly envelopeBudgetChars?: number;
  /** What the operator should fix that stops nothing (a config file with keys others can read). */
  readonly notices?: readonly string[];
  readonly http: { readonly tokens: number; readonly anonymous: boolean };
}

export function maskKey(key: string): string {
  return key.length < 8 ? "****" : `****${key.slice(-4)}`;
}

/** The effective configuration, masked: what `evident config show` prints. */
export async function configView(settings: Settings): Promise<ConfigView> {
  const { path } = settings.configFile;
  const info = statSync(path, { throwIfNoEntry: false });
  const configFile = {
    path,
    exists: info !== undefined,
    ...(info === undefined ? {} : { mode: (info.mode & 0o777).toString(8).padStart(4, "0") }),
    ...(settings.configFile.document === undefined ? {} : { variable: "EVIDENT_CONFIG" as const }),
  };
  const http = settings.httpAuth;
  const variables = settings.unknownVariables.length === 0 ? {} : { variables: settings.unknownVariables };
  const loaded = await loadWebConfig(settings);
  if (!loaded.ok) {
    const { key, issues } = loaded.error.details;
    return {
      configFile,
      ok: false,
      ...variables,
      error: {
        message: loaded.error.message,
        ...(key === undefined ? {} : { key }),
        ...(issues === undefined ? {} : { issues }),
      },
      http,
    };
  }
  const config = loaded.config;
  return {
    configFile,
    ok: true,
    ...variables,
    providers: [...config.providers.values()].map(providerView),
    routes: {
      search: { ids: config.searchRoute, source: config.searchRouteSource },
      intents: config.intentRoutes,
      read: { ids: config.readRoute, source: config.readRouteSource },
    },
    network: {
      allowPrivateNetwork: config.allowPrivateNetwork,
      allowPrivateNetworkSource: config.allowPrivateNetworkSource,
      proxy: {
        ...(config.proxy.httpProxy === undefined ? {} : { http: describeProxy(config.proxy.httpProxy) }),
        ...(config.proxy.httpsProxy === undefined ? {} : { https: describeProxy(config.proxy.httpsProxy) }),
        ...(config.proxy.noProxy === undefined ? {} : { noProxy: config.proxy.noProxy }),
        variables: config.proxy.variables,
      },
      agentUrlsViaProxy: config.agentUrlsViaProxy,
    },
    callDeadlineMs: config.callDeadlineMs,
    envelopeBudgetChars: config.envelopeBudgetChars,
    ...(config.notices.length === 0 ? {} : { notices: config.notices }),
    http,
  };
}

function providerView(spec: ProviderSpec): ProviderView {
  const { apiKey, baseUrl } = spec.options as { apiKey?: unknown; baseUrl?: unknown };
  return {
    id: spec.id,
    adapter: spec.adapter,
    source: spec.source,
    ...(typeof apiKey === "string" ? { key: maskKey(apiKey) } : {}),
    ...(typeof baseUrl === "string" ? { baseUrl: describeUrl(baseUrl) } : {}),
    ...(spec.unavailable === undefined ? {} : { unavailable: spec.unavailable }),
  };
}

export type ProbeResult =
  | { readonly id: string; readonly status: "ok"; readonly latencyMs: number; readonly probe: string }
  | {
      readonly id: string;
      readonly status: "failed";
      readonly reason: ProviderFailure;
      readonly message: string;
      readonly latencyMs: number;
    }
  | { readonly id: string; readonly status: "skipped"; readonly message: string };

export interface DoctorReport {
  readonly ok: boolean;
  readonly config: ConfigView;
  readonly probes: readonly ProbeResult[];
  readonly ripgrep: {
    readonly ok: boolean;
    readonly path?: string;
    readonly source?: string;
    readonly version?: string;
    readonly error?: string;
  };
}

export interface DoctorOptions {
  /** DNS lookup for every connection (tests map names to loopback). */
  readonly lookup?: LookupFunction;
}

/** Everything `evident doctor` checks; `ok` is true when every configured thing works. */
export async function runDoctor(settings: Settings, options: DoctorOptions = {}): Promise<DoctorReport> {
  const [config, ripgrep, loaded] = await Promise.all([
    configView(settings),
    checkRipgrep(settings),
    loadWebConfig(settings),
  ]);
  const probes = loaded.ok ? await probeProviders(settings, loaded.config, options) : [];
  const ok = config.ok && ripgrep.ok && probes.every((probe) => probe.status !== "failed");
  return { ok, config, probes, ripgrep };
}

/**
 * Probes the providers in use: every provider the environment or the file defines, and every
 * provider on a route. Keyless defaults on no route are not in use, so they are not probed.
 */
async function probeProviders(
  settings: Settings,
  config: WebConfig,
  options: DoctorOptions,
): Promise<ProbeResult[]> {
  const onRoute = new Set([
    ...config.searchRoute,
    ...config.readRoute,
    ...Object.values(config.intentRoutes).flat(),
  ]);
  const specs = [...config.providers.values()].filter(
    (spec) => spec.source !== "default" || onRoute.has(spec.id),
  );
  const http = httpClientFor(config, options.lookup === undefined ? {} : { lookup: options.lookup });
  const set = new ProviderSet(config.providers, {
    env: settings.childEnvironment,
    reader: settings.web.reader,
    logger: silentLogger,
  });
  try {
    return await Promise.all(specs.map((spec) => probeOne(spec, set, http)));
  } finally {
    await set.close();
    await http.close();
  }
}

async function probeOne(spec: ProviderSpec, set: ProviderSet, http: HttpClient): Promise<ProbeResult> {
  if (spec.unavailable !== undefined) {
    return {
      id: spec.id,
      status: "failed",
      reason: "configuration",
      message: `${spec.id} is not usable: ${spec.unavailable}`,
      latencyMs: 0,
    };
  }
  const provider = await set.get(spec.id);
  const how = probeOf(provider);
  if (how === undefined) {
    return {
      id: spec.id,
      status: "skipped",
      message: `${spec.id} only reads the pages agents ask for; there is nothing to probe without one`,
    };
  }
  const ms = provider.attemptDeadlineMs ?? PROVIDER_ATTEMPT_DEADLINE_MS;
  const deadline = withDeadline(undefined, ms, `${spec.id} probe`);
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const failed = (reason: ProviderFailure, message: string): ProbeResult => ({
    id: spec.id,
    status: "failed",
    reason,
    message,
    latencyMs: latency(),
  });
  try {
    await raceAbort(how.run({ signal: deadline.signal, http, logger: silentLogger }), deadline.signal);
    return { id: spec.id, status: "ok", latencyMs: latency(), probe: how.name };
  } catch (thrown) {
    if (deadline.signal.aborted) return failed("timeout", timedOutReason(spec.id, ms));
    if (thrown instanceof ProviderError) return failed(thrown.failure, thrown.reason);
    return failed("internal", `${spec.id} failed unexpectedly`);
  } finally {
    deadline.dispose();
  }
}

/** The vendor's own probe, else a one-result search; a provider that only reads has none. */
function probeOf(
  provider: Provider,
):
  | { name: string; run: (context: Parameters<NonNullable<Provider["probe"]>>[0]) => Promise<unknown> }
  | undefined {
  if (provider.probe !== undefined) {
    const probe = provider.probe.bind(provider);
    return { name: "account usage", run: probe };
  }
  if (provider.capabilities.search && provider.search !== undefined) {
    const search = provider.search.bind(provider);
    return {
      name: "one-result search",
      run: (context) => search({ query: "evident", maxResults: 1 }, context),
    };
  }
  return undefined;
}

async function checkRipgrep(settings: Settings): Promise<DoctorReport["ripgrep"]> {
  try {
    const resolved = await resolveRgPath(settings.rgPath, settings.childEnvironment);
    const version = await new Promise<string>((resolve, reject) =>
      execFile(
        resolved.path,
        ["--version"],
        { timeout: 10_000, env: { ...settings.childEnvironment } },
        (error, stdout) => (error ? reject(error) : resolve(stdout.split("\n")[0]?.trim() ?? "")),
      ),
    );
    return { ok: true, path: resolved.path, source: resolved.source, version };
  } catch (thrown) {
    return { ok: false, error: thrown instanceof Error ? thrown.message : "ripgrep could not be run" };
  }
}
