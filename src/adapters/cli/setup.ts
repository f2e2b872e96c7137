/**
 * `evident setup`: interactive at a terminal (the Clack prompts, loaded only here), or by flags
 * for scripts and CI. Without flags and without a terminal it refuses (exit 2) rather than
 * wait for answers nobody can give. Both forms end in the same setup plan and write path, and
 * both then say what the saved configuration does here: what will not work yet, and why.
 */

import { commaList } from "../../config/env.js";
import type { Settings } from "../../config/settings.js";
import { EvidentError } from "../../core/errors.js";
import { SAVED_KEY_MAX_CHARS } from "../../core/limits.js";
import {
  applySetup,
  checkSetup,
  INTERFACE_LOCALES,
  type InterfaceLocale,
  intentNameProblem,
  type ProviderChoice,
  SETUP_ADAPTERS,
  SETUP_PRESETS,
  type SetupCheck,
  type SetupChoices,
} from "../../tools/setup.js";
import type { CliIo } from "./cli.js";
import { fail, usageError } from "./errors.js";

export interface SetupIo extends CliIo {
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}

export const SETUP_HELP = [
  "Usage: evident setup                      (interactive, at a terminal)",
  "       evident setup --provider ID [options] [--route IDS] [--read-route IDS] ...",
  "",
  "Interactive: choose providers, enter keys (masked) or name the variable that holds each,",
  "build the search route (and one per intent), the read route, bind MCP presets, set the",
  "locale. Everything you do not change in the config file is kept.",
  "",
  "Flags (for scripts and CI; without a terminal, flags are required):",
  `  --provider ID        add or update a provider: ${SETUP_ADAPTERS.join(", ")},`,
  `                       or mcp-<preset> (${SETUP_PRESETS.join(", ")}); --type sets another id's adapter`,
  "  --type ADAPTER       the adapter of --provider when the id is not its name",
  "  --key-env NAME       a credential reference: the key is read from $NAME when evident runs",
  "  --key-stdin          read the key from standard input and save it in the file (mode 0600)",
  "  --base-url URL       the provider's base URL (SearXNG instance, Responses endpoint, proxy)",
  "  --model NAME         the Responses provider's model",
  "  --route A,B          the search route, in order; duckduckgo (keyless) is kept at its end",
  "  --intent NAME=A,B    the complete route of one web_search intent (repeatable)",
  "  --read-route A,B     the read route, in order; direct (keyless) is kept at its end",
  "  --no-keyless         save --route and --read-route exactly as given, without the keyless end",
  `  --locale L           interface locale: ${INTERFACE_LOCALES.join(", ")}`,
  "",
  "After saving, setup says what will not work yet in this environment and why (an unset or",
  "placeholder key), and who answers meanwhile. It makes no network call: evident doctor probes.",
  "",
].join("\n");

export async function runSetupCommand(
  args: readonly string[],
  io: SetupIo,
  settings: Settings,
): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout.write(SETUP_HELP);
    return 0;
  }
  if (args.length === 0) {
    if (io.stdin.isTTY !== true) {
      return fail(
        io,
        usageError(
          "evident setup asks its questions at a terminal, and standard input is not one. Give flags instead, e.g. evident setup --provider tavily --key-env TAVILY_API_KEY --route tavily (evident setup --help lists them).",
          "(arguments)",
        ),
      );
    }
    const { runSetupPrompts } = await import("./setup-ui.js");
    return runSetupPrompts(io, settings);
  }
  try {
    const choices = await parseSetupFlags(args, io);
    const { path } = await applySetup(settings, choices);
    const lines = [`Saved ${path} (mode 0600).`, ...renderSetupCheck(await checkSetup(settings))];
    io.stdout.write(`${lines.join("\n")}\n`);
    return 0;
  } catch (thrown) {
    const error =
      thrown instanceof EvidentError
        ? thrown
        : new EvidentError("internal_error", "The configuration could not be saved.", { cause: thrown });
    return fail(io, error);
  }
}

