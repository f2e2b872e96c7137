/**
 * What `evident setup` needs from the layers below: the file as it is (to offer what exists and
 * keep it), the providers it can add, and the one write path: the setup plan applied, checked
 * by the loader itself (its schema, then what only loading finds, such as a route naming no
 * provider), written privately and atomically (config/write.ts); then what was saved, checked
 * as doctor checks it, short of a probe.
 */
import { randomBytes } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type ConfigSource, canRead, canSearch } from "../config/load.js";
import { type HttpAdapter, KEYED_ADAPTERS } from "../config/schema.js";
import type { Settings } from "../config/settings.js";
import { planSetup, type SetupChoices } from "../config/setup-plan.js";
import { readConfigObject, refuseWhileInVariable, updateConfigObject } from "../config/write.js";
import { EvidentError } from "../core/errors.js";
import { configFileSchema } from "../web/config-schema.js";
import { loadWebConfig } from "../web/service.js";
import { configView } from "./doctor.js";

export { INTERFACE_LOCALES, type InterfaceLocale, intentNameProblem } from "../config/schema.js";
export {
  defaultKeyVariable,
  type KeyChoice,
  type ProviderChoice,
  type SetupChoices,
} from "../config/setup-plan.js";
export { maskKey } from "./doctor.js";

/** Providers setup offers: built-in adapters that need something (a key, a URL), then MCP presets. */
export const SETUP_ADAPTERS = [
  ...KEYED_ADAPTERS,
  "searxng",
  "responses",
] as const satisfies readonly HttpAdapter[];
export const SETUP_PRESETS = ["exa-hosted", "exa", "tavily", "firecrawl", "jina"] as const;

export interface ExistingProvider {
  readonly id: string;
  readonly type: string;
  /** The saved key, when the entry holds one (shown masked, kept unless replaced). */
  readonly savedKey?: string;
  /** The variable a credential reference names. */
  readonly keyEnv?: string;
  readonly search: boolean;
  readonly read: boolean;
}

export interface SetupState {
  readonly path: string;
  readonly providers: readonly ExistingProvider[];
  readonly searchRoute?: readonly string[];
  readonly intents: Readonly<Record<string, readonly string[]>>;
  readonly readRoute?: readonly string[];
  readonly locale?: string;
}

/** The file as it is now; a file that is not a JSON object is refused (nothing is overwritten). */
export async function readSetupState(settings: Settings): Promise<SetupState> {
  // Asked before any question: answers could not be saved.
  refuseWhileInVariable(settings.configFile);
  const { path, file } = await readConfigObject(settings.configFile);
  const entries = (file.providers ?? {}) as Record<string, Record<string, unknown>>;
  const search = (file.search ?? {}) as { route?: string[]; intents?: Record<string, string[]> };
  const read = (file.read ?? {}) as { route?: string[] };
  return {
    path,
    providers: Object.entries(entries).map(([id, entry]) => {
      const { type, apiKey, ...rest } = entry;
      const spec = {
        adapter: type as never,
        options: { ...rest, ...(apiKey === undefined ? {} : { apiKey }) },
      };
      return {
        id,
        type: String(type),
        ...(typeof apiKey === "string" ? { savedKey: apiKey } : {}),
        ...(typeof (apiKey as { env?: unknown })?.env === "string"
          ? { keyEnv: (apiKey as { env: string }).env }
          : {}),
        search: canSearch(spec),
        read: canRead(spec),
      };
    }),
    ...(search.route === undefined ? {} : { searchRoute: search.route }),
    intents: search.intents ?? {},
    ...(read.route === undefined ? {} : { readRoute: read.route }),
    ...(typeof file.locale === "string" ? { locale: file.locale } : {}),
  };
}

