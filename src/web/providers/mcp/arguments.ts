/**
 * Mapping our inputs into an upstream tool's arguments, as the operator's binding says.
 *
 * Pure functions, so that what we send upstream can be read off a table of cases. A value that
 * is exactly a placeholder is replaced; a placeholder whose input is absent removes its key (or
 * array element) instead of sending an empty value the upstream would read as "filter by nothing".
 */
import type { ArgumentValue, BindingPlaceholder, ToolBinding } from "./binding.js";
import { isBindingPlaceholder } from "./binding.js";

/** Our side of a call: whichever of these the tool (search or read) has. */
export interface BindingInputs {
  readonly query?: string;
  readonly maxResults?: number;
  readonly timeRange?: string;
  readonly url?: string;
  readonly focus?: string;
}

const INPUT_OF: Record<BindingPlaceholder, keyof BindingInputs> = {
  $query: "query",
  $maxResults: "maxResults",
  $timeRange: "timeRange",
  $url: "url",
  $focus: "focus",
};

/** Marks a value that must be dropped from its parent (an absent optional input). */
const ABSENT = Symbol("absent");
type Mapped = ArgumentValue | typeof ABSENT;

function mapValue(value: ArgumentValue, inputs: BindingInputs): Mapped {
  if (isBindingPlaceholder(value)) {
    const input = inputs[INPUT_OF[value]];
    return input === undefined ? ABSENT : input;
  }
  if (Array.isArray(value)) {
    const out: ArgumentValue[] = [];
    for (const item of value) {
      const mapped = mapValue(item, inputs);
      if (mapped !== ABSENT) out.push(mapped);
    }
    return out;
  }
  if (value !== null && typeof value === "object") {
    const out: { [key: string]: ArgumentValue } = {};
    for (const [key, item] of Object.entries(value)) {
      const mapped = mapValue(item, inputs);
      if (mapped !== ABSENT) out[key] = mapped;
    }
    return out;
  }
  return value;
}

/** The upstream tool's arguments for one call. */
export function mapArguments(binding: ToolBinding, inputs: BindingInputs): Record<string, ArgumentValue> {
  const mapped = mapValue(binding.arguments, inputs);
  return mapped === ABSENT || mapped === null || typeof mapped !== "object" || Array.isArray(mapped)
    ? {}
    : mapped;
}

/** Whether a placeholder occurs anywhere in the binding's arguments. */
export function bindingUses(binding: ToolBinding | undefined, placeholder: BindingPlaceholder): boolean {
  if (binding === undefined) return false;
  const visit = (value: ArgumentValue): boolean => {
    if (value === placeholder) return true;
    if (Array.isArray(value)) return value.some(visit);
    if (value !== null && typeof value === "object") return Object.values(value).some(visit);
    return false;
  };
  return visit(binding.arguments);
}
