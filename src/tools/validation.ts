/**
 * Turning a schema rejection into `invalid_arguments` that names the offending field. Every
 * surface reaches this through the registry, so the same bad input reads the same everywhere.
 */
import type { z } from "zod";
import { EvidentError } from "../core/errors.js";
import { ARGUMENT_ISSUES_SHOWN, ARGUMENT_NAME_MAX_CHARS } from "../core/limits.js";

export interface ArgumentIssue {
  readonly field: string;
  readonly message: string;
  /**
   * What the schema refused, for adapters that word it their own way (the CLI's flag language):
   * zod's issue code (`invalid_type`, `too_small`, `unrecognized_keys`...), or `custom` for a
   * tool's own check, with the bound or the choices when the rule has them.
   */
  readonly code?: string;
  readonly expected?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly origin?: string;
  readonly values?: readonly string[];
}

export function fieldName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(arguments)";
  const name = path
    .map((part, index) =>
      typeof part === "number" ? `[${part}]` : `${index === 0 ? "" : "."}${String(part)}`,
    )
    .join("");
  return cut(name);
}

/** A name the caller wrote, cut to ARGUMENT_NAME_MAX_CHARS. */
function cut(name: string): string {
  return name.length <= ARGUMENT_NAME_MAX_CHARS ? name : `${name.slice(0, ARGUMENT_NAME_MAX_CHARS)}...`;
}

/** The first ARGUMENT_ISSUES_SHOWN items, and how many are left out. */
function shown<T>(items: readonly T[]): { readonly items: readonly T[]; readonly more: number } {
  return {
    items: items.slice(0, ARGUMENT_ISSUES_SHOWN),
    more: Math.max(0, items.length - ARGUMENT_ISSUES_SHOWN),
  };
}

export function invalidArguments(error: z.ZodError): EvidentError {
  const all: ArgumentIssue[] = error.issues.map((issue) => {
    // Unknown keys are reported on their parent; name the key itself, it is what the agent wrote.
    if (issue.code === "unrecognized_keys") {
      const keys = shown(issue.keys.map((key) => fieldName([...issue.path, key])));
      const names = `${keys.items.join(", ")}${keys.more > 0 ? ` (and ${keys.more} more)` : ""}`;
      return {
        field: names,
        message: `unknown field${issue.keys.length > 1 ? "s" : ""}: ${names}`,
        code: issue.code,
        values: keys.items,
      };
    }
    return { field: fieldName(issue.path), message: issue.message, ...rule(issue) };
  });
  const { items: issues, more } = shown(all);
  const first = issues[0] ?? { field: "(arguments)", message: "invalid arguments" };
  const summary = `${issues.map((i) => `${i.field}: ${i.message}`).join("; ")}${more > 0 ? ` (and ${more} more issues)` : ""}`;
  return new EvidentError("invalid_arguments", `Invalid arguments: ${summary}`, {
    details: { field: first.field, issues },
  });
}

/** The rule behind an issue, as JSON-safe facts (bounds are numbers; bigints are left out). */
function rule(issue: z.core.$ZodIssue): Omit<ArgumentIssue, "field" | "message"> {
  const facts = issue as {
    code: string;
    expected?: unknown;
    minimum?: unknown;
    maximum?: unknown;
    origin?: unknown;
    values?: unknown[];
  };
  return {
    code: facts.code,
    ...(typeof facts.expected === "string" ? { expected: facts.expected } : {}),
    ...(typeof facts.minimum === "number" ? { minimum: facts.minimum } : {}),
    ...(typeof facts.maximum === "number" ? { maximum: facts.maximum } : {}),
    ...(typeof facts.origin === "string" ? { origin: facts.origin } : {}),
    ...(Array.isArray(facts.values) ? { values: facts.values.map(String) } : {}),
  };
}

/** What an unknown tool name is answered with: the name as written, cut to its bound. */
export function unknownToolMessage(name: string, known: readonly string[]): string {
  return `Unknown tool "${cut(name)}". Known tools: ${known.join(", ")}.`;
}

/** Parses raw arguments with a tool's schema, throwing `invalid_arguments` on rejection. */
export function parseArguments<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw ?? {});
  if (!parsed.success) throw invalidArguments(parsed.error);
  return parsed.data;
}
