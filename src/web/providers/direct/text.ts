/**
 * Documents that are already text: plain text and Markdown come back as they are; JSON comes
 * back pretty-printed (two-space indentation), so that a model can read it and a cut falls
 * between lines; JSON that does not parse comes back as sent, with a warning.
 */
import type { ProviderReadOutcome } from "../../provider.js";

/** Media types read as text, without conversion (JSON is pretty-printed). */
export const TEXT_TYPES =
  /^(text\/(plain|markdown|x-markdown|csv|xml|tab-separated-values)|application\/(json|xml|ld\+json|rss\+xml|atom\+xml)|application\/[\w.-]+\+(json|xml))$/;

export function readText(text: string, type: string, id: string): ProviderReadOutcome {
  if (/json$/.test(type)) {
    try {
      return { content: [{ type: "text", text: JSON.stringify(JSON.parse(text), null, 2) }] };
    } catch {
      return {
        content: [{ type: "text", text }],
        warnings: [
          `${id}: the page says it is JSON but does not parse as JSON; its text is returned as sent`,
        ],
      };
    }
  }
  return { content: [{ type: "text", text }] };
}
