/**
 * Command-line flags to tool arguments, driven by the tool's own JSON schema. The CLI never
 * validates: it only shapes tokens into an argument object (`--max-results 5` -> `maxResults: 5`)
 * and lets the one schema reject what is wrong, so a bad flag is refused exactly as a bad MCP
 * call is. What it keeps is how each argument was typed, so that the refusal can name the flag
 * as the user wrote it (cli/argument-errors.ts).
 */
import { kebabCase } from "../../core/phrasing.js";

export { kebabCase };

export interface CommandSpec {
  /** Tool the command calls. */
  readonly tool: string;
  /**
   * Positional arguments, in order, as schema property names; a function when what they mean
   * depends on the flags given (`evident grep --any-of a --any-of b src`: the path).
   */
  readonly positionals: readonly string[] | ((flags: Readonly<Record<string, unknown>>) => readonly string[]);
  /** Extra flag spellings: `-i` -> `ignoreCase`, `--provider` -> `providers`. */
  readonly aliases?: Readonly<Record<string, string>>;
  /** The schema properties this command offers (default: all); its help lists only these. */
  readonly options?: readonly string[];
  /** How help and errors name a value or positional (`PATH`, `N`); default from the schema. */
  readonly placeholders?: Readonly<Record<string, string>>;
  /**
   * Values written in the command's own form, turned into the schema's shape before the schema
   * sees them (`--targets a.ts:12` -> `{ path: "a.ts", line: 12 }`); the schema still judges them.
   */
  readonly values?: Readonly<Record<string, (raw: string) => unknown>>;
  /**
   * Reshapes what positionals meant once every flag is known (`evident inspect a.ts:12` ->
   * `{ path, line }`); positionals it leaves in `extra` are reported as unexpected, and a
   * `problem` (what the command's own form lacks, which the tool cannot name) as a usage error.
   */
  readonly shape?: (
    args: Record<string, unknown>,
    extra: readonly string[],
  ) => {
    readonly args: Record<string, unknown>;
    readonly extra: readonly string[];
    readonly problem?: string | undefined;
  };
}

export interface ParsedCommand {
  readonly args: Record<string, unknown>;
  /** Tokens that could not be placed (an extra positional); reported as invalid arguments. */
  readonly extra: readonly string[];
  /** What the command's form lacks (see `CommandSpec.shape`); reported as invalid arguments. */
  readonly problem?: string | undefined;
  /**
   * A single-value property given twice (`-C 1 -C 2`, or a positional and its flag): refused
   * rather than letting the last one win silently. Lists (`-g A -g B`) repeat as documented.
   */
  readonly repeated?: { readonly key: string; readonly first: string; readonly second: string };
  /** How each property was given: the flag as typed (`-C`), or the positional's name (`PATTERN`). */
  readonly spellings: Readonly<Record<string, string>>;
  /** The last token typed for each property (a number flag's `abc`). */
  readonly raw: Readonly<Record<string, string>>;
  /** Value flags given without a value (`-C` at the end of the line). */
  readonly valueless: ReadonlySet<string>;
}

/** What the `evident` command itself takes, beside the tool's flags. */
export interface CliOptions {
  readonly text: boolean;
  readonly help: boolean;
  /** `--root DIR`: undefined when not given, "" when given without a directory. */
  readonly root: string | undefined;
  /** Everything else, in order, for the tool's flags. */
  readonly tokens: readonly string[];
}

/**
 * Takes the command's own options out of argv (up to `--`): `--text`, `--help`/`-h` and, for a
 * command that searches the project (`root`), `--root DIR`; they are no tool's arguments.
 */
export function splitCliOptions(tokens: readonly string[], options: { root: boolean }): CliOptions {
  let text = false;
  let help = false;
  let root: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i] as string;
    if (token === "--") {
      rest.push(...tokens.slice(i));
      break;
    }
    if (token === "--text") text = true;
    else if (token === "--help" || token === "-h") help = true;
    else if (options.root && token === "--root") {
      root = tokens[i + 1] ?? "";
      i += 1;
    } else if (options.root && token.startsWith("--root=")) root = token.slice("--root=".length);
    else rest.push(token);
  }
  return { text, help, root, tokens: rest };
}

type PropertyKind = "boolean" | "number" | "string" | "array" | "string-or-array" | "unknown";

