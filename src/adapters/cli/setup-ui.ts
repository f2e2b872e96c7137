/**
 * The interactive `evident setup`, on @clack/prompts (imported by this module only, which the
 * CLI loads only for an interactive setup, so no other command or server pays for it). It asks;
 * the setup plan decides what the file becomes, and the write path writes it.
 */
import * as prompts from "@clack/prompts";
import { canRead, canSearch, KEYLESS_READ_PROVIDER, KEYLESS_SEARCH_PROVIDER } from "../../config/load.js";
import type { Settings } from "../../config/settings.js";
import {
  applySetup,
  checkSetup,
  defaultKeyVariable,
  type ExistingProvider,
  INTERFACE_LOCALES,
  type InterfaceLocale,
  intentNameProblem,
  type KeyChoice,
  maskKey,
  type ProviderChoice,
  readSetupState,
  SETUP_ADAPTERS,
  SETUP_PRESETS,
} from "../../tools/setup.js";
import { renderSetupCheck, type SetupIo } from "./setup.js";

class Cancelled extends Error {}

/** The answer, or a Cancelled error when the person pressed Ctrl-C / Escape. */
function answer<T>(value: T): Exclude<T, symbol> {
  if (prompts.isCancel(value)) throw new Cancelled();
  return value as Exclude<T, symbol>;
}

export async function runSetupPrompts(io: SetupIo, settings: Settings): Promise<number> {
  const common = { input: io.stdin as never, output: io.stdout as never };
  try {
    const state = await readSetupState(settings);
    prompts.intro("evident setup");
    prompts.note(
      `${state.path}\nEverything you do not change here is kept: saved keys, custom bindings, routes.`,
      "Config file",
    );
    const choices = await askProviders(state, common);
    const routes = await askRoutes(state, routeCandidates(state, choices), common);
    const locale = answer(
      await prompts.select<InterfaceLocale>({
        ...common,
        message: "Interface locale (what hosts such as Pi show you; never what the model reads)",
        options: INTERFACE_LOCALES.map((value) => ({ value, label: value })),
        initialValue: (state.locale as InterfaceLocale | undefined) ?? "en",
      }),
    );
    const { path } = await applySetup(settings, { providers: choices, ...routes, locale });
    const [report, closing] = splitCheck(renderSetupCheck(await checkSetup(settings)));
    prompts.note(report, `Saved ${path} (mode 0600)`);
    prompts.outro(closing);
    return 0;
  } catch (thrown) {
    if (thrown instanceof Cancelled) {
      prompts.cancel("Setup cancelled; nothing was written.");
      return 1;
    }
    prompts.cancel((thrown as Error).message);
    return 1;
  }
}

type SetupState = Awaited<ReturnType<typeof readSetupState>>;

/** Which providers to use, and for each new or keyed one what it needs (URL, model, key). */
async function askProviders(state: SetupState, common: Common): Promise<ProviderChoice[]> {
  const existing = new Map(state.providers.map((provider) => [provider.id, provider]));
  const offered = [
    ...SETUP_ADAPTERS.map((adapter) => ({ value: adapter, label: adapter })),
    ...SETUP_PRESETS.map((preset) => ({ value: `mcp-${preset}`, label: `mcp-${preset} (MCP preset)` })),
  ];
  const picked = answer(
    await prompts.multiselect<string>({
      ...common,
      message: "Which providers should evident use? (space selects, enter confirms)",
      options: offered,
      initialValues: offered.map((option) => option.value).filter((id) => existing.has(id)),
      required: false,
    }),
  );
  const choices: ProviderChoice[] = [];
  for (const id of picked) {
    if (id.startsWith("mcp-")) choices.push({ id, type: "mcp", preset: id.slice("mcp-".length) });
    else choices.push(await askProvider(id, existing.get(id), common));
  }
  return choices;
}

/** One built-in adapter's base URL and model where it needs them, and its key. */
async function askProvider(
  id: string,
  before: ExistingProvider | undefined,
  common: Common,
): Promise<ProviderChoice> {
  const type = id as (typeof SETUP_ADAPTERS)[number];
  const baseUrl =
    type === "searxng" || type === "responses"
      ? answer(
          await prompts.text({
            ...common,
            message: `${id}: base URL${type === "searxng" ? " of the SearXNG instance" : " of the Responses endpoint"}`,
            placeholder: "https://",
            validate: (value) => (/^https?:\/\/\S+$/.test(value ?? "") ? undefined : "an http(s) URL"),
          }),
        )
      : undefined;
  const model =
    type === "responses"
      ? answer(
          await prompts.text({
            ...common,
            message: `${id}: model`,
            validate: (v) => (v ? undefined : "required"),
          }),
        )
      : undefined;
  const key = await askKey(id, type, before, common);
  return {
    id,
    type,
    ...(key === undefined ? {} : { key }),
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(model === undefined ? {} : { model }),
  };
}

/** Ids a route may name: what the file has, what was just chosen, and the keyless defaults. */
function routeCandidates(state: SetupState, choices: readonly ProviderChoice[]) {
  const known = new Map<string, { search: boolean; read: boolean }>();
  known.set(KEYLESS_SEARCH_PROVIDER, { search: true, read: false });
  known.set(KEYLESS_READ_PROVIDER, { search: false, read: true });
  for (const provider of state.providers) known.set(provider.id, provider);
  for (const choice of choices) {
    const spec = { adapter: choice.type, options: { apiKey: choice.key, preset: choice.preset } };
    known.set(choice.id, { search: canSearch(spec), read: canRead(spec) });
  }
  return {
    searchIds: [...known].filter(([, can]) => can.search).map(([id]) => id),
    readIds: [...known].filter(([, can]) => can.read).map(([id]) => id),
  };
}

