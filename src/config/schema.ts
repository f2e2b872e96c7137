/**
 * The config file's shape: one zod schema that the loader enforces and from which
 * `docs/schema/config.schema.json` is generated (a test keeps the two identical), so the
 * documented schema and the enforced one cannot drift.
 *
 * Objects are strict: a misspelled key is an error naming it, never a silently ignored setting.
 * Entries of type `mcp` (upstream MCP servers) are validated by the schema the `mcp` adapter
 * exports; the config layer sits below `web/` and receives that schema as a parameter instead of
 * importing it.
 */
import { z } from "zod";
import {
  PROVIDER_ID_MAX_CHARS,
  SAVED_KEY_MAX_CHARS,
  WEB_CALL_DEADLINE_MS,
  WEB_ENVELOPE_MAX_BUDGET_CHARS,
  WEB_ENVELOPE_MIN_BUDGET_CHARS,
  WEB_INTENT_MAX_CHARS,
} from "../core/limits.js";

/**
 * The config format's version, written by setup as `version`; a file without one is version 1.
 * Adding a key or retiring one raises it: an older evident then refuses a newer file by its
 * version ("upgrade evident") instead of by a key it does not know.
 */
export const CONFIG_VERSION = 1;

/**
 * Keys retired by each version: a file of an earlier version may still hold them (an older
 * setup wrote them), and they are ignored there with a warning naming each; in a file of that
 * version or later they are unknown keys, refused like any typo. Dotted paths; `*` stands for
 * any provider id (`providers.*.timeoutMs`). No key has been retired yet.
 */
export const RETIRED_CONFIG_KEYS: Readonly<Record<number, readonly string[]>> = {};

/** Built-in HTTP and keyless adapters (the `mcp` adapter is added by the web layer). */
export const HTTP_ADAPTERS = [
  "tavily",
  "brave",
  "exa",
  "searxng",
  "serper",
  "jina",
  "firecrawl",
  "responses",
  "duckduckgo",
  "direct",
] as const;
export type HttpAdapter = (typeof HTTP_ADAPTERS)[number];

/**
 * Adapters whose entry is a key away from working: each is configured by its key variable alone,
 * and a key entry (Pi's panel) offers them.
 */
export const KEYED_ADAPTERS = [
  "tavily",
  "brave",
  "exa",
  "serper",
  "jina",
  "firecrawl",
] as const satisfies readonly HttpAdapter[];
export type KeyedAdapter = (typeof KEYED_ADAPTERS)[number];

/** Languages of what a host shows a person (never of what a model reads). */
export const INTERFACE_LOCALES = ["en", "zh-CN"] as const;
export type InterfaceLocale = (typeof INTERFACE_LOCALES)[number];
export type AdapterName = HttpAdapter | "mcp";

/** Provider ids: lower-case letters, digits, `-` and `_`, starting with a letter or digit. */
export const PROVIDER_ID_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;
export const providerIdSchema = z
  .string()
  .max(PROVIDER_ID_MAX_CHARS)
  .regex(PROVIDER_ID_PATTERN, "provider ids use a-z, 0-9, '-' and '_'");

/** Intent names hold no control characters (Cc), which would be saved and later shown raw. */
const INTENT_NAME_PATTERN = /^\P{Cc}*$/u;
const INTENT_NAME_CONTROL = "an intent name has no control characters";

/** Why a `search.intents` name cannot be used (the schema's rules, for setup's flags and prompts). */
export function intentNameProblem(name: string): string | undefined {
  if (name.length === 0) return "an intent name is not empty";
  if (name.length > WEB_INTENT_MAX_CHARS)
    return `an intent name has at most ${WEB_INTENT_MAX_CHARS} characters`;
  if (!INTENT_NAME_PATTERN.test(name)) return INTENT_NAME_CONTROL;
  // Assigned to an object it would set the prototype: the intent would vanish while setup said Saved.
  if (name === "__proto__") return "__proto__ cannot be an intent name";
  return undefined;
}