/**
 * What kind of value a schema property takes, read from its JSON schema: a plain `type`, a
 * `type` list, or an `anyOf`/`oneOf` of alternatives.
 */
export function propertyKind(schema: unknown): PropertyKind {
  if (typeof schema !== "object" || schema === null) return "unknown";
  const s = schema as { type?: unknown; anyOf?: unknown[]; oneOf?: unknown[]; enum?: unknown[] };
  const alternatives =
    s.anyOf ?? s.oneOf ?? (Array.isArray(s.type) ? s.type.map((type) => ({ ...s, type })) : undefined);
  if (Array.isArray(alternatives)) {
    const kinds = new Set(alternatives.map(propertyKind));
    if (kinds.has("array")) return kinds.size === 1 ? "array" : "string-or-array";
    if (kinds.size === 1) return [...kinds][0] as PropertyKind;
    return "unknown";
  }
  if (s.type === "boolean") return "boolean";
  if (s.type === "number" || s.type === "integer") return "number";
  if (s.type === "string" || Array.isArray(s.enum)) return "string";
  if (s.type === "array") return "array";
  return "unknown";
}

/** The kind of an array property's items (`--match-indices 1 --match-indices 2` are numbers). */
function itemKind(schema: unknown): PropertyKind {
  if (typeof schema !== "object" || schema === null) return "unknown";
  const s = schema as { items?: unknown; anyOf?: unknown[]; oneOf?: unknown[] };
  const alternatives = s.anyOf ?? s.oneOf;
  if (Array.isArray(alternatives)) {
    for (const alternative of alternatives) {
      const kind = itemKind(alternative);
      if (kind !== "unknown") return kind;
    }
    return "unknown";
  }
  return propertyKind(s.items);
}

/** The values an enum property takes, from the schema (`auto|summary|matches`). */
export function enumValues(schema: unknown): readonly string[] | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  const s = schema as { enum?: unknown[]; anyOf?: unknown[]; oneOf?: unknown[] };
  if (Array.isArray(s.enum)) return s.enum.map(String);
  for (const alternative of s.anyOf ?? s.oneOf ?? []) {
    const values = enumValues(alternative);
    if (values !== undefined) return values;
  }
  return undefined;
}

/** A numeric token as a number; anything else as it is, for the schema to reject by name. */
function numberOr(raw: string): number | string {
  const n = Number(raw);
  return raw.trim() !== "" && Number.isFinite(n) ? n : raw;
}

