/**
 * Turning a schema rejection into `invalid_arguments` that names the offending field. Every
 * surface reaches this through the registry, so the same bad input reads the same everywhere.
 */
import type { z } from "zod";
import { EvidentError } from "../core/errors.js";

export interface ArgumentIssue {
  readonly field: string;
  readonly message: string;
}

export function fieldName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(arguments)";
  return path
    .map((part, index) =>
      typeof part === "number" ? `[${part}]` : `${index === 0 ? "" : "."}${String(part)}`,
    )
    .join("");
}

export function invalidArguments(error: z.ZodError): EvidentError {
  const issues: ArgumentIssue[] = error.issues.map((issue) => {
    // Unknown keys are reported on their parent; name the key itself, it is what the agent wrote.
    if (issue.code === "unrecognized_keys") {
      const keys = issue.keys.map((key) => fieldName([...issue.path, key]));
      return {
        field: keys.join(", "),
        message: `unknown field${keys.length > 1 ? "s" : ""}: ${keys.join(", ")}`,
      };
    }
    return { field: fieldName(issue.path), message: issue.message };
  });
  const first = issues[0] ?? { field: "(arguments)", message: "invalid arguments" };
  const summary = issues.map((i) => `${i.field}: ${i.message}`).join("; ");
  return new EvidentError("invalid_arguments", `Invalid arguments: ${summary}`, {
    details: { field: first.field, issues },
  });
}

/** Parses raw arguments with a tool's schema, throwing `invalid_arguments` on rejection. */
export function parseArguments<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw ?? {});
  if (!parsed.success) throw invalidArguments(parsed.error);
  return parsed.data;
}
