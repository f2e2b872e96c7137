/**
 * web_read: one page's native content, main content as Markdown or the reader's own format,
 * clipped to the budget, with provenance, allowlisted metadata and an index of outgoing links.
 */
import { z } from "zod";
import { EvidentError } from "../core/errors.js";
import {
  PROVIDER_ID_MAX_CHARS,
  WEB_CURSOR_MAX_CHARS,
  WEB_FOCUS_MAX_CHARS,
  WEB_PAGES_TTL_MS,
  WEB_URL_MAX_CHARS,
} from "../core/limits.js";
import { phrasingFor } from "../core/phrasing.js";
import type { ToolSuccess } from "../core/result.js";
import { webReadOutputSchema } from "../web/envelope-schema.js";
import { defineTool, type ToolEnvironment } from "./tool.js";
import { callScope, type WebToolOptions, webServiceFor } from "./web-shared.js";

export { webReadOutputSchema };

export const webReadInputSchema = z.strictObject({
  url: z
    .string()
    .min(1)
    .max(WEB_URL_MAX_CHARS)
    .optional()
    .describe("Exactly as it should be fetched. Required unless cursor is given."),
  cursor: z
    .string()
    .min(1)
    .max(WEB_CURSOR_MAX_CHARS)
    .optional()
    .describe("An earlier answer's cursor, alone: the next part of its page."),
  reader: z
    .string()
    .min(1)
    .max(PROVIDER_ID_MAX_CHARS)
    .optional()
    .describe("Only this reader provider id, no fallback."),
  focus: z
    .string()
    .min(1)
    .max(WEB_FOCUS_MAX_CHARS)
    .optional()
    .describe(
      "A question to focus the page on, for readers that support it (else focus_unsupported); they may leave out the rest.",
    ),
});

const DESCRIPTION = `Read one public http(s) page (private, loopback and metadata addresses: url_not_allowed). Returns JSON: \`content\`, the page's main content (Markdown or the reader's text), in order and unrewritten; \`truncated\` and \`contentChars\` say what was cut; \`provenance.url\` is the URL asked for; \`sources\` lists links seen, not fetched or verified; \`warnings\` says what to watch.
A longer page ends with \`cursor\`: {"cursor"} alone returns the next part without fetching again, for ${WEB_PAGES_TTL_MS / 60_000} minutes after its last use.
Without \`reader\`, the configured read route is used; with it, only that provider.`;

export function createWebReadTool(env: ToolEnvironment, options: WebToolOptions = {}) {
  const service = webServiceFor(env, options);
  const phrasing = phrasingFor(env.surface ?? "mcp");
  return defineTool({
    name: "web_read",
    title: "Web read",
    description: DESCRIPTION,
    inputSchema: webReadInputSchema,
    outputSchema: webReadOutputSchema,
    annotations: { readOnlyHint: true, openWorldHint: true },
    async handler(input, context) {
      const { cursor, url, ...rest } = input;
      const web = await service.get();
      // The envelope types are the schema's, with readonly arrays.
      type Result = Promise<ToolSuccess<z.output<typeof webReadOutputSchema>>>;
      if (cursor !== undefined) {
        const others = [url === undefined ? [] : ["url"], Object.keys(rest)].flat();
        if (others.length > 0) {
          const without = others.map((name) => phrasing.arg("web_read", name)).join(", ");
          throw new EvidentError(
            "cursor_option_conflict",
            `A cursor continues the document it was made for; give it alone, without ${without}.`,
            { details: { field: "cursor", conflicts: others } },
          );
        }
        return web.readCursor(cursor, context.caller) as Result;
      }
      if (url === undefined) {
        throw new EvidentError(
          "invalid_arguments",
          "Invalid arguments: url: give the URL to read (or a cursor).",
          {
            details: { field: "url", issues: [{ field: "url", message: "required unless cursor is given" }] },
          },
        );
      }
      return web.read({ url, ...rest }, context.signal, context.caller, callScope(context)) as Result;
    },
    close: () => service.release(),
  });
}
