/**
 * The rules `evident setup` (interactive or by flags) applies to the config file, as one pure
 * function from the file and the person's choices to the next file (S07): everything not chosen
 * is kept as it was (saved keys, custom MCP bindings, other providers, intents, usable routes);
 * a route is saved whole, as chosen. The one addition: asked to, the keyless provider ends a
 * chosen search or read route, so a vendor that fails or is not usable yet does not leave the
 * tool with nothing (docs/DECISIONS.md, "Setup keeps a keyless end"). No vendor is ever added.
 */
import { CREDENTIAL_ENV, dropRetiredKeys, KEYLESS_READ_PROVIDER, KEYLESS_SEARCH_PROVIDER } from "./load.js";
import { CONFIG_VERSION, type HttpAdapter, type InterfaceLocale } from "./schema.js";

type FileObject = Record<string, unknown>;

/** How a provider gets its key: keep the saved one, a new saved key, or an environment reference. */
export type KeyChoice = { readonly keep: true } | { readonly save: string } | { readonly env: string };

export interface ProviderChoice {
  /** Provider id (`tavily`, `mcp-exa-hosted`, `my-searx`). */
  readonly id: string;
  /** A built-in adapter, or `mcp` with a preset. */
  readonly type: HttpAdapter | "mcp";
  readonly preset?: string;
  readonly key?: KeyChoice;
  readonly baseUrl?: string;
  readonly model?: string;
}

export interface SetupChoices {
  readonly providers?: readonly ProviderChoice[];
  /** The complete search route, in order (one id: no fallback, unless `keylessLast` ends it). */
  readonly searchRoute?: readonly string[];
  /** Complete routes by intent; intents not named here are kept. */
  readonly intents?: Readonly<Record<string, readonly string[]>>;
  readonly readRoute?: readonly string[];
  readonly locale?: InterfaceLocale;
  /**
   * End the chosen search route with `duckduckgo` and the chosen read route with `direct`, each
   * unless already on it. Intent routes are saved as given: an intent exists to send some
   * queries only where it says (a `private` intent to a self-hosted SearXNG). Default false.
   */
  readonly keylessLast?: boolean;
}

/** The variable a credential reference points at by default for an adapter (`TAVILY_API_KEY`). */
export function defaultKeyVariable(type: HttpAdapter | "mcp"): string | undefined {
  return type === "mcp" ? undefined : CREDENTIAL_ENV[type]?.[0];
}

export function planSetup(current: Readonly<FileObject>, choices: SetupChoices): FileObject {
  if (typeof current.version === "number" && current.version > CONFIG_VERSION) {
    throw new Error(
      `the config file is config version ${current.version}, written by a newer evident (this one writes version ${CONFIG_VERSION}); upgrade evident to change it (nothing was changed)`,
    );
  }
  // What setup writes is this version's format: keys an older setup wrote and this one retired go.
  const file = dropRetiredKeys(current).document as Readonly<FileObject>;
  const next: FileObject = { version: CONFIG_VERSION, ...file };
  next.version = CONFIG_VERSION;
  const providers = { ...((file.providers ?? {}) as Record<string, FileObject>) };
  for (const choice of choices.providers ?? []) {
    const existing = providers[choice.id];
    if (existing !== undefined && existing.type !== choice.type) {
      throw new Error(
        `providers.${choice.id} is of type ${String(existing.type)}, not ${choice.type}; choose another id (nothing was changed)`,
      );
    }
    if (choice.type === "mcp") {
      // A binding already there may be custom: it is kept as it is.
      providers[choice.id] = existing ?? { type: "mcp", preset: choice.preset };
      continue;
    }
    const entry: FileObject = { ...(existing ?? { type: choice.type }) };
    if (choice.key !== undefined && !("keep" in choice.key)) {
      entry.apiKey = "save" in choice.key ? choice.key.save.trim() : { env: choice.key.env };
    }
    if (choice.baseUrl !== undefined) entry.baseUrl = choice.baseUrl;
    if (choice.model !== undefined) entry.model = choice.model;
    providers[choice.id] = entry;
  }
  if (Object.keys(providers).length > 0) next.providers = providers;

  const search = { ...((file.search ?? {}) as FileObject) };
  const keyless = (route: readonly string[], id: string) =>
    choices.keylessLast === true ? unique([...route, id]) : unique(route);
  if (choices.searchRoute !== undefined) search.route = keyless(choices.searchRoute, KEYLESS_SEARCH_PROVIDER);
  if (choices.intents !== undefined) {
    search.intents = {
      ...((search.intents ?? {}) as Record<string, string[]>),
      ...Object.fromEntries(
        Object.entries(choices.intents).map(([intent, route]) => [intent, unique(route)]),
      ),
    };
  }
  if (Object.keys(search).length > 0) next.search = search;
  if (choices.readRoute !== undefined)
    next.read = {
      ...((file.read ?? {}) as FileObject),
      route: keyless(choices.readRoute, KEYLESS_READ_PROVIDER),
    };
  if (choices.locale !== undefined) next.locale = choices.locale;
  return next;
}

/** Each id once, first position kept (S03). */
function unique(route: readonly string[]): string[] {
  return [...new Set(route)];
}
