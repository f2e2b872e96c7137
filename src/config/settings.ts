/**
 * The one place the environment is read. An adapter hands its environment (process.env, the
 * SDK's or the HTTP handler's `env` option, Pi's process) to `resolveSettings` once, and every
 * layer below receives the frozen result, or the typed values it needs from it, through its
 * constructor. A set but unusable value is kept as its `configuration_error` and thrown where
 * the value is used, so it is reported when it was before: a bad code_search setting by every
 * code_search call, a bad shared store by every call that needs it and by servers at start.
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { EvidentError } from "../core/errors.js";
import {
  CODE_SEARCH_DEADLINE_MS,
  CODE_SEARCH_MAX_PROCESSES,
  KEPT_MAX_BYTES,
  KEPT_MIN_BYTES,
  WEB_READ_MEMORY_MB,
  WEB_READ_MEMORY_MIN_MB,
  WEB_READ_THREAD_IDLE_MS,
} from "../core/limits.js";
import {
  KEY_VARIABLE,
  type RedisStoreSettings,
  resolveRedisStoreSettings,
  STORE_VARIABLE,
} from "../core/redis/settings.js";
import { type Env, envInteger, envList, envValue } from "./env.js";
import { type HttpSettings, resolveHttpSettings } from "./http.js";
import {
  type ConfigLocation,
  type ConfigResult,
  configPath,
  configRevision,
  type LoadConfigOptions,
  loadConfig,
  searchProviderIdsHint,
} from "./load.js";
import { type InterfaceLocale, readInterfaceLocale } from "./locale.js";
import { unknownVariables, type VariableReport } from "./variables.js";

/** A resolved value, or the configuration_error its variable is (thrown where it is used). */
export type Setting<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: EvidentError };

/** The value of a setting, or its configuration_error. */
export function settingValue<T>(setting: Setting<T>): T {
  if (!setting.ok) throw setting.error;
  return setting.value;
}

/**
 * The environment evident's child processes get (ripgrep, git, ctags, stdio MCP upstreams),
 * where their executables are looked up (`PATH`) and where an upstream's credential references
 * (`{"env": "NAME"}`) resolve: the caller's own environment, as its adapter handed it over.
 * Each consumer narrows it (git keeps a short list of variables, ctags adds its own TMPDIR).
 */
export type ChildEnvironment = Readonly<Record<string, string | undefined>>;

/** Where the private cache directories live: `EVIDENT_CACHE_DIR` (relative to a root), else a base. */
export type CacheLocation =
  | { readonly explicit: string }
  | { /** `$XDG_CACHE_HOME/evident` or `~/.cache/evident`. */ readonly base: string };

/** code_search's operator settings (the service's `settings`). */
export interface CodeSettings {
  /** Overall deadline of one call (EVIDENT_CODE_SEARCH_DEADLINE_MS). */
  readonly deadlineMs: number;
  /** Subprocesses run at once (EVIDENT_CODE_SEARCH_MAX_PROCESSES). */
  readonly maxProcesses: number;
}

/** The direct reader's threads (web/providers/direct/reader-thread.ts). */
export interface ReaderSettings {
  /** A thread's heap bound in MiB (EVIDENT_WEB_READ_MEMORY_MB). */
  readonly memoryMb: number;
  /** How long a thread that answered is kept for the next page (EVIDENT_WEB_READ_THREAD_IDLE_MS). */
  readonly idleMs: number;
}

export interface WebSettings {
  /** `EVIDENT_ALLOW_PRIVATE_NETWORK=true`, said at startup before any configuration loads. */
  readonly privateNetworkAtStart: boolean;
  /** The preset names of `EVIDENT_MCP_PRESETS` (empty when unset). */
  readonly mcpPresets: Setting<readonly string[]>;
  /** The direct reader's threads: their memory and how long one is kept idle. */
  readonly reader: Setting<ReaderSettings>;
  /**
   * The web configuration (environment, then config file, then defaults), loaded anew for each
   * config file revision.
   */
  load(options: LoadConfigOptions): Promise<ConfigResult>;
  /** The config file's revision: a change means `load` again. */
  revision(): Promise<string>;
  /** Search-capable provider ids configured now, for a tool description (advisory). */
  searchProviderIds(): string[];
}

export interface Settings {
  readonly childEnvironment: ChildEnvironment;
  /** The config file (EVIDENT_CONFIG, or the XDG default). */
  readonly configFile: ConfigLocation;
  /** EVIDENT_ROOT as set (a path, relative to the surface's working directory), if set. */
  readonly root: Setting<string | undefined>;
  readonly cache: Setting<CacheLocation>;
  /** The shared store (EVIDENT_SNAPSHOT_STORE, EVIDENT_CURSOR_KEY), undefined for none. */
  readonly sharedStore: Setting<RedisStoreSettings | undefined>;
  /** EVIDENT_KEPT_MAX_BYTES: the bytes one kept-data store holds, on every backend. */
  readonly keptMaxBytes: Setting<number>;
  readonly code: Setting<CodeSettings>;
  /** EVIDENT_RG_PATH as set (checked where ripgrep is resolved). */
  readonly rgPath: string | undefined;
  readonly web: WebSettings;
  /**
   * EVIDENT_METRICS_PUBLIC=true: the HTTP server's `GET /metrics` answers without the bearer
   * token (a scraper on a private network); by default it asks for the token like `/mcp`.
   */
  readonly metricsPublic: Setting<boolean>;
  /**
   * EVIDENT_MCP_STRUCTURED=true: MCP results carry structured data as well as text (see
   * McpServerOptions.structured); any value but true or false is refused, so a typo never
   * silently changes what every client receives.
   */
  readonly mcpStructured: Setting<boolean>;
  /** The HTTP transport's settings (EVIDENT_HTTP_*, the tokens); an error refuses to serve. */
  readonly http: Setting<HttpSettings>;
  /** What `evident config show` says of the HTTP transport's authentication. */
  readonly httpAuth: { readonly tokens: number; readonly anonymous: boolean };
  /** `EVIDENT_*` variables evident does not read (unknown or retired), for doctor and start-up logs. */
  readonly unknownVariables: readonly VariableReport[];
  /** The language of what a host shows a person: EVIDENT_LOCALE, else the config's `locale`. */
  interfaceLocale(): Promise<InterfaceLocale>;
}