export function camelCase(flag: string): string {
  return flag.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** The positionals a spec gives, with the flags known so far. */
export function positionalsOf(
  spec: CommandSpec,
  flags: Readonly<Record<string, unknown>>,
): readonly string[] {
  return typeof spec.positionals === "function" ? spec.positionals(flags) : spec.positionals;
}

/** How help and errors name a property's value: the spec's placeholder, else by its schema. */
export function placeholder(spec: CommandSpec, name: string, schema: unknown): string {
  const named = spec.placeholders?.[name];
  if (named !== undefined) return named;
  const values = enumValues(schema);
  if (values !== undefined) return values.join("|");
  const kind = propertyKind(schema);
  return kind === "number" || (kind === "array" && itemKind(schema) === "number") ? "N" : "VALUE";
}

/**
 * Shapes argv tokens (without the command's own options) into tool arguments. Values are
 * converted only where the schema's type says so (a number flag gets a number when the token is
 * numeric, else the raw token, which the schema then rejects naming the field).
 */
export function parseCommand(
  tokens: readonly string[],
  spec: CommandSpec,
  properties: Readonly<Record<string, unknown>>,
): ParsedCommand {
  const parsed = new CommandArguments(spec, properties);
  const positionals: string[] = [];
  for (let i = 0; i < tokens.length; ) {
    const token = tokens[i] as string;
    if (token === "--") {
      positionals.push(...tokens.slice(i + 1));
      break;
    }
    if (token.startsWith("-") && token.length > 1 && !/^-\d/.test(token)) {
      i += parsed.flag(token, tokens[i + 1]);
      continue;
    }
    positionals.push(token);
    i += 1;
  }
  const extra: string[] = [];
  const keys = positionalsOf(spec, parsed.args);
  positionals.forEach((value, index) => {
    const key = keys[index];
    if (key === undefined) extra.push(value);
    else parsed.put(key, value, placeholder(spec, key, properties[key]));
  });
  const shaped = spec.shape?.(parsed.args, extra) ?? { args: parsed.args, extra };
  return {
    args: shaped.args,
    extra: shaped.extra,
    problem: shaped.problem,
    ...(parsed.repeated === undefined ? {} : { repeated: parsed.repeated }),
    spellings: parsed.spellings,
    raw: parsed.raw,
    valueless: parsed.valueless,
  };
}

/** What a command's flags and positionals add up to, each value read by its property's kind. */
class CommandArguments {
  readonly args: Record<string, unknown> = {};
  /** How each key was written (`--max-results`, `-n`, a positional's placeholder). */
  readonly spellings: Record<string, string> = {};
  readonly raw: Record<string, string> = {};
  readonly valueless = new Set<string>();
  repeated: ParsedCommand["repeated"];
  readonly #spec: CommandSpec;
  readonly #properties: Readonly<Record<string, unknown>>;

  constructor(spec: CommandSpec, properties: Readonly<Record<string, unknown>>) {
    this.#spec = spec;
    this.#properties = properties;
  }

  /** One flag token, with the token after it when it takes that as its value: tokens used. */
  flag(token: string, next: string | undefined): number {
    const eq = token.indexOf("=");
    const flag = eq === -1 ? token : token.slice(0, eq);
    const inline = eq === -1 ? undefined : token.slice(eq + 1);
    const { key, negated } = this.#keyOf(flag);
    const kind = propertyKind(this.#properties[key]);
    if (kind === "boolean" && inline === undefined) {
      // `--hidden false` reads as help's "(default true)" invites; short switches take no value.
      if (!negated && flag.startsWith("--") && (next === "true" || next === "false")) {
        this.put(key, next, flag);
        return 2;
      }
      this.put(key, !negated, flag);
      return 1;
    }
    if (inline !== undefined) {
      // `--no-hidden=false` says hidden twice over: the value, turned around.
      const value =
        negated && (inline === "true" || inline === "false") ? String(inline === "false") : inline;
      this.put(key, value, flag);
      return 1;
    }
    if (next === undefined) {
      // A value flag with nothing after it: pass an empty marker the schema rejects by name.
      this.valueless.add(key);
      this.spellings[key] ??= flag;
      this.args[key] = kind === "number" ? "" : (this.args[key] ?? "");
      return 1;
    }
    this.put(key, next, flag);
    return 2;
  }

  put(key: string, value: string | boolean, spelling: string): void {
    const kind = propertyKind(this.#properties[key]);
    if (kind !== "array" && kind !== "string-or-array") {
      const first = this.spellings[key];
      if (first !== undefined) this.repeated ??= { key, first, second: spelling };
    }
    this.spellings[key] = spelling;
    if (typeof value === "boolean") {
      this.args[key] = value;
      return;
    }
    this.raw[key] = value;
    const own = this.#spec.values?.[key];
    if (kind === "number") {
      this.args[key] = numberOr(value);
    } else if (kind === "boolean") {
      this.args[key] = value === "true" ? true : value === "false" ? false : value;
    } else if (kind === "array" || kind === "string-or-array") {
      const previous = this.args[key];
      const list = previous === undefined ? [] : Array.isArray(previous) ? previous : [previous];
      const item = itemKind(this.#properties[key]) === "number" ? numberOr(value) : value;
      list.push(own !== undefined ? own(value) : item);
      this.args[key] = kind === "string-or-array" && list.length === 1 ? list[0] : list;
    } else {
      this.args[key] = own !== undefined ? own(value) : value;
    }
  }

  /** The property a flag sets: an alias, `--no-X` of a boolean X, else the flag in camelCase. */
  #keyOf(flag: string): { key: string; negated: boolean } {
    const alias = this.#spec.aliases?.[flag];
    if (alias !== undefined) return { key: alias, negated: false };
    const bare = flag.replace(/^--?/, "");
    if (bare.startsWith("no-") && propertyKind(this.#properties[camelCase(bare.slice(3))]) === "boolean") {
      return { key: camelCase(bare.slice(3)), negated: true };
    }
    return { key: camelCase(bare), negated: false };
  }
}
