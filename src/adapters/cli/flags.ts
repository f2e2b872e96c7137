/**
 * Command-line flags to tool arguments, driven by the tool's own JSON schema. The CLI never
 * validates: it only shapes tokens into an argument object (`--max-results 5` -> `maxResults: 5`)
 * and lets the one schema reject what is wrong, so a bad flag reads exactly like a bad MCP call.
 */

export interface CommandSpec {
  /** Tool the command calls. */
  readonly tool: string;
  /** Positional arguments, in order, as schema property names. */
  readonly positionals: readonly string[];
  /** Extra flag spellings: `-i` -> `ignoreCase`, `--provider` -> `providers`. */
  readonly aliases?: Readonly<Record<string, string>>;
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
  readonly text: boolean;
  readonly help: boolean;
  /** Tokens that could not be placed (an extra positional); reported as invalid arguments. */
  readonly extra: readonly string[];
  /** What the command's form lacks (see `CommandSpec.shape`); reported as invalid arguments. */
  readonly problem?: string | undefined;
  /**
   * A single-value property given twice (`-C 1 -C 2`, or a positional and its flag): refused
   * rather than letting the last one win silently. Lists (`-g A -g B`) repeat as documented.
   */
  readonly repeated?: { readonly key: string; readonly first: string; readonly second: string };
}

type PropertyKind = "boolean" | "number" | "string" | "array" | "string-or-array" | "unknown";

/** What kind of value a schema property takes, read from its JSON schema. */
export function propertyKind(schema: unknown): PropertyKind {
  if (typeof schema !== "object" || schema === null) return "unknown";
  const s = schema as { type?: unknown; anyOf?: unknown[]; oneOf?: unknown[]; enum?: unknown[] };
  const alternatives = s.anyOf ?? s.oneOf;
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

/** A numeric token as a number; anything else as it is, for the schema to reject by name. */
function numberOr(raw: string): number | string {
  const n = Number(raw);
  return raw.trim() !== "" && Number.isFinite(n) ? n : raw;
}

export function camelCase(flag: string): string {
  return flag.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

export function kebabCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * Shapes argv tokens into tool arguments. Values are converted only where the schema's type
 * says so (a number flag gets a number when the token is numeric, else the raw token, which the
 * schema then rejects naming the field).
 */
export function parseCommand(
  tokens: readonly string[],
  spec: CommandSpec,
  properties: Readonly<Record<string, unknown>>,
): ParsedCommand {
  const args: Record<string, unknown> = {};
  const positionals: string[] = [];
  const extra: string[] = [];
  let text = false;
  let help = false;
  const given = new Map<string, string>();
  let repeated: ParsedCommand["repeated"];
  const put = (key: string, raw: string | boolean, spelling: string) => {
    const kind = propertyKind(properties[key]);
    if (kind !== "array" && kind !== "string-or-array") {
      const first = given.get(key);
      if (first !== undefined) repeated ??= { key, first, second: spelling };
      given.set(key, spelling);
    }
    if (typeof raw === "boolean") {
      args[key] = raw;
      return;
    }
    if (kind === "number") {
      args[key] = numberOr(raw);
    } else if (kind === "boolean") {
      args[key] = raw === "true" ? true : raw === "false" ? false : raw;
    } else if (kind === "array" || kind === "string-or-array") {
      const previous = args[key];
      const list = previous === undefined ? [] : Array.isArray(previous) ? previous : [previous];
      list.push(itemKind(properties[key]) === "number" ? numberOr(raw) : raw);
      args[key] = kind === "string-or-array" && list.length === 1 ? list[0] : list;
    } else {
      args[key] = raw;
    }
  };
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i] as string;
    if (token === "--") {
      positionals.push(...tokens.slice(i + 1));
      break;
    }
    if (token === "--text") {
      text = true;
      continue;
    }
    if (token === "--help" || token === "-h") {
      help = true;
      continue;
    }
    if (token.startsWith("-") && token.length > 1 && !/^-\d/.test(token)) {
      const eq = token.indexOf("=");
      const flag = eq === -1 ? token : token.slice(0, eq);
      const inline = eq === -1 ? undefined : token.slice(eq + 1);
      let key = spec.aliases?.[flag];
      let negated = false;
      if (key === undefined) {
        const bare = flag.replace(/^--?/, "");
        if (bare.startsWith("no-") && propertyKind(properties[camelCase(bare.slice(3))]) === "boolean") {
          key = camelCase(bare.slice(3));
          negated = true;
        } else {
          key = camelCase(bare);
        }
      }
      const kind = propertyKind(properties[key]);
      if (kind === "boolean" && inline === undefined) {
        put(key, !negated, flag);
        continue;
      }
      if (inline !== undefined) {
        put(key, inline, flag);
        continue;
      }
      const next = tokens[i + 1];
      if (next === undefined) {
        // A value flag with nothing after it: pass an empty marker the schema rejects by name.
        args[key] = kind === "number" ? "" : (args[key] ?? "");
        continue;
      }
      put(key, next, flag);
      i += 1;
      continue;
    }
    positionals.push(token);
  }
  positionals.forEach((value, index) => {
    const key = spec.positionals[index];
    if (key === undefined) extra.push(value);
    else put(key, value, `the ${kebabCase(key)} argument`);
  });
  const shaped = spec.shape?.(args, extra) ?? { args, extra };
  return {
    args: shaped.args,
    text,
    help,
    extra: shaped.extra,
    problem: shaped.problem,
    ...(repeated === undefined ? {} : { repeated }),
  };
}
