/**
 * Resolving the web configuration from the environment and the optional config file, once per
 * revision, into one plain value the router is built from.
 *
 * Precedence, for every setting: environment variable, then config file, then the documented
 * default (docs/CONFIG.md). The loader never throws: an invalid setting becomes a
 * `configuration_error` naming the bad key or variable, which every tool call then reports, so
 * a broken configuration never hides a tool.
 */
import { createHash } from "node:crypto";
import { realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import type { z } from "zod";
import { readRegularFileSync } from "../core/bounded-read.js";
import { EvidentError } from "../core/errors.js";
import {
  CONFIG_FILE_MAX_BYTES,
  WEB_CALL_DEADLINE_MS,
  WEB_ENVELOPE_BUDGET_CHARS,
  WEB_ENVELOPE_MAX_BUDGET_CHARS,
  WEB_ENVELOPE_MIN_BUDGET_CHARS,
} from "../core/limits.js";
import { commaList, type Env, envList, envValue } from "./env.js";
import { credentialVariableProblem, placeholderReason } from "./placeholder.js";
import {
  type AdapterName,
  CONFIG_VERSION,
  type ConfigFile,
  HTTP_ADAPTERS,
  type HttpAdapter,
  KEYED_ADAPTERS,
  PROVIDER_ID_PATTERN,
  PROVIDER_OPTIONS,
  type ProviderEntry,
  RETIRED_CONFIG_KEYS,
  type Secret,
} from "./schema.js";
import {
  closestName,
  editDistance,
  isProviderVariable,
  KNOWN_VARIABLES,
  optionSuffix,
  PROVIDER_VARIABLE_SUFFIXES,
  providerVariableName,
} from "./variables.js";

export type { Env } from "./env.js";

/** The config file: its path, and whether EVIDENT_CONFIG named it (then it must exist). */
export interface ConfigLocation {
  readonly path: string;
  readonly explicit: boolean;
  /**
   * EVIDENT_CONFIG's value when it holds the configuration itself (a JSON object): then the
   * file at `path` (the default one) is not read, and nothing writes one.
   */
  readonly document?: string;
}

/** Where a provider, route or switch came from (shown by `doctor` and in logs). */
export type ConfigSource = "environment" | "config-file" | "default";

export interface ProviderSpec {
  readonly id: string;
  readonly adapter: AdapterName;
  readonly source: ConfigSource;
  /** The factory's options, credentials resolved. For `mcp`, the validated config entry. */
  readonly options: Readonly<Record<string, unknown>>;
  /** Why the provider cannot be built (an unset credential variable); calls to it explain this. */
  readonly unavailable?: string;
  /**
   * The credential is there but is no key (a variable set but empty, a placeholder): the person
   * chose this provider, so it keeps its place in the default route and calls say what is wrong,
   * where a missing credential leaves the default to the next provider.
   */
  readonly credentialInvalid?: true;
}

export interface WebConfig {
  readonly providers: ReadonlyMap<string, ProviderSpec>;
  readonly searchRoute: readonly string[];
  readonly searchRouteSource: ConfigSource;
  readonly intentRoutes: Readonly<Record<string, readonly string[]>>;
  readonly readRoute: readonly string[];
  readonly readRouteSource: ConfigSource;
  readonly allowPrivateNetwork: boolean;
  readonly allowPrivateNetworkSource: ConfigSource;
  readonly envelopeBudgetChars: number;
  readonly callDeadlineMs: number;
  /** HTTP proxies from HTTPS_PROXY / HTTP_PROXY / NO_PROXY (lower-case forms first), if any. */
  readonly proxy: ProxyConfig;
  /** Whether agent URLs may go through the proxy (their host checked first); default true. */
  readonly agentUrlsViaProxy: boolean;
  readonly agentUrlsViaProxySource: ConfigSource;
  /** The config file that was read, if any. */
  readonly configPath: string | undefined;
  /** Secret values in use, so loggers can redact them. */
  readonly secrets: readonly string[];
  /** Things the operator should know that do not stop anything (logged as warnings). */
  readonly notices: readonly string[];
}

export interface ProxyConfig {
  readonly httpProxy?: string;
  readonly httpsProxy?: string;
  readonly noProxy?: string;
  /** The variables the values came from (`https_proxy`, `NO_PROXY`...), for `doctor`. */
  readonly variables: readonly string[];
}

export type ConfigResult =
  | { readonly ok: true; readonly config: WebConfig; readonly revision: string }
  | { readonly ok: false; readonly error: EvidentError; readonly revision: string };

export interface LoadConfigOptions {
  /** The file schema (from `web/config-schema.ts`, which adds the `mcp` entry schema). */
  readonly schema: z.ZodType;
  /** Extra provider entries the environment defines (the `mcp` presets of `EVIDENT_MCP_PRESETS`). */
  readonly envEntries?: ReadonlyArray<{ readonly id: string; readonly entry: ProviderEntry }>;
  /** Problems found while deriving `envEntries` (reported like any other configuration error). */
  readonly envProblems?: readonly EvidentError[];
  /** The config file to read instead of the environment's (setup's trial of a planned file). */
  readonly configFile?: ConfigLocation;
}

/** The environment variable holding each adapter's credential (first present wins). */
export const CREDENTIAL_ENV: Readonly<Partial<Record<HttpAdapter, readonly string[]>>> = {
  tavily: ["TAVILY_API_KEY"],
  brave: ["BRAVE_SEARCH_API_KEY", "BRAVE_API_KEY"],
  exa: ["EXA_API_KEY"],
  serper: ["SERPER_API_KEY"],
  jina: ["JINA_API_KEY"],
  firecrawl: ["FIRECRAWL_API_KEY"],
  searxng: ["SEARXNG_API_KEY"],
  responses: ["EVIDENT_RESPONSES_API_KEY"],
};

/**
 * Which configured provider the default search route uses when no route is set: the first
 * present in this order. One provider only: a new configuration gets no fallback by itself.
 */
export const DEFAULT_SEARCH_PRIORITY: readonly HttpAdapter[] = [
  "tavily",
  "brave",
  "exa",
  "serper",
  "searxng",
  "responses",
  "firecrawl",
  "jina",
];
export const KEYLESS_SEARCH_PROVIDER = "duckduckgo";
export const KEYLESS_READ_PROVIDER = "direct";

/** Adapters that can search / read (whatever their options); `mcp` depends on its binding. */
export const SEARCH_ADAPTERS: ReadonlySet<AdapterName> = new Set<AdapterName>([
  ...HTTP_ADAPTERS.filter((adapter) => adapter !== KEYLESS_READ_PROVIDER),
  "mcp",
]);
export const READ_ADAPTERS: ReadonlySet<AdapterName> = new Set([
  "tavily",
  "exa",
  "jina",
  "firecrawl",
  "direct",
  "mcp",
]);

/** Whether a provider can serve web_search: by adapter, a keyed Jina, an `mcp` binding with search. */
export function canSearch(spec: Pick<ProviderSpec, "adapter" | "options">): boolean {
  if (spec.adapter === "mcp") return spec.options.search !== undefined || spec.options.preset !== undefined;
  if (spec.adapter === "jina") return spec.options.apiKey !== undefined;
  return SEARCH_ADAPTERS.has(spec.adapter);
}

/** Whether a provider can serve web_read. */
export function canRead(spec: Pick<ProviderSpec, "adapter" | "options">): boolean {
  if (spec.adapter === "mcp") return spec.options.read !== undefined || spec.options.preset !== undefined;
  return READ_ADAPTERS.has(spec.adapter);
}

/**
 * The search-capable provider ids configured now, read cheaply for a tool description (no
 * schema, no adapter module): the keyless default, the environment's providers and presets, and
 * the file's entries. Advisory: calls still go through the full, validated configuration.
 */
export function searchProviderIdsHint(env: Env, at: ConfigLocation): string[] {
  const ids = new Set<string>([KEYLESS_SEARCH_PROVIDER]);
  try {
    for (const spec of envProviders(env, [])) if (canSearch(spec)) ids.add(spec.id);
  } catch {
    // A bad variable is reported by every call; the hint just leaves those providers out.
  }
  for (const name of commaList(env.EVIDENT_MCP_PRESETS ?? "")) ids.add(`mcp-${name}`);
  try {
    const read = at.document === undefined ? readConfigText(at.path) : { text: at.document };
    if (!("text" in read)) return [...ids];
    const file = JSON.parse(read.text) as ConfigFile;
    for (const [id, entry] of Object.entries(file.providers ?? {})) {
      const { type, ...options } = entry as { type: AdapterName } & Record<string, unknown>;
      const keyed = options.apiKey !== undefined || CREDENTIAL_ENV[type as HttpAdapter]?.some((n) => env[n]);
      const spec = { adapter: type, options: keyed ? { ...options, apiKey: "set" } : options };
      if (canSearch(spec)) ids.add(id);
      else ids.delete(id);
    }
  } catch {
    // An unreadable or broken file is explained by every call.
  }
  return [...ids];
}

/**
 * `$XDG_CONFIG_HOME/evident/config.json` (or `~/.config/...`), overridden by `EVIDENT_CONFIG`:
 * a path, or, when its value starts with `{`, the configuration document itself (hosting
 * platforms give a process variables, not files).
 */
export function configPath(env: Env): ConfigLocation {
  const explicit = nonEmpty(env.EVIDENT_CONFIG);
  if (explicit?.startsWith("{") === true) {
    return { path: defaultConfigPath(env), explicit: false, document: explicit };
  }
  if (explicit !== undefined) return { path: explicit, explicit: true };
  return { path: defaultConfigPath(env), explicit: false };
}

function defaultConfigPath(env: Env): string {
  // A relative XDG_CONFIG_HOME is ignored, as the XDG spec says: it would read (and run the MCP
  // commands of) a config file from whatever directory evident was started in.
  const xdg = nonEmpty(env.XDG_CONFIG_HOME);
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(nonEmpty(env.HOME) ?? homedir(), ".config");
  return join(base, "evident", "config.json");
}

/**
 * A fingerprint of the config file's content, and of whether others may write it; a change means
 * the configuration must be reloaded. Checked before every web call. A content hash, not
 * inode/size/mtime: an edit of the same size within one timestamp tick changes no metadata. The
 * file is small, and synchronous reads and stats that do not throw for a missing file keep this
 * at a few microseconds.
 */
export async function configRevision(at: ConfigLocation): Promise<string> {
  if (at.document !== undefined) {
    return `EVIDENT_CONFIG:${createHash("sha256").update(at.document).digest("base64url")}`;
  }
  const { path } = at;
  const read = readConfigText(path);
  if ("absent" in read) return `${path}:absent`;
  if ("problem" in read) return `${path}:unreadable`;
  // Who may write it is part of the revision: a `chmod o-w` of a refused file takes effect.
  const writable = othersWrite(path)?.how ?? "private";
  return `${path}:${writable}:${createHash("sha256").update(read.text).digest("base64url")}`;
}

export type ConfigText =
  | { readonly text: string }
  | { readonly absent: true }
  | { readonly problem: string; readonly cause?: unknown };

/**
 * The config file's text, read only from a regular file of at most CONFIG_FILE_MAX_BYTES. The
 * open never blocks (a FIFO at the path would otherwise hang every call, signals included) and
 * symlinks are followed: a config file kept elsewhere and linked is common.
 */
export function readConfigText(path: string): ConfigText {
  const read = readRegularFileSync(path, CONFIG_FILE_MAX_BYTES);
  switch (read.kind) {
    case "bytes":
      return { text: read.bytes.toString("utf8") };
    case "absent":
      return { absent: true };
    case "not a regular file":
      return { problem: "is not a regular file" };
    case "too large":
      return {
        problem: `is larger than ${CONFIG_FILE_MAX_BYTES} bytes${read.size === undefined ? "" : ` (${read.size})`}`,
      };
    case "error":
      return { problem: `cannot be read (${read.code})`, cause: read.cause };
  }
}

/**
 * Why a config file's text is not JSON, without quoting it: V8's message shows the characters
 * around the error, which may be a saved key. Only the grammar part and the position are kept.
 */
export function jsonProblem(thrown: unknown, text: string): string {
  const message = thrown instanceof Error ? thrown.message : "";
  if (message.startsWith("Unexpected end of JSON input")) return "it ends too early";
  const at = /^([^"]*?) (?:in|after) JSON at position (\d+)/.exec(message);
  if (at !== null) {
    const before = text.slice(0, Number(at[2]));
    const line = before.split("\n").length;
    const column = before.length - before.lastIndexOf("\n");
    return `${at[1]} at line ${line}, column ${column}`;
  }
  return "an unexpected character";
}

/** The web configuration of `env` and the config file `at`; never throws (see the top). */
export async function loadConfig(env: Env, options: LoadConfigOptions): Promise<ConfigResult> {
  const at = options.configFile ?? configPath(env);
  const revision = await configRevision(at);
  try {
    const config = await resolve(env, at, options);
    return { ok: true, config, revision };
  } catch (thrown) {
    if (thrown instanceof EvidentError) return { ok: false, error: thrown, revision };
    return {
      ok: false,
      error: new EvidentError("configuration_error", "The configuration could not be loaded.", {
        cause: thrown,
      }),
      revision,
    };
  }
}

function configError(key: string, message: string, cause?: unknown): EvidentError {
  return new EvidentError("configuration_error", `Configuration error at ${key}: ${message}`, {
    details: { key },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Where a configuration document came from: the file, or the EVIDENT_CONFIG variable's value. */
interface DocumentSource {
  /** How messages name it: the file's path, or `EVIDENT_CONFIG`. */
  readonly name: string;
  /** The key an error about the whole document names (EVIDENT_CONFIG when it named the file). */
  readonly key: string;
  readonly details: Readonly<Record<string, string>>;
  /** The phrase before a problem: "the config file P" or "the variable EVIDENT_CONFIG". */
  readonly what: string;
}

async function readConfigFile(
  env: Env,
  at: ConfigLocation,
  schema: z.ZodType,
): Promise<{ file: ConfigFile; path: string | undefined; notices: string[] } | undefined> {
  envValue(env, "EVIDENT_CONFIG");
  if (at.document !== undefined) return readConfigVariable(at, schema);
  const { path, explicit } = at;
  const read = readConfigText(path);
  if ("absent" in read) {
    if (!explicit) return undefined;
    throw configError("EVIDENT_CONFIG", `the config file ${path} does not exist`);
  }
  if ("problem" in read) {
    throw configError(
      explicit ? "EVIDENT_CONFIG" : path,
      `the config file ${path} ${read.problem}`,
      read.cause,
    );
  }
  refuseWorldWritable(path, explicit);
  const source = { name: path, key: path, details: { file: path }, what: "the file" };
  const { file, notices } = parseConfigDocument(read.text, source, schema);
  return { file, path, notices: [...notices, ...permissionNotices(path, file)] };
}

/** EVIDENT_CONFIG holding the document itself: validated as the file is, and the file not read. */
function readConfigVariable(
  at: ConfigLocation,
  schema: z.ZodType,
): { file: ConfigFile; path: undefined; notices: string[] } {
  const text = at.document ?? "";
  if (Buffer.byteLength(text) > CONFIG_FILE_MAX_BYTES) {
    throw configError("EVIDENT_CONFIG", `the document is larger than ${CONFIG_FILE_MAX_BYTES} bytes`);
  }
  const source = {
    name: "EVIDENT_CONFIG",
    key: "EVIDENT_CONFIG",
    details: { variable: "EVIDENT_CONFIG" },
    what: "the variable",
  };
  const { file, notices } = parseConfigDocument(text, source, schema);
  const shadowed = statSync(at.path, { throwIfNoEntry: false }) !== undefined;
  return {
    file,
    path: undefined,
    notices: shadowed
      ? [...notices, `EVIDENT_CONFIG holds the configuration, so the config file ${at.path} is not read`]
      : notices,
  };
}

/**
 * A configuration document's text, parsed and validated: its version first (a newer one is
 * refused whatever it holds), then keys retired since its version dropped with a notice each,
 * then the strict schema.
 */
export function parseConfigDocument(
  text: string,
  source: DocumentSource,
  schema: z.ZodType,
  retired: Readonly<Record<number, readonly string[]>> = RETIRED_CONFIG_KEYS,
): { file: ConfigFile; notices: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (thrown) {
    // No cause: the parser's own message quotes the text.
    throw configError(source.key, `${source.what} is not valid JSON (${jsonProblem(thrown, text)})`);
  }
  refuseNewerVersion(json, source);
  const { document, notices } = withoutRetiredKeys(json, source, retired);
  const parsed = schema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue === undefined ? "(file)" : issueKey(issue);
    throw new EvidentError(
      "configuration_error",
      `Configuration error in ${source.name} at ${key}: ${issue === undefined ? "invalid" : issueMessage(issue)}`,
      {
        details: {
          key,
          ...source.details,
          issues: parsed.error.issues.map((i) => ({ key: issueKey(i), message: issueMessage(i) })),
        },
      },
    );
  }
  return { file: parsed.data as ConfigFile, notices };
}

/** A document of a later format version than this evident reads: refused, saying what to do. */
function refuseNewerVersion(json: unknown, source: DocumentSource): void {
  const version = isObject(json) ? json.version : undefined;
  if (typeof version !== "number" || !Number.isInteger(version) || version <= CONFIG_VERSION) return;
  throw new EvidentError(
    "configuration_error",
    `Configuration error in ${source.name} at version: it is config version ${version}, written by a newer evident; this evident reads version ${CONFIG_VERSION} and earlier. Upgrade evident (npm install -g evident@latest), or remove the settings this version does not know and set "version" to ${CONFIG_VERSION}.`,
    { details: { key: "version", ...source.details } },
  );
}

/**
 * The document without the keys retired after its version, and a notice naming each one found.
 * The document is copied, never changed where it came from (nothing is rewritten on read).
 */
function withoutRetiredKeys(
  json: unknown,
  source: DocumentSource,
  retired: Readonly<Record<number, readonly string[]>>,
): { document: unknown; notices: string[] } {
  const { document, dropped } = dropRetiredKeys(json, retired);
  const notices = dropped.map(
    ({ key, retiredIn }) =>
      `${source.name}: ${key} was retired in config version ${retiredIn} and is ignored; remove it`,
  );
  return { document, notices };
}

/** A copy of `json` without the keys retired after its version (setup writes it so), and which. */
export function dropRetiredKeys(
  json: unknown,
  retired: Readonly<Record<number, readonly string[]>> = RETIRED_CONFIG_KEYS,
): { document: unknown; dropped: Array<{ key: string; retiredIn: number }> } {
  if (!isObject(json)) return { document: json, dropped: [] };
  const version = typeof json.version === "number" ? json.version : 1;
  const document = structuredClone(json);
  const dropped: Array<{ key: string; retiredIn: number }> = [];
  for (const [retiredIn, keys] of Object.entries(retired)) {
    if (version >= Number(retiredIn)) continue;
    for (const key of keys) {
      for (const found of dropKey(document, key.split("."), [])) {
        dropped.push({ key: found, retiredIn: Number(retiredIn) });
      }
    }
  }
  return { document, dropped };
}

/** Deletes the key at `path` (`*` matching any key) from `object`; the dotted keys deleted. */
function dropKey(object: Record<string, unknown>, path: readonly string[], at: readonly string[]): string[] {
  const [head, ...rest] = path;
  if (head === undefined) return [];
  const names = head === "*" ? Object.keys(object) : Object.hasOwn(object, head) ? [head] : [];
  const dropped: string[] = [];
  for (const name of names) {
    const value = object[name];
    if (rest.length === 0) {
      delete object[name];
      dropped.push([...at, name].join("."));
    } else if (isObject(value)) dropped.push(...dropKey(value, rest, [...at, name]));
  }
  return dropped;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What is wrong: for a record's key, the key schema's own words ("Invalid key in record" says little). */
export function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_key") return issue.issues[0]?.message ?? issue.message;
  return issue.message;
}

/** The key a schema issue is about, as a config file author writes it. */
export function issueKey(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys")
    return issue.keys.map((k) => fieldName([...issue.path, k])).join(", ");
  // A union of provider types reports the entry itself; name the type when that is what failed.
  return fieldName(issue.path);
}

async function resolve(env: Env, at: ConfigLocation, options: LoadConfigOptions): Promise<WebConfig> {
  const problem = options.envProblems?.[0];
  if (problem !== undefined) throw problem;
  const loaded = await readConfigFile(env, at, options.schema);
  const file = loaded?.file ?? {};
  const secrets: string[] = [];
  const providers = collectProviders(env, file, options, secrets);
  applyProviderOverrides(env, providers);
  applyOptionVariables(env, providers);
  const routes = resolveRoutes(env, file, providers);
  return {
    providers,
    ...routes,
    ...networkSettings(env, file, secrets),
    configPath: loaded?.path,
    secrets,
    notices: [...(loaded?.notices ?? []), ...providerVariableNotices(env, providers)],
  };
}

/** Keyless defaults first, then the environment, then the file: a later source replaces an id. */
function collectProviders(
  env: Env,
  file: ConfigFile,
  options: LoadConfigOptions,
  secrets: string[],
): Map<string, ProviderSpec> {
  const providers = new Map<string, ProviderSpec>();
  providers.set(KEYLESS_SEARCH_PROVIDER, {
    id: KEYLESS_SEARCH_PROVIDER,
    adapter: "duckduckgo",
    source: "default",
    options: {},
  });
  providers.set(KEYLESS_READ_PROVIDER, {
    id: KEYLESS_READ_PROVIDER,
    adapter: "direct",
    source: "default",
    options: {},
  });
  for (const spec of envProviders(env, secrets)) providers.set(spec.id, spec);
  for (const { id, entry } of options.envEntries ?? []) {
    providers.set(id, {
      id,
      adapter: "mcp",
      source: "environment",
      options: entry as Record<string, unknown>,
    });
  }
  for (const [id, entry] of Object.entries(file.providers ?? {})) {
    providers.set(id, fileProvider(id, entry, env, secrets));
  }
  return providers;
}

/** Base URL and deadline overrides by environment (`EVIDENT_<ID>_BASE_URL`, `_DEADLINE_MS`), for any provider id. */
function applyProviderOverrides(env: Env, providers: Map<string, ProviderSpec>): void {
  for (const [id, spec] of providers) {
    const upper = id.toUpperCase().replace(/-/g, "_");
    const baseVar = `EVIDENT_${upper}_BASE_URL`;
    const baseUrl = envValue(env, baseVar);
    const deadlineVar = `EVIDENT_${upper}_DEADLINE_MS`;
    const deadline = envValue(env, deadlineVar);
    if (baseUrl === undefined && deadline === undefined) continue;
    const next: Record<string, unknown> = { ...spec.options };
    if (baseUrl !== undefined) {
      if (spec.adapter === "mcp" || spec.adapter === "direct") {
        throw configError(baseVar, `provider ${id} (${spec.adapter}) has no base URL`);
      }
      if (!isHttpUrl(baseUrl)) throw configError(baseVar, "must be an http(s) URL");
      next.baseUrl = baseUrl;
    }
    if (deadline !== undefined)
      next.attemptDeadlineMs = positiveInt(deadlineVar, deadline, WEB_CALL_DEADLINE_MS * 10);
    // A base URL supplied here is the one thing a SearXNG entry may have been missing.
    const fixed =
      spec.adapter === "searxng" && next.baseUrl !== undefined && spec.unavailable?.includes("baseUrl");
    const { unavailable, ...rest } = spec;
    providers.set(id, {
      ...rest,
      options: next,
      ...(unavailable === undefined || fixed ? {} : { unavailable }),
    });
  }
}

/** Every option some adapter has (PROVIDER_OPTIONS), each with the adapters that have it. */
const OPTION_ADAPTERS: ReadonlyMap<string, readonly HttpAdapter[]> = (() => {
  const byOption = new Map<string, HttpAdapter[]>();
  for (const [adapter, options] of Object.entries(PROVIDER_OPTIONS)) {
    for (const option of Object.keys(options)) {
      byOption.set(option, [...(byOption.get(option) ?? []), adapter as HttpAdapter]);
    }
  }
  return byOption;
})();

/**
 * Provider options from the environment (`EVIDENT_<ID>_<OPTION>`), over the file's: each value
 * read as the schema types the option (text, a number, true or false) and validated by the
 * schema the file's entries are, so a value the file would refuse is refused naming the variable.
 */
function applyOptionVariables(env: Env, providers: Map<string, ProviderSpec>): void {
  for (const [id, spec] of providers) {
    const next: Record<string, unknown> = { ...spec.options };
    let changed = false;
    for (const [option, adapters] of OPTION_ADAPTERS) {
      const name = providerVariableName(id, optionSuffix(option));
      const raw = envValue(env, name);
      if (raw === undefined) continue;
      if (spec.adapter === "mcp" || !adapters.includes(spec.adapter)) {
        throw configError(
          name,
          `provider ${id} (${spec.adapter}) has no option ${option}; ${adapters.join(", ")} ${adapters.length === 1 ? "has" : "have"} it`,
        );
      }
      const schema = (PROVIDER_OPTIONS[spec.adapter] as Record<string, z.ZodType>)[option] as z.ZodType;
      next[option] = optionValue(name, raw, schema);
      changed = true;
    }
    if (changed) providers.set(id, { ...spec, options: next });
  }
}

/** A variable's text as the option's value: the first reading the schema accepts. */
function optionValue(name: string, raw: string, schema: z.ZodType): unknown {
  const readings: unknown[] = [raw];
  if (/^\d+$/.test(raw)) readings.push(Number(raw));
  if (raw === "true" || raw === "1") readings.push(true);
  if (raw === "false" || raw === "0") readings.push(false);
  let first: z.core.$ZodIssue | undefined;
  for (const reading of readings) {
    const parsed = schema.safeParse(reading);
    if (parsed.success) return parsed.data;
    first ??= parsed.error.issues[0];
  }
  throw configError(name, first === undefined ? "invalid" : issueMessage(first));
}

/**
 * A provider variable (`EVIDENT_<ID>_BASE_URL`, `_DEADLINE_MS`, `_<OPTION>`) whose id names no
 * provider does nothing: said, with the closest variable of a provider that exists when one is
 * near (a misspelt id), else with the id that is not configured.
 */
function providerVariableNotices(env: Env, providers: ReadonlyMap<string, ProviderSpec>): string[] {
  const existing = [...providers.keys()].flatMap((id) =>
    PROVIDER_VARIABLE_SUFFIXES.map((suffix) => providerVariableName(id, suffix)),
  );
  const fixed = new Set(KNOWN_VARIABLES);
  const notices: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (env[name] === undefined || env[name] === "" || fixed.has(name)) continue;
    if (!isProviderVariable(name) || existing.includes(name)) continue;
    const closest = closestName(name, existing);
    const near = closest !== undefined && editDistance(name, closest) <= PROVIDER_VARIABLE_TYPO_EDITS;
    const suffix = PROVIDER_VARIABLE_SUFFIXES.find((each) => name.endsWith(`_${each}`)) ?? "";
    const id = name.slice("EVIDENT_".length, -(suffix.length + 1)).toLowerCase();
    notices.push(
      near
        ? `${name} names no configured provider, so it does nothing; did you mean ${closest}?`
        : `${name} names no configured provider (none has the id ${id}), so it does nothing`,
    );
  }
  return notices;
}

/** Edits within which a provider variable is taken for a misspelling of an existing one's. */
const PROVIDER_VARIABLE_TYPO_EDITS = 2;

type Routes = Pick<
  WebConfig,
  "searchRoute" | "searchRouteSource" | "intentRoutes" | "readRoute" | "readRouteSource"
>;

/** The routes: environment, then file, then the default; every id known and able to serve its tool. */
function resolveRoutes(env: Env, file: ConfigFile, providers: ReadonlyMap<string, ProviderSpec>): Routes {
  const searchEnv = routeFromEnv(env, "EVIDENT_SEARCH_ROUTE", providers);
  const readEnv = routeFromEnv(env, "EVIDENT_READ_ROUTE", providers);
  const searchFile = file.search?.route && checkRoute(file.search.route, "search.route", providers);
  const readFile = file.read?.route && checkRoute(file.read.route, "read.route", providers);
  const intentRoutes: Record<string, readonly string[]> = {};
  for (const [intent, route] of Object.entries(file.search?.intents ?? {})) {
    intentRoutes[intent] = checkRoute(route, `search.intents.${intent}`, providers);
  }

  const [searchRoute, searchRouteSource] = layered(searchEnv, searchFile, () => [
    defaultSearchProvider(providers),
  ]);
  const [readRoute, readRouteSource] = layered(readEnv, readFile, () => [KEYLESS_READ_PROVIDER]);
  const routes = { searchRoute, searchRouteSource, intentRoutes, readRoute, readRouteSource };
  checkCapabilities(routes, providers);
  return routes;
}

/** Every provider on a route can serve that route's tool. */
function checkCapabilities(routes: Routes, providers: ReadonlyMap<string, ProviderSpec>): void {
  for (const [key, route, capable] of [
    [
      routes.searchRouteSource === "environment" ? "EVIDENT_SEARCH_ROUTE" : "search.route",
      routes.searchRoute,
      SEARCH_ADAPTERS,
    ],
    [
      routes.readRouteSource === "environment" ? "EVIDENT_READ_ROUTE" : "read.route",
      routes.readRoute,
      READ_ADAPTERS,
    ],
    ...Object.entries(routes.intentRoutes).map(
      ([intent, route]) => [`search.intents.${intent}`, route, SEARCH_ADAPTERS] as const,
    ),
  ] as const) {
    for (const id of route) {
      const adapter = providers.get(id)?.adapter;
      if (adapter !== undefined && !capable.has(adapter)) {
        throw configError(
          key,
          `provider ${id} (${adapter}) cannot ${capable === READ_ADAPTERS ? "read" : "search"}`,
        );
      }
    }
  }
}

type NetworkSettings = Pick<
  WebConfig,
  | "allowPrivateNetwork"
  | "allowPrivateNetworkSource"
  | "envelopeBudgetChars"
  | "callDeadlineMs"
  | "proxy"
  | "agentUrlsViaProxy"
  | "agentUrlsViaProxySource"
>;

/** The guard switch, budget, deadline and proxies; a proxy's credentials join `secrets`. */
function networkSettings(env: Env, file: ConfigFile, secrets: string[]): NetworkSettings {
  const [allowPrivateNetwork, allowPrivateNetworkSource] = layered(
    booleanVariable(env, "EVIDENT_ALLOW_PRIVATE_NETWORK"),
    file.allowPrivateNetwork,
    () => false,
  );
  const [envelopeBudgetChars] = layered(
    integerVariable(
      env,
      "EVIDENT_ENVELOPE_BUDGET_CHARS",
      WEB_ENVELOPE_MAX_BUDGET_CHARS,
      WEB_ENVELOPE_MIN_BUDGET_CHARS,
    ),
    file.envelopeBudgetChars,
    () => WEB_ENVELOPE_BUDGET_CHARS,
  );
  const [callDeadlineMs] = layered(
    integerVariable(env, "EVIDENT_CALL_DEADLINE_MS", WEB_CALL_DEADLINE_MS * 10),
    file.callDeadlineMs,
    () => WEB_CALL_DEADLINE_MS,
  );
  const [agentUrlsViaProxy, agentUrlsViaProxySource] = layered(
    booleanVariable(env, "EVIDENT_AGENT_URLS_VIA_PROXY"),
    file.agentUrlsViaProxy,
    () => true,
  );
  const proxy = proxyFromEnv(env);
  if (proxy.httpProxy !== undefined) secrets.push(...proxyCredentials(proxy.httpProxy));
  if (proxy.httpsProxy !== undefined) secrets.push(...proxyCredentials(proxy.httpsProxy));
  return {
    allowPrivateNetwork,
    allowPrivateNetworkSource,
    envelopeBudgetChars,
    callDeadlineMs,
    proxy,
    agentUrlsViaProxy,
    agentUrlsViaProxySource,
  };
}

/** A setting the environment overrides in the config file: its value, and where that came from. */
function layered<T>(fromEnv: T | undefined, fromFile: T | undefined, fallback: () => T): [T, ConfigSource] {
  if (fromEnv !== undefined) return [fromEnv, "environment"];
  if (fromFile !== undefined) return [fromFile, "config-file"];
  return [fallback(), "default"];
}

/**
 * Proxies as curl and npm read them: the lower-case variable first, then the upper-case one.
 * A value that is not an http(s) URL is a configuration error naming the variable.
 */
function proxyFromEnv(env: Env): ProxyConfig {
  const variables: string[] = [];
  const pick = (lower: string, upper: string, url: boolean): string | undefined => {
    const name = envValue(env, lower) !== undefined ? lower : upper;
    const value = envValue(env, name);
    if (value === undefined) return undefined;
    if (url && !isHttpUrl(value)) throw configError(name, "must be an http(s) URL of the proxy");
    variables.push(name);
    return value;
  };
  const httpProxy = pick("http_proxy", "HTTP_PROXY", true);
  const httpsProxy = pick("https_proxy", "HTTPS_PROXY", true);
  const noProxy = pick("no_proxy", "NO_PROXY", false);
  return {
    ...(httpProxy === undefined ? {} : { httpProxy }),
    ...(httpsProxy === undefined ? {} : { httpsProxy }),
    ...(noProxy === undefined ? {} : { noProxy }),
    variables,
  };
}

/** The user name and password of a proxy URL, so loggers can redact them. */
function proxyCredentials(proxy: string): string[] {
  const url = new URL(proxy);
  return [url.password, decodeURIComponent(url.password)].filter((part) => part.length > 0);
}

/** An adapter's key from its usual variables (the first one set and not empty wins). */
type EnvKey = { readonly apiKey: string } | { readonly problem: string } | undefined;

function envKey(env: Env, adapter: HttpAdapter, secrets: string[]): EnvKey {
  let empty: string | undefined;
  for (const name of CREDENTIAL_ENV[adapter] ?? []) {
    const value = envValue(env, name);
    if (value === undefined) {
      if (env[name] === "") empty ??= credentialVariableProblem(name, "");
      continue;
    }
    // Redacted whatever it is: a key the placeholder rules wrongly caught stays out of logs too.
    secrets.push(value);
    const problem = credentialVariableProblem(name, value);
    return problem === undefined ? { apiKey: value } : { problem };
  }
  return empty === undefined ? undefined : { problem: empty };
}

/** The provider options and state an `EnvKey` gives. */
function keyed(key: EnvKey): {
  options: Record<string, unknown>;
  state: Pick<ProviderSpec, "unavailable" | "credentialInvalid">;
} {
  if (key === undefined) return { options: {}, state: {} };
  if ("apiKey" in key) return { options: { apiKey: key.apiKey }, state: {} };
  return { options: {}, state: { unavailable: key.problem, credentialInvalid: true } };
}

function envProviders(env: Env, secrets: string[]): ProviderSpec[] {
  const specs: ProviderSpec[] = [];
  for (const adapter of KEYED_ADAPTERS) {
    const key = envKey(env, adapter, secrets);
    if (key === undefined) continue;
    const { options, state } = keyed(key);
    specs.push({ id: adapter, adapter, source: "environment", options, ...state });
  }
  // SEARXNG_URL is the documented variable; EVIDENT_SEARXNG_BASE_URL (the generic override) works too.
  const searxngVar = envValue(env, "SEARXNG_URL") !== undefined ? "SEARXNG_URL" : "EVIDENT_SEARXNG_BASE_URL";
  const searxngUrl = envValue(env, searxngVar);
  if (searxngUrl !== undefined) {
    if (!isHttpUrl(searxngUrl)) throw configError(searxngVar, "must be an http(s) URL");
    const { options, state } = keyed(envKey(env, "searxng", secrets));
    specs.push({
      id: "searxng",
      adapter: "searxng",
      source: "environment",
      options: { baseUrl: searxngUrl, ...options },
      ...state,
    });
  }
  const responsesBase = envValue(env, "EVIDENT_RESPONSES_BASE_URL");
  const responsesModel = envValue(env, "EVIDENT_RESPONSES_MODEL");
  const responsesKey = envKey(env, "responses", secrets);
  if (responsesBase !== undefined || responsesKey !== undefined || responsesModel !== undefined) {
    if (responsesBase !== undefined && !isHttpUrl(responsesBase)) {
      throw configError("EVIDENT_RESPONSES_BASE_URL", "must be an http(s) URL");
    }
    const { options: keyOptions, state } = keyed(responsesKey);
    const options = {
      ...(responsesBase === undefined ? {} : { baseUrl: responsesBase }),
      ...keyOptions,
      ...(responsesModel === undefined ? {} : { model: responsesModel }),
    };
    specs.push({
      id: "responses",
      adapter: "responses",
      source: "environment",
      options,
      ...(state.unavailable === undefined && responsesModel === undefined
        ? { unavailable: "EVIDENT_RESPONSES_MODEL is not set" }
        : state),
    });
  }
  return specs;
}

function fileProvider(id: string, entry: ProviderEntry, env: Env, secrets: string[]): ProviderSpec {
  if (entry.type === "mcp") return { id, adapter: "mcp", source: "config-file", options: entry };
  const { type, ...rest } = entry as ProviderEntry & { type: HttpAdapter };
  const options: Record<string, unknown> = { ...rest };
  let unavailable: string | undefined;
  let credentialInvalid = false;
  if ("apiKey" in rest && rest.apiKey !== undefined) {
    const secret = rest.apiKey as Secret;
    const resolved = resolveSecret(secret, env);
    if (resolved.value === undefined) {
      unavailable = `the environment variable ${resolved.variable} ${resolved.blank === true ? "holds only whitespace" : resolved.empty === true ? "is set but empty" : "is not set"} (providers.${id}.apiKey)`;
      credentialInvalid = resolved.blank === true || resolved.empty === true;
    } else {
      secrets.push(resolved.value);
      const reason = placeholderReason(resolved.value, resolved.variable);
      if (reason === undefined) options.apiKey = resolved.value;
      else {
        const holder =
          resolved.variable === undefined
            ? `providers.${id}.apiKey`
            : `the environment variable ${resolved.variable} (providers.${id}.apiKey)`;
        unavailable = `${holder} holds a placeholder, not a key (${reason})`;
        credentialInvalid = true;
      }
    }
  } else {
    // No key in the entry: the adapter's usual variable, if set.
    const key = envKey(env, type, secrets);
    if (key !== undefined && "apiKey" in key) options.apiKey = key.apiKey;
    else if (key !== undefined) {
      unavailable = key.problem;
      credentialInvalid = true;
    }
  }
  if (type === "searxng" && options.baseUrl === undefined) {
    const fromEnv = envValue(env, "SEARXNG_URL");
    if (fromEnv !== undefined && isHttpUrl(fromEnv)) options.baseUrl = fromEnv;
    else unavailable ??= `providers.${id}.baseUrl is not set (nor SEARXNG_URL)`;
  }
  if (type === "responses" && options.model === undefined) {
    const model = envValue(env, "EVIDENT_RESPONSES_MODEL");
    if (model !== undefined) options.model = model;
    else unavailable ??= `providers.${id}.model is not set (nor EVIDENT_RESPONSES_MODEL)`;
  }
  const requiresKey = type === "tavily" || type === "brave" || type === "exa" || type === "serper";
  if (requiresKey && options.apiKey === undefined) {
    unavailable ??= `providers.${id}.apiKey is not set (nor ${(CREDENTIAL_ENV[type] ?? []).join(" or ")})`;
  }
  return {
    id,
    adapter: type,
    source: "config-file",
    options,
    ...(unavailable === undefined ? {} : { unavailable }),
    ...(credentialInvalid ? { credentialInvalid: true } : {}),
  };
}

export function resolveSecret(
  secret: Secret,
  env: Env,
): { value: string | undefined; variable?: string; blank?: boolean; empty?: boolean } {
  if (typeof secret === "string") return { value: secret };
  const raw = env[secret.env];
  // A blank or empty variable leaves the provider unusable, as an unset one does, but is named so.
  return {
    value: nonEmpty(raw),
    variable: secret.env,
    ...(raw?.trim() === "" && raw !== "" ? { blank: true } : {}),
    ...(raw === "" ? { empty: true } : {}),
  };
}

function routeFromEnv(
  env: Env,
  name: string,
  providers: ReadonlyMap<string, ProviderSpec>,
): string[] | undefined {
  const ids = envList(env, name);
  if (ids === undefined) return undefined;
  if (ids.length === 0) throw configError(name, "lists no provider id");
  for (const id of ids) {
    if (!PROVIDER_ID_PATTERN.test(id)) throw configError(name, `"${id}" is not a valid provider id`);
  }
  return checkRoute(ids, name, providers);
}

/** Every id must be a known provider; duplicates are dropped, keeping the first position. */
function checkRoute(
  route: readonly string[],
  key: string,
  providers: ReadonlyMap<string, ProviderSpec>,
): string[] {
  const seen: string[] = [];
  route.forEach((id, index) => {
    if (!providers.has(id)) {
      const where = key.startsWith("EVIDENT_") ? key : `${key}[${index}]`;
      throw configError(
        where,
        `unknown provider "${id}"; known providers: ${[...providers.keys()].join(", ")}`,
      );
    }
    if (!seen.includes(id)) seen.push(id);
  });
  return seen;
}

function defaultSearchProvider(providers: ReadonlyMap<string, ProviderSpec>): string {
  // A credential that is there but no key keeps its provider chosen: its calls say what is wrong
  // rather than going, unasked, to the keyless provider (S08).
  const chosen = (spec: ProviderSpec) => spec.unavailable === undefined || spec.credentialInvalid === true;
  // Providers of the config file, in file order, before the environment's fixed priority.
  for (const spec of providers.values()) {
    const searches = spec.adapter !== "mcp" && (canSearch(spec) || spec.credentialInvalid === true);
    if (spec.source === "config-file" && searches && chosen(spec)) return spec.id;
  }
  for (const adapter of DEFAULT_SEARCH_PRIORITY) {
    const spec = providers.get(adapter);
    if (spec !== undefined && spec.source === "environment" && chosen(spec)) return spec.id;
  }
  return KEYLESS_SEARCH_PROVIDER;
}

/**
 * Refuses a config file any user could change (POSIX only): the file or its directory writable
 * by everyone (a sticky directory excepted, where others cannot replace our file). Such a file
 * can be made to name a command an `mcp` binding runs, or a base URL that receives the keys.
 */
function refuseWorldWritable(path: string, explicit: boolean): void {
  const writable = othersWrite(path);
  if (writable?.how !== "writable by everyone") return;
  throw configError(
    explicit ? "EVIDENT_CONFIG" : path,
    `${writable.what} is writable by everyone (mode ${writable.mode}): any user could make evident run a command of theirs, so it is not used; run: chmod o-w ${writable.target}`,
  );
}

interface OthersWrite {
  readonly how: "writable by everyone" | "writable by its group";
  /** "the config file P" or "the config file's directory D". */
  readonly what: string;
  readonly target: string;
  readonly mode: string;
}

/** Who besides its owner can change the config file: through its own mode or its directory's. */
function othersWrite(path: string): OthersWrite | undefined {
  if (process.platform === "win32") return undefined;
  // A linked config file (dotfiles) can be replaced where the link is and where its target is.
  let real: string | undefined;
  try {
    real = realpathSync(path);
  } catch {
    real = undefined;
  }
  const directories = new Set([dirname(path), ...(real === undefined ? [] : [dirname(real)])]);
  const targets: Array<[string, string, boolean]> = [[path, `the config file ${path}`, false]];
  for (const directory of directories)
    targets.push([directory, `the config file's directory ${directory}`, true]);
  for (const [target, what, isDirectory] of targets) {
    const stat = statSync(target, { throwIfNoEntry: false });
    if (stat === undefined) continue;
    const mode = (stat.mode & 0o7777).toString(8).padStart(4, "0");
    // In a sticky directory (/tmp) others cannot replace or rename a file they do not own.
    const sticky = isDirectory && (stat.mode & 0o1000) !== 0;
    if ((stat.mode & 0o002) !== 0 && !sticky) return { how: "writable by everyone", what, target, mode };
    if ((stat.mode & 0o020) !== 0 && !sticky) return { how: "writable by its group", what, target, mode };
  }
  return undefined;
}

/**
 * What the operator should know about the file's permissions (POSIX only): credentials written
 * in it that others can read, and a file that its group can change.
 */
function permissionNotices(path: string, file: ConfigFile): string[] {
  if (process.platform === "win32") return [];
  const notices: string[] = [];
  const mode = statSync(path, { throwIfNoEntry: false })?.mode;
  const credentials = savedCredentials(file);
  if (credentials.length > 0 && mode !== undefined && (mode & 0o077) !== 0) {
    notices.push(
      `the config file ${path} holds saved credentials (${credentials.join(", ")}) and is readable by other users (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${path}`,
    );
  }
  const writable = othersWrite(path);
  if (writable !== undefined) {
    notices.push(
      `${writable.what} is ${writable.how} (mode ${writable.mode}): other users could make evident run a command of theirs; run: chmod g-w ${writable.target}`,
    );
  }
  return notices;
}

/** Keys of credentials written in the file: saved API keys, literal MCP headers and env values. */
function savedCredentials(file: ConfigFile): string[] {
  const keys: string[] = [];
  for (const [id, entry] of Object.entries(file.providers ?? {})) {
    const fields = entry as {
      apiKey?: unknown;
      connection?: { headers?: Record<string, unknown>; env?: Record<string, unknown> };
    };
    if (typeof fields.apiKey === "string") keys.push(`providers.${id}.apiKey`);
    for (const part of ["headers", "env"] as const) {
      for (const [name, value] of Object.entries(fields.connection?.[part] ?? {})) {
        if (typeof value === "string") keys.push(`providers.${id}.connection.${part}.${name}`);
      }
    }
  }
  return keys;
}

/** `providers.tavily.apiKey`, `search.route[1]`: the key as a config file author writes it. */
function fieldName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(file)";
  return path
    .map((part, index) =>
      typeof part === "number" ? `[${part}]` : `${index === 0 ? "" : "."}${printable(String(part))}`,
    )
    .join("");
}

/** A key as written, quoted when it holds a control character (never raw on a terminal). */
function printable(key: string): string {
  return /\p{Cc}/u.test(key) ? JSON.stringify(key) : key;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed.length === 0 ? undefined : trimmed;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** A true/false variable, undefined when unset. */
function booleanVariable(env: Env, name: string): boolean | undefined {
  const value = envValue(env, name);
  return value === undefined ? undefined : parseBoolean(name, value);
}

/** An integer variable from `min` to `max`, undefined when unset. */
function integerVariable(env: Env, name: string, max: number, min = 1): number | undefined {
  const value = envValue(env, name);
  return value === undefined ? undefined : positiveInt(name, value, max, min);
}

function parseBoolean(name: string, value: string): boolean {
  if (value === "true" || value === "1") return true;
  if (value === "false" || value === "0") return false;
  throw configError(name, `must be "true" or "false", not "${value}"`);
}

function positiveInt(name: string, value: string, max: number, min = 1): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed < min || parsed > max) {
    throw configError(name, `must be an integer from ${min} to ${max}`);
  }
  return parsed;
}