async function parseSetupFlags(args: readonly string[], io: SetupIo): Promise<SetupChoices> {
  const flags = new SetupFlags(args);
  const providers = await providerFlags(flags, io);
  const intents = intentFlags(flags);
  const locale = flags.one("--locale");
  if (locale !== undefined && !(INTERFACE_LOCALES as readonly string[]).includes(locale)) {
    throw usageError(`--locale ${locale}: use ${INTERFACE_LOCALES.join(" or ")}.`, "--locale");
  }
  const searchRoute = flags.ids("--route");
  const readRoute = flags.ids("--read-route");
  const exact = flags.has("--no-keyless");
  if (exact && searchRoute === undefined && readRoute === undefined)
    throw usageError("--no-keyless applies to a --route or --read-route given with it.", "--no-keyless");
  return {
    providers,
    keylessLast: !exact,
    ...(searchRoute === undefined ? {} : { searchRoute }),
    ...(Object.keys(intents).length === 0 ? {} : { intents }),
    ...(readRoute === undefined ? {} : { readRoute }),
    ...(locale === undefined ? {} : { locale: locale as InterfaceLocale }),
  };
}

/** Setup's flags by name: the switches, and every value each value flag was given. */
class SetupFlags {
  readonly #values = new Map<string, string[]>();

  constructor(args: readonly string[]) {
    const switches = new Set(["--key-stdin", "--no-keyless"]);
    for (let i = 0; i < args.length; i += 1) {
      const token = args[i] as string;
      const eq = token.indexOf("=");
      const name = token.startsWith("--") && eq > 0 ? token.slice(0, eq) : token;
      if (switches.has(name)) {
        this.#values.set(name, ["true"]);
        continue;
      }
      if (!VALUE_FLAGS.has(name))
        throw usageError(`Unknown option "${token}" for evident setup (evident setup --help).`, token);
      const value = eq > 0 && token.startsWith("--") ? token.slice(eq + 1) : args[++i];
      if (value === undefined || value === "") throw usageError(`${name} needs a value.`, name);
      this.#values.set(name, [...(this.#values.get(name) ?? []), value]);
    }
  }

  has(name: string): boolean {
    return this.#values.has(name);
  }

  all(name: string): readonly string[] {
    return this.#values.get(name) ?? [];
  }

  /** A flag given at most once. */
  one(name: string): string | undefined {
    const list = this.#values.get(name);
    if (list !== undefined && list.length > 1) throw usageError(`${name} may be given once.`, name);
    return list?.[0];
  }

  /** A comma-separated list of provider ids. */
  ids(name: string): string[] | undefined {
    const value = this.one(name);
    return value === undefined ? undefined : commaList(value);
  }
}

/** The provider `--provider` adds (an MCP preset, or an adapter with its key, URL and model). */
async function providerFlags(flags: SetupFlags, io: SetupIo): Promise<ProviderChoice[]> {
  const id = flags.one("--provider");
  if (id === undefined) {
    if (["--type", "--key-env", "--key-stdin", "--base-url", "--model"].some((flag) => flags.has(flag))) {
      throw usageError(
        "--type, --key-env, --key-stdin, --base-url and --model describe a --provider.",
        "--provider",
      );
    }
    return [];
  }
  const preset = /^mcp-(.+)$/.exec(id)?.[1];
  const type = flags.one("--type") ?? (preset !== undefined ? "mcp" : id);
  if (type === "mcp") {
    if (preset === undefined || !(SETUP_PRESETS as readonly string[]).includes(preset)) {
      throw usageError(
        `--provider ${id}: MCP presets are mcp-${SETUP_PRESETS.join(", mcp-")}.`,
        "--provider",
      );
    }
    return [{ id, type: "mcp", preset }];
  }
  if (!(SETUP_ADAPTERS as readonly string[]).includes(type)) {
    throw usageError(`--type ${type}: setup adds ${SETUP_ADAPTERS.join(", ")} or an MCP preset.`, "--type");
  }
  const keyEnv = flags.one("--key-env");
  if (keyEnv !== undefined && flags.has("--key-stdin"))
    throw usageError("Give --key-env or --key-stdin, not both.", "--key-stdin");
  const saved = flags.has("--key-stdin") ? await readAll(io.stdin) : undefined;
  if (saved === "") throw usageError("--key-stdin read no key.", "--key-stdin");
  const key = keyEnv !== undefined ? { env: keyEnv } : saved !== undefined ? { save: saved } : undefined;
  const baseUrl = flags.one("--base-url");
  const model = flags.one("--model");
  return [
    {
      id,
      type: type as ProviderChoice["type"],
      ...(key === undefined ? {} : { key }),
      ...(baseUrl === undefined ? {} : { baseUrl }),
      ...(model === undefined ? {} : { model }),
    },
  ];
}

