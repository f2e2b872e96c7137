/**
 * The one list of environment variables evident reads, and what it says of an `EVIDENT_*`
 * variable that is not on it: retired, or unknown with the closest known name ("did you mean
 * ..."). A variable with a guessed name would otherwise be silently ignored; it is reported by
 * `evident doctor` and in the server's start-up log, and never stops anything. docs/CONFIG.md
 * has a row for every name here, and test/docs/config-variables.test.ts keeps the two equal.
 */
import { HTTP_ADAPTERS, PROVIDER_OPTIONS } from "./schema.js";

/**
 * Every variable evident reads by a fixed name, sorted. A new setting adds its name here (and a
 * row in docs/CONFIG.md); a setting removed moves to RETIRED_VARIABLES.
 */
export const KNOWN_VARIABLES: readonly string[] = [
  "BRAVE_API_KEY",
  "BRAVE_SEARCH_API_KEY",
  "EVIDENT_AGENT_URLS_VIA_PROXY",
  "EVIDENT_ALLOWED_HOSTS",
  "EVIDENT_ALLOWED_ORIGINS",
  "EVIDENT_ALLOW_ANONYMOUS",
  "EVIDENT_ALLOW_PRIVATE_NETWORK",
  "EVIDENT_AUTH_TOKEN",
  "EVIDENT_AUTH_TOKENS",
  "EVIDENT_CACHE_DIR",
  "EVIDENT_CALL_DEADLINE_MS",
  "EVIDENT_CODE_SEARCH_DEADLINE_MS",
  "EVIDENT_CODE_SEARCH_MAX_PROCESSES",
  "EVIDENT_CONFIG",
  "EVIDENT_CURSOR_KEY",
  "EVIDENT_ENVELOPE_BUDGET_CHARS",
  "EVIDENT_HTTP_HOST",
  "EVIDENT_HTTP_MAX_BODY_BYTES",
  "EVIDENT_HTTP_MAX_CONCURRENT",
  "EVIDENT_HTTP_MAX_CONNECTIONS",
  "EVIDENT_HTTP_MAX_CONNECTIONS_PER_CLIENT",
  "EVIDENT_HTTP_PORT",
  "EVIDENT_HTTP_SHUTDOWN_GRACE_MS",
  "EVIDENT_KEPT_MAX_BYTES",
  "EVIDENT_LOCALE",
  "EVIDENT_LOG_LEVEL",
  "EVIDENT_MCP_PRESETS",
  "EVIDENT_MCP_STRUCTURED",
  "EVIDENT_METRICS_PUBLIC",
  "EVIDENT_READ_ROUTE",
  "EVIDENT_RESPONSES_API_KEY",
  "EVIDENT_RESPONSES_BASE_URL",
  "EVIDENT_RESPONSES_MODEL",
  "EVIDENT_RG_PATH",
  "EVIDENT_ROOT",
  "EVIDENT_SEARCH_ROUTE",
  "EVIDENT_SEARXNG_BASE_URL",
  "EVIDENT_SNAPSHOT_STORE",
  "EVIDENT_TRANSPORT",
  "EVIDENT_WEB_READ_MEMORY_MB",
  "EVIDENT_WEB_READ_THREAD_IDLE_MS",
  "EXA_API_KEY",
  "FIRECRAWL_API_KEY",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "JINA_API_KEY",
  "NO_PROXY",
  "PORT",
  "SEARXNG_API_KEY",
  "SEARXNG_URL",
  "SERPER_API_KEY",
  "TAVILY_API_KEY",
  "XDG_CACHE_HOME",
  "XDG_CONFIG_HOME",
  "http_proxy",
  "https_proxy",
  "no_proxy",
];

/** Variables evident once read and no longer does, with what became of each. */
export const RETIRED_VARIABLES: Readonly<Record<string, string>> = {
  EVIDENT_IDLE_COLLECT_MS:
    "an idle server's forced garbage collection was removed; the heap is sized from NODE_OPTIONS",
};

