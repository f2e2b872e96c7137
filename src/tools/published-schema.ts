/**
 * The JSON schemas `tools/list` publishes, derived from each tool's zod schema. Every agent turn
 * carries them, so they hold what a model needs to call a tool correctly and no more.
 *
 * Input schemas keep types, enums, required fields, descriptions and `additionalProperties:
 * false`: what common function-calling APIs accept. Bounds (lengths, counts, ranges, patterns)
 * are left out, since some APIs reject one kind or another: zod still enforces each on every
 * call, answering `invalid_arguments` with the bound, and descriptions or the guide name those
 * a model needs. Alternatives are kept, so the definitions test names the property that brought
 * one in rather than the list hiding it.
 *
 * Output schemas (sent only with structured output on) name each top-level field with its type
 * and enum; what lies inside nested objects is the SDK's types' to say (`CodeSearchOutput`...),
 * since the full shapes would double the tool list.
 */
import { z } from "zod";

type Json = Record<string, unknown>;

/** Keywords zod emits that the published input schema leaves to validation. */
const VALIDATION_ONLY = new Set([
  "$schema",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
  "propertyNames",
]);

export function publishedInputSchema(schema: z.ZodType): Json {
  return prune(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json);
}

export function publishedOutputSchema(schema: z.ZodType): Json {
  const full = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as Json;
  const properties = (full.properties ?? {}) as Record<string, Json>;
  return {
    type: "object",
    properties: Object.fromEntries(Object.entries(properties).map(([name, field]) => [name, outline(field)])),
    ...(Array.isArray(full.required) && full.required.length > 0 ? { required: full.required } : {}),
  };
}

function prune(schema: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (VALIDATION_ONLY.has(key)) continue;
    if (key === "properties") {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, Json>).map(([name, field]) => [name, prune(field)]),
      );
    } else if (key === "items" && typeof value === "object" && value !== null && !Array.isArray(value)) {
      out[key] = prune(value as Json);
    } else if ((key === "anyOf" || key === "oneOf" || key === "allOf") && Array.isArray(value)) {
      out[key] = value.map((alternative) => prune(alternative as Json));
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** One field of an output schema: its type and enum, and for a list its items' type. */
function outline(field: Json): Json {
  const type = typeOf(field);
  const out: Json = type === undefined ? {} : { type };
  if (Array.isArray(field.enum)) out.enum = field.enum;
  if (type === "array" && typeof field.items === "object" && field.items !== null) {
    const items = field.items as Json;
    const itemType = typeOf(items);
    out.items =
      itemType === undefined
        ? {}
        : { type: itemType, ...(Array.isArray(items.enum) ? { enum: items.enum } : {}) };
  }
  return out;
}

/** The one JSON type a schema admits, when its alternatives agree on one. */
function typeOf(schema: Json): string | undefined {
  if (typeof schema.type === "string") return schema.type;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (!Array.isArray(alternatives)) return undefined;
  const types = new Set(alternatives.map((alternative) => typeOf(alternative as Json)));
  return types.size === 1 ? [...types][0] : undefined;
}
