/**
 * Documents that are already text: plain text and Markdown come back as they are; JSON comes
 * back indented (two spaces a level, json-indent.ts), so that a model can read it and a cut
 * falls between lines. JSON that does not parse, or whose indented text would pass its bound,
 * comes back as sent, with a warning that says which.
 */
import {
  JSON_INDENT_MAX_CHARS,
  JSON_INDENT_MAX_GROWTH,
  JSON_INDENT_MIN_CHARS,
} from "../../../core/limits.js";
import type { ProviderReadOutcome } from "../../provider.js";
import { indentJson } from "./json-indent.js";

/** Media types read as text, without conversion (JSON is indented). */
export const TEXT_TYPES =
  /^(text\/(plain|markdown|x-markdown|csv|xml|tab-separated-values)|application\/(json|xml|ld\+json|rss\+xml|atom\+xml)|application\/[\w.-]+\+(json|xml))$/;

/** The most characters a JSON page of `chars` characters may take indented. */
export function jsonIndentBudget(chars: number): number {
  return Math.min(JSON_INDENT_MAX_CHARS, Math.max(JSON_INDENT_MIN_CHARS, JSON_INDENT_MAX_GROWTH * chars));
}

export async function readText(
  text: string,
  type: string,
  id: string,
  signal?: AbortSignal,
): Promise<ProviderReadOutcome> {
  if (!/json$/.test(type)) return { content: [{ type: "text", text }] };
  const budget = jsonIndentBudget(text.length);
  const indented = await indentJson(text, budget, signal);
  if (indented.kind === "indented") return { content: [{ type: "text", text: indented.text }] };
  return {
    content: [{ type: "text", text }],
    warnings: [
      indented.kind === "invalid"
        ? `${id}: the page says it is JSON but does not parse as JSON (at character ${indented.at}); its text is returned as sent`
        : `${id}: the page's JSON is returned as sent, not indented: indented, it would take more than ${budget} characters, the most a page of ${text.length} may take (${JSON_INDENT_MAX_GROWTH} times its length, at least ${JSON_INDENT_MIN_CHARS}, at most ${JSON_INDENT_MAX_CHARS}); it nests ${indented.depth} levels deep`,
    ],
  };
}