/** A reference to an environment variable that holds a secret; the file never needs the value. */
export const credentialRefSchema = z
  .strictObject({
    env: z
      .string()
      .min(1)
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name"),
  })
  .describe("Read the value from this environment variable when the config is loaded.");

/** What a saved key may hold: no whitespace, no control characters. */
export const SAVED_KEY_PATTERN = /^[^\s\p{Cc}]+$/u;

/** A secret: a saved literal (keep the file private, mode 0600) or a credential reference. */
export const secretSchema = z.union([
  // A key is sent in a header: a control character makes every request fail before it leaves
  // (reported as a network error), and whitespace is a paste gone wrong.
  z
    .string()
    .min(1)
    .max(SAVED_KEY_MAX_CHARS)
    .regex(SAVED_KEY_PATTERN, "a saved key is one word: no spaces or control characters"),
  credentialRefSchema,
]);
export type Secret = z.infer<typeof secretSchema>;

const httpUrlSchema = z
  .string()
  .url()
  .refine((value) => /^https?:\/\//i.test(value), "an http(s) URL");

/** Keys every built-in provider entry accepts. */
const common = {
  baseUrl: httpUrlSchema
    .optional()
    .describe("Overrides the vendor's base URL (proxies, self-hosting, tests). Trusted: may be on loopback."),
  attemptDeadlineMs: z
    .number()
    .int()
    .positive()
    .max(WEB_CALL_DEADLINE_MS * 10)
    .optional()
    .describe("Deadline of one attempt at this provider, connection included (default 20000)."),
};

const keyed = { apiKey: secretSchema.optional(), ...common };

/**
 * Each built-in adapter's own options, beside its key, base URL, deadline and (for `responses`)
 * model, which have variables of their own. Each option can also be set from the environment as
 * `EVIDENT_<ID>_<OPTION>` (`EVIDENT_TAVILY_SEARCH_DEPTH`), validated by the same schema.
 */
export const PROVIDER_OPTIONS = {
  tavily: {
    searchDepth: z.enum(["basic", "advanced"]).optional(),
    extractDepth: z.enum(["basic", "advanced"]).optional(),
    includeAnswer: z.boolean().optional(),
  },
  brave: {},
  exa: {
    searchType: z.string().min(1).optional(),
    readMaxCharacters: z.number().int().positive().optional(),
  },
  searxng: {},
  serper: {},
  jina: {
    readerUrl: httpUrlSchema.optional(),
    searchUrl: httpUrlSchema.optional(),
    questionUrl: httpUrlSchema.optional(),
  },
  firecrawl: { maxAgeMs: z.number().int().nonnegative().optional() },
  responses: { toolType: z.string().min(1).optional() },
  duckduckgo: { userAgent: z.string().min(1).optional() },
  direct: {},
} as const satisfies Record<HttpAdapter, Record<string, z.ZodType>>;

/**
 * A discriminated union on `type`, so that a mistake inside an entry is reported on the key that
 * is wrong (`providers.tavily.apiKeyy`), not as "no union member matched".
 */
export function createProviderEntrySchema(mcpEntry: z.ZodType) {
  return z.discriminatedUnion("type", [
    z.strictObject({ type: z.literal("tavily"), ...keyed, ...PROVIDER_OPTIONS.tavily }),
    z.strictObject({ type: z.literal("brave"), ...keyed }),
    z.strictObject({ type: z.literal("exa"), ...keyed, ...PROVIDER_OPTIONS.exa }),
    z.strictObject({ type: z.literal("searxng"), ...keyed }),
    z.strictObject({ type: z.literal("serper"), ...keyed }),
    z.strictObject({ type: z.literal("jina"), ...keyed, ...PROVIDER_OPTIONS.jina }),
    z.strictObject({ type: z.literal("firecrawl"), ...keyed, ...PROVIDER_OPTIONS.firecrawl }),
    z.strictObject({
      type: z.literal("responses"),
      ...keyed,
      model: z.string().min(1).optional(),
      ...PROVIDER_OPTIONS.responses,
    }),
    z.strictObject({ type: z.literal("duckduckgo"), ...common, ...PROVIDER_OPTIONS.duckduckgo }),
    z.strictObject({ type: z.literal("direct"), attemptDeadlineMs: common.attemptDeadlineMs }),
    // The `mcp` adapter's own strict object with `type: "mcp"`; typed loosely to keep this layer
    // free of web/ imports.
    mcpEntry as unknown as z.ZodObject<{ type: z.ZodLiteral<"mcp"> }>,
  ]);
}

const routeSchema = z
  .array(providerIdSchema)
  .min(1)
  .describe("Provider ids tried in order; each at most once. One id means no fallback.");

export function createConfigFileSchema(mcpEntry: z.ZodType) {
  return z
    .strictObject({
      $schema: z.string().optional(),
      version: z
        .number()
        .int()
        .min(1)
        .max(CONFIG_VERSION)
        .optional()
        .describe(
          "The format version of this file, written by evident setup; without it, version 1. A file of a later version is refused (upgrade evident).",
        ),
      providers: z
        .record(providerIdSchema, createProviderEntrySchema(mcpEntry))
        .optional()
        .describe(
          "Providers by id. An id used here replaces the provider of that id found in the environment.",
        ),
      search: z
        .strictObject({
          route: routeSchema.optional(),
          intents: z
            .record(
              z.string().min(1).max(WEB_INTENT_MAX_CHARS).regex(INTENT_NAME_PATTERN, INTENT_NAME_CONTROL),
              routeSchema,
            )
            .optional()
            .describe("Routes by web_search intent; a call whose intent is not listed uses `route`."),
        })
        .optional(),
      read: z.strictObject({ route: routeSchema.optional() }).optional(),
      allowPrivateNetwork: z
        .boolean()
        .optional()
        .describe("Lets agent-supplied URLs reach private and loopback addresses (intranet reading)."),
      agentUrlsViaProxy: z
        .boolean()
        .optional()
        .describe(
          "Whether agent-supplied URLs may go through the HTTPS_PROXY / HTTP_PROXY proxy (default true: their host is resolved and checked first); false refuses them.",
        ),
      envelopeBudgetChars: z
        .number()
        .int()
        .min(WEB_ENVELOPE_MIN_BUDGET_CHARS)
        .max(WEB_ENVELOPE_MAX_BUDGET_CHARS)
        .optional()
        .describe("Character budget of one web_search / web_read result."),
      locale: z
        .enum(INTERFACE_LOCALES)
        .optional()
        .describe("Language of what a host shows a person, such as the Pi session status (default en)."),
      callDeadlineMs: z
        .number()
        .int()
        .positive()
        .max(WEB_CALL_DEADLINE_MS * 10)
        .optional()
        .describe("Overall deadline of one web_search / web_read call (default 60000)."),
    })
    .describe("evident configuration file");
}

export type ProviderEntry =
  | (z.infer<ReturnType<typeof createProviderEntrySchema>> & { type: HttpAdapter })
  | ({ type: "mcp" } & Record<string, unknown>);

export interface ConfigFile {
  readonly version?: number;
  readonly providers?: Readonly<Record<string, ProviderEntry>>;
  readonly search?: {
    readonly route?: readonly string[];
    readonly intents?: Readonly<Record<string, readonly string[]>>;
  };
  readonly read?: { readonly route?: readonly string[] };
  readonly allowPrivateNetwork?: boolean;
  readonly agentUrlsViaProxy?: boolean;
  readonly envelopeBudgetChars?: number;
  readonly callDeadlineMs?: number;
  readonly locale?: InterfaceLocale;
}