/** The search route, any intents' routes, then the read route. */
async function askRoutes(
  state: SetupState,
  { searchIds, readIds }: ReturnType<typeof routeCandidates>,
  common: Common,
): Promise<{ searchRoute: string[]; intents?: Record<string, string[]>; readRoute: string[] }> {
  const searchRoute = await askRoute("search", searchIds, state.searchRoute, common, KEYLESS_SEARCH_PROVIDER);
  const intents: Record<string, string[]> = {};
  const kept = Object.keys(state.intents);
  while (
    answer(
      await prompts.confirm({
        ...common,
        message: `Set a search route for an intent (e.g. news)?${kept.length > 0 ? ` Kept: ${kept.join(", ")}` : ""}`,
        initialValue: false,
      }),
    )
  ) {
    const intent = answer(
      await prompts.text({
        ...common,
        message: "Intent name",
        validate: (v) => intentNameProblem(v ?? ""),
      }),
    );
    intents[intent] = await askRoute(`"${intent}" search`, searchIds, state.intents[intent], common);
  }
  const readRoute = await askRoute("read", readIds, state.readRoute, common, KEYLESS_READ_PROVIDER);
  return { searchRoute, ...(Object.keys(intents).length === 0 ? {} : { intents }), readRoute };
}

type Common = { input: never; output: never };

/** How a keyed provider gets its key; undefined when it needs none asked (kept as it is). */
async function askKey(
  id: string,
  type: string,
  before: ExistingProvider | undefined,
  common: Common,
): Promise<KeyChoice | undefined> {
  const variable =
    before?.keyEnv ?? defaultKeyVariable(type as never) ?? `${id.toUpperCase().replace(/-/g, "_")}_API_KEY`;
  const options = [
    ...(before?.savedKey === undefined
      ? []
      : [{ value: "keep", label: `keep the saved key (${maskKey(before.savedKey)})` }]),
    ...(before?.keyEnv === undefined
      ? []
      : [{ value: "keep", label: `keep reading it from $${before.keyEnv}` }]),
    { value: "env", label: "read it from an environment variable (nothing secret in the file)" },
    { value: "save", label: "save it in the config file (mode 0600)" },
    ...(type === "searxng" || type === "jina" || type === "firecrawl"
      ? [{ value: "none", label: "no key" }]
      : []),
  ];
  const how = answer(
    await prompts.select<string>({ ...common, message: `${id}: how should evident get its key?`, options }),
  );
  if (how === "keep" || how === "none") return how === "keep" ? { keep: true } : undefined;
  if (how === "env") {
    const name = answer(
      await prompts.text({
        ...common,
        message: `${id}: environment variable holding the key`,
        initialValue: variable,
        validate: (v) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(v ?? "") ? undefined : "a variable name"),
      }),
    );
    return { env: name };
  }
  const secret = answer(
    await prompts.password({
      ...common,
      message: `${id}: API key (not shown)`,
      validate: (v) => (v && !/\s/.test(v.trim()) ? undefined : "one word, no spaces"),
    }),
  );
  return { save: secret };
}

/** The check's lines as a note (the routes and what is not usable yet) and a closing line. */
function splitCheck(lines: readonly string[]): [string, string] {
  return [lines.slice(0, -1).join("\n"), lines.at(-1) ?? ""];
}

/**
 * A complete route, one provider at a time: the first, then "a fallback after it?" until the
 * person says no. While the keyless provider (`keyless`) is not on the route, it is the offered
 * fallback, so a vendor not usable yet leaves a working route; "no fallback" is chosen, never
 * assumed. No vendor is ever offered as the default.
 */
async function askRoute(
  what: string,
  ids: readonly string[],
  current: readonly string[] | undefined,
  common: Common,
  keyless?: string,
): Promise<string[]> {
  const usable = current?.every((id) => ids.includes(id)) ? current : undefined;
  if (usable !== undefined) {
    const keep = answer(
      await prompts.confirm({
        ...common,
        message: `Keep the ${what} route ${usable.join(" -> ")}?`,
        initialValue: true,
      }),
    );
    if (keep) return [...usable];
  }
  const route: string[] = [
    answer(
      await prompts.select<string>({
        ...common,
        message: `${what} route: first provider`,
        options: ids.map((value) => ({ value, label: value })),
      }),
    ),
  ];
  for (;;) {
    const rest = ids.filter((id) => !route.includes(id));
    if (rest.length === 0) break;
    const offered = keyless !== undefined && rest.includes(keyless) ? keyless : undefined;
    const last = route.at(-1) as string;
    const next = answer(
      await prompts.select<string>({
        ...common,
        message: `${what} route so far: ${route.join(" -> ")}. Fallback if it fails?`,
        options: [
          ...(offered === undefined
            ? []
            : [{ value: offered, label: `${offered} (keyless: answers when ${last} cannot)` }]),
          { value: "", label: "no fallback" },
          ...rest.filter((id) => id !== offered).map((value) => ({ value, label: value })),
        ],
        initialValue: offered ?? "",
      }),
    );
    if (next === "") break;
    route.push(next);
  }
  return route;
}