/** `--intent NAME=A,B`, each a route of its own. */
function intentFlags(flags: SetupFlags): Record<string, string[]> {
  const intents: Record<string, string[]> = {};
  for (const spec of flags.all("--intent")) {
    const [intent, route] = spec.split("=", 2);
    if (intent === undefined || route === undefined)
      throw usageError(`--intent ${spec}: use NAME=A,B.`, "--intent");
    const problem = intentNameProblem(intent);
    // JSON quoting shows a control character as an escape, never raw on the terminal.
    if (problem !== undefined)
      throw usageError(`--intent ${JSON.stringify(intent)}: ${problem}.`, "--intent");
    intents[intent] = commaList(route);
  }
  return intents;
}

const VALUE_FLAGS = new Set([
  "--provider",
  "--type",
  "--key-env",
  "--base-url",
  "--model",
  "--route",
  "--intent",
  "--read-route",
  "--locale",
]);

/** Standard input as text, refused beyond SAVED_KEY_MAX_CHARS bytes (an endless pipe is not a key). */
async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.from(chunk as Buffer);
    bytes += buffer.length;
    if (bytes > SAVED_KEY_MAX_CHARS) {
      throw usageError(
        `--key-stdin read more than ${SAVED_KEY_MAX_CHARS} bytes, more than a key holds.`,
        "--key-stdin",
      );
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8").trim();
}

/**
 * What the saved configuration does in this environment, for a person: each route, then what
 * will not work yet, why, and who answers meanwhile. Shared by the flags and the prompts.
 */
export function renderSetupCheck(check: SetupCheck): string[] {
  if (check.error !== undefined) {
    return [
      `It does not load in this environment yet: ${check.error}`,
      "Every web_search and web_read call answers that error until it is fixed. Check with: evident doctor",
    ];
  }
  const lines: string[] = [];
  for (const route of check.routes) {
    const name = route.intent === undefined ? route.tool : `${route.tool} (intent ${route.intent})`;
    const overridden =
      route.source === "environment"
        ? ` (from ${route.tool === "web_search" ? "EVIDENT_SEARCH_ROUTE" : "EVIDENT_READ_ROUTE"} in this environment, which overrides the file)`
        : "";
    lines.push(`${name}: ${route.ids.join(" -> ")}${overridden}`);
  }
  if (check.unusable.length > 0) {
    lines.push("Not usable yet:");
    for (const { id, why } of check.unusable) lines.push(`  ${id}: ${why}`);
    for (const route of check.routes) {
      if (route.unusable.length === 0) continue;
      const name = route.intent === undefined ? route.tool : `${route.tool} with intent ${route.intent}`;
      if (route.answeredBy === undefined)
        lines.push(`Until then every ${name} call fails with configuration_error.`);
      else if (route.answeredBy !== route.ids[0])
        lines.push(`Until then ${name} answers from ${route.answeredBy}.`);
    }
    lines.push(
      "This is this shell's environment: a variable set only where evident runs (an MCP client's env) counts there.",
    );
  }
  lines.push("Check every provider live with: evident doctor");
  return lines;
}