/** Applies the choices to the file and writes it (checked, 0600, atomic). Returns the path. */
export async function applySetup(settings: Settings, choices: SetupChoices): Promise<{ path: string }> {
  return updateConfigObject(
    settings.configFile,
    async (file, path) => {
      let next: Record<string, unknown>;
      try {
        next = planSetup(file, choices);
      } catch (thrown) {
        throw new EvidentError("configuration_error", `${(thrown as Error).message}.`, { cause: thrown });
      }
      await refuseNewProblem(settings, path, next);
      return next;
    },
    configFileSchema,
  );
}

/**
 * Loads the planned file as evident would and refuses it when loading fails where the file on
 * disk loads (or fails elsewhere): setup never writes what the next call would reject. A problem
 * the environment already had is not the plan's doing and does not stop it.
 */
async function refuseNewProblem(
  settings: Settings,
  path: string,
  planned: Record<string, unknown>,
): Promise<void> {
  if (!configFileSchema.safeParse(planned).success) return; // the write path says what is wrong
  // Beside the real file: the directory is private, and the plan may hold keys.
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const trial = join(dirname(path), `.config.check.${randomBytes(6).toString("hex")}.json`);
  try {
    await writeFile(trial, JSON.stringify(planned), { mode: 0o600, flag: "wx" });
    const after = await loadWebConfig(settings, { path: trial, explicit: true });
    if (after.ok) return;
    const before = await loadWebConfig(settings);
    const key = (result: typeof after) => (result.ok ? undefined : result.error.details.key);
    if (!before.ok && key(before) === key(after)) return;
    throw new EvidentError(
      "configuration_error",
      `${after.error.message.replace(trial, path)}; nothing was written to ${path}.`,
      { details: { ...after.error.details, file: path } },
    );
  } finally {
    await rm(trial, { force: true });
  }
}

/** One route as the saved configuration resolves it in this environment. */
export interface RouteCheck {
  readonly tool: "web_search" | "web_read";
  readonly intent?: string;
  readonly ids: readonly string[];
  /** `environment` when a variable (EVIDENT_SEARCH_ROUTE) overrides what the file says. */
  readonly source: ConfigSource;
  /** The ids on it that will not work yet. */
  readonly unusable: readonly string[];
  /** Who answers until they are fixed: the first usable id; none means every call fails. */
  readonly answeredBy?: string;
}

export interface SetupCheck {
  /** The configuration's own error when it does not load in this environment. */
  readonly error?: string;
  readonly routes: readonly RouteCheck[];
  /** Every configured provider that will not work yet, and why (doctor's reasons, no network). */
  readonly unusable: ReadonlyArray<{ readonly id: string; readonly why: string }>;
}

/**
 * What the saved configuration does in this environment, checked as doctor checks it but
 * without probing (a probe may be a paid search): which providers cannot work yet and why (an
 * unset or placeholder key), and for each route who answers meanwhile, if anyone.
 */
export async function checkSetup(settings: Settings): Promise<SetupCheck> {
  const view = await configView(settings);
  if (!view.ok || view.routes === undefined) {
    return { error: view.error?.message ?? "the configuration cannot be used", routes: [], unusable: [] };
  }
  const unusable = (view.providers ?? [])
    .filter((provider) => provider.unavailable !== undefined)
    .map((provider) => ({ id: provider.id, why: provider.unavailable as string }));
  const broken = new Set(unusable.map((provider) => provider.id));
  const route = (tool: RouteCheck["tool"], ids: readonly string[], source: ConfigSource, intent?: string) => {
    const answeredBy = ids.find((id) => !broken.has(id));
    return {
      tool,
      ...(intent === undefined ? {} : { intent }),
      ids,
      source,
      unusable: ids.filter((id) => broken.has(id)),
      ...(answeredBy === undefined ? {} : { answeredBy }),
    };
  };
  const { routes } = view;
  return {
    routes: [
      route("web_search", routes.search.ids, routes.search.source),
      ...Object.entries(routes.intents).map(([intent, ids]) =>
        route("web_search", ids, "config-file", intent),
      ),
      route("web_read", routes.read.ids, routes.read.source),
    ],
    unusable,
  };
}