/**
 * `EVIDENT_*` names this repository's other parts read, not evident: the test runner's
 * (scripts/run-tests.mjs, test/fixtures/optional-tools.ts), docker compose's (deploy/compose.yaml)
 * and a client's token in docs/CLIENTS.md. They reach evident's environment from those parts, so
 * they are not reported as guesses.
 */
export const OTHER_PARTS_VARIABLES: readonly string[] = [
  "EVIDENT_PUBLIC_PORT",
  "EVIDENT_TEST_CONCURRENCY",
  "EVIDENT_TEST_DURATIONS",
  "EVIDENT_TEST_REQUIRE_TOOLS",
  "EVIDENT_TEST_TIMEOUT_MS",
  "EVIDENT_TOKEN",
  "EVIDENT_WORKSPACE",
];

/**
 * The suffixes of a provider's own variables, `EVIDENT_<ID>_<SUFFIX>` for any provider id:
 * its base URL, its attempt deadline and each adapter option (`SEARCH_DEPTH`).
 */
export const PROVIDER_VARIABLE_SUFFIXES: readonly string[] = [
  "BASE_URL",
  "DEADLINE_MS",
  ...new Set(Object.values(PROVIDER_OPTIONS).flatMap((options) => Object.keys(options).map(optionSuffix))),
];

/** `searchDepth` -> `SEARCH_DEPTH`: an option's part of its variable's name. */
export function optionSuffix(option: string): string {
  return option.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase();
}

/** `EVIDENT_<ID>_<SUFFIX>` of one provider id (upper case, `-` as `_`). */
export function providerVariableName(id: string, suffix: string): string {
  return `EVIDENT_${id.toUpperCase().replace(/-/g, "_")}_${suffix}`;
}

/** Whether `name` has a provider variable's form (its id is checked once providers are known). */
export function isProviderVariable(name: string): boolean {
  return PROVIDER_VARIABLE_SUFFIXES.some(
    (suffix) =>
      name.startsWith("EVIDENT_") && name.length > `EVIDENT__${suffix}`.length && name.endsWith(`_${suffix}`),
  );
}

export interface VariableReport {
  readonly name: string;
  readonly kind: "unknown" | "retired";
  /** The closest known name, for an unknown variable. */
  readonly closest?: string;
  readonly message: string;
}

/** What the `EVIDENT_*` variables of `env` that evident does not read are, sorted by name. */
export function unknownVariables(env: Readonly<Record<string, string | undefined>>): VariableReport[] {
  const known = new Set([...KNOWN_VARIABLES, ...OTHER_PARTS_VARIABLES]);
  const candidates = [
    ...KNOWN_VARIABLES.filter((name) => name.startsWith("EVIDENT_")),
    ...builtInProviderVariables(),
  ];
  const reports: VariableReport[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith("EVIDENT_") || env[name] === undefined) continue;
    if (known.has(name) || isProviderVariable(name)) continue;
    const retired = RETIRED_VARIABLES[name];
    if (retired !== undefined) {
      reports.push({
        name,
        kind: "retired",
        message: `${name} is retired and ignored (${retired}); remove it`,
      });
      continue;
    }
    const closest = closestName(name, candidates);
    reports.push({
      name,
      kind: "unknown",
      ...(closest === undefined ? {} : { closest }),
      message: `${name} is not a variable evident reads, so it does nothing${closest === undefined ? "" : `; did you mean ${closest}?`}`,
    });
  }
  return reports;
}

/** The provider variables of the built-in providers' ids, the names a guess is most likely near. */
function builtInProviderVariables(): string[] {
  return HTTP_ADAPTERS.flatMap((adapter) => [
    providerVariableName(adapter, "DEADLINE_MS"),
    ...(adapter === "direct" ? [] : [providerVariableName(adapter, "BASE_URL")]),
    ...Object.keys(PROVIDER_OPTIONS[adapter]).map((option) =>
      providerVariableName(adapter, optionSuffix(option)),
    ),
  ]);
}

/** The candidate nearest to `name` by edit distance (the first of equals), if any. */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** Levenshtein distance: insertions, deletions and substitutions, one row at a time. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