/** Resolves every setting of `env` once. Never throws: a bad value is kept as its error. */
export function resolveSettings(env: Env): Settings {
  const source: Env = Object.freeze({ ...env });
  const configFile = configPath(source);
  return Object.freeze({
    childEnvironment: source,
    configFile,
    root: setting(() => envValue(source, "EVIDENT_ROOT")),
    cache: setting(() => cacheLocation(source)),
    sharedStore: setting(() => sharedStoreSettings(source)),
    keptMaxBytes: setting(() =>
      envInteger(source, "EVIDENT_KEPT_MAX_BYTES", KEPT_MAX_BYTES, { min: KEPT_MIN_BYTES }),
    ),
    code: setting(() => ({
      deadlineMs: envInteger(source, "EVIDENT_CODE_SEARCH_DEADLINE_MS", CODE_SEARCH_DEADLINE_MS),
      maxProcesses: envInteger(source, "EVIDENT_CODE_SEARCH_MAX_PROCESSES", CODE_SEARCH_MAX_PROCESSES),
    })),
    rgPath: source.EVIDENT_RG_PATH,
    web: webSettings(source, configFile),
    metricsPublic: setting(() => envFlag(source, "EVIDENT_METRICS_PUBLIC")),
    mcpStructured: setting(() => envFlag(source, "EVIDENT_MCP_STRUCTURED")),
    http: setting(() => resolveHttpSettings(source)),
    httpAuth: {
      tokens: [source.EVIDENT_AUTH_TOKEN, ...(source.EVIDENT_AUTH_TOKENS ?? "").split(",")].filter(
        (token) => token !== undefined && token.trim() !== "",
      ).length,
      anonymous: source.EVIDENT_ALLOW_ANONYMOUS?.trim() === "true",
    },
    unknownVariables: Object.freeze(unknownVariables(source)),
    interfaceLocale: () => readInterfaceLocale(configFile, source),
  });
}

function webSettings(env: Env, configFile: ConfigLocation): WebSettings {
  return Object.freeze({
    privateNetworkAtStart: env.EVIDENT_ALLOW_PRIVATE_NETWORK?.trim() === "true",
    mcpPresets: setting(() => envList(env, "EVIDENT_MCP_PRESETS") ?? []),
    reader: setting(() =>
      Object.freeze({
        memoryMb: envInteger(env, "EVIDENT_WEB_READ_MEMORY_MB", WEB_READ_MEMORY_MB, {
          min: WEB_READ_MEMORY_MIN_MB,
        }),
        idleMs: envInteger(env, "EVIDENT_WEB_READ_THREAD_IDLE_MS", WEB_READ_THREAD_IDLE_MS, { min: 0 }),
      }),
    ),
    load: (options: LoadConfigOptions) => loadConfig(env, { configFile, ...options }),
    revision: () => configRevision(configFile),
    searchProviderIds: () => searchProviderIdsHint(env, configFile),
  });
}

/**
 * `EVIDENT_CACHE_DIR` when set, else `$XDG_CACHE_HOME/evident` (an absolute XDG_CACHE_HOME
 * only), else `~/.cache/evident`.
 */
function cacheLocation(env: Env): CacheLocation {
  const explicit = envValue(env, "EVIDENT_CACHE_DIR");
  if (explicit !== undefined) return { explicit };
  const xdg = nonBlank(env.XDG_CACHE_HOME);
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(nonBlank(env.HOME) ?? homedir(), ".cache");
  return { base: join(base, "evident") };
}

/** The shared store `env` asks for (EVIDENT_SNAPSHOT_STORE, EVIDENT_CURSOR_KEY), or undefined. */
export function sharedStoreSettings(env: Env): RedisStoreSettings | undefined {
  return resolveRedisStoreSettings(envValue(env, STORE_VARIABLE), env[KEY_VARIABLE]);
}

/** The directory of one kind of kept state for `env`: `cacheDirOf` its cache location. */
export function cacheDir(env: Env, cwd: string, kind: string): string {
  return cacheDirOf(cacheLocation(env), cwd, kind);
}

/** The directory of one kind of kept state, for a surface whose relative settings start at `cwd`. */
export function cacheDirOf(location: CacheLocation, cwd: string, kind: string): string {
  return "explicit" in location ? join(resolve(cwd, location.explicit), kind) : join(location.base, kind);
}

/** `true` or `false`; unset or empty is false; anything else names the variable. */
function envFlag(env: Env, name: string): boolean {
  const raw = envValue(env, name);
  if (raw === undefined || raw === "false") return false;
  if (raw === "true") return true;
  throw new EvidentError("configuration_error", `${name} must be true or false, got "${raw.slice(0, 20)}".`, {
    details: { key: name },
  });
}

function nonBlank(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

function setting<T>(read: () => T): Setting<T> {
  try {
    return { ok: true, value: read() };
  } catch (error) {
    if (error instanceof EvidentError) return { ok: false, error };
    throw error;
  }
}
