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
  WEB_URL_MAX_CHARS,
} from "../core/limits.js";
import { phrasingFor } from "../core/phrasing.js";
import type { ToolSuccess } from "../core/result.js";
import { defineTool, type ToolEnvironment } from "./tool.js";
import {
  provenanceSchema,
  providerErrorsSchema,
  providerReasonsSchema,
  type WebToolOptions,
  webServiceFor,
} from "./web-shared.js";

export const webReadInputSchema = z.strictObject({
  url: z
    .string()
    .min(1)
    .max(WEB_URL_MAX_CHARS)
    .optional()
    .describe(
      "The public http(s) URL to read, exactly as you want it fetched. Required unless `cursor` is given.",
    ),
  cursor: z
    .string()
    .min(1)
    .max(WEB_CURSOR_MAX_CHARS)
    .optional()
    .describe(
      "The `cursor` of an earlier web_read whose page did not fit: returns the next part of the same document without fetching it again. Give it alone.",
    ),
  reader: z
    .string()
    .min(1)
    .max(PROVIDER_ID_MAX_CHARS)
    .optional()
    .describe("Use only this reader provider id (no fallback). Omit to use the configured read route."),
  focus: z
    .string()
    .min(1)
    .max(WEB_FOCUS_MAX_CHARS)
    .optional()
    .describe(
      "A question or topic the reader should focus on. Only readers that support it receive it (else focus_unsupported); they may leave out content that does not match.",
    ),
});

export const webReadOutputSchema = z.object({
  provenance: provenanceSchema,
  warnings: z.array(z.string()),
  providerErrors: providerErrorsSchema,
  providerReasons: providerReasonsSchema,
  title: z.string().optional(),
  metadata: z
    .object({
      creditsUsed: z.number().optional(),
      cacheState: z.enum(["hit", "miss"]).optional(),
      cachedAt: z.string().optional(),
      byline: z.string().optional(),
      published: z.string().optional(),
      language: z.string().optional(),
      canonicalUrl: z.string().optional(),
      siteName: z.string().optional(),
    })
    .optional()
    .describe(
      "Facts the reader reported: credits and cache state of hosted readers; the byline, publication date, language, canonical URL and site name the page itself states (never guessed).",
    ),
  content: z.array(
    z.union([
      z.object({ type: z.literal("text"), text: z.string() }),
      z.object({ type: z.literal("json"), value: z.unknown() }),
    ]),
  ),
  contentChars: z.object({
    kept: z.number().int(),
    total: z.number().int(),
    from: z.number().int().optional(),
  }),
  sources: z.array(z.string()),
  sourcesOmitted: z.number().int().optional(),
  truncated: z.boolean(),
  cursor: z.string().optional(),
  remainingChars: z.number().int().optional(),
});

const DESCRIPTION = `Read one web page. Returns one JSON document: \`content\` holds the page's main content (Markdown, or the reader's native text), in order and unrewritten, cut to the size budget when \`truncated\` is true (\`contentChars\` says how much was kept); \`provenance.url\` is exactly the URL you asked for; \`sources\` lists public links seen on the page (not fetched or verified); \`warnings\` says what to be careful about. Only public http(s) URLs can be read (private, loopback and metadata addresses are refused with url_not_allowed).
A page longer than the budget ends with \`cursor\` and \`remainingChars\`: call web_read with just {"cursor": "..."} to get the next part of the same document (no new fetch), until no cursor comes back. Cursors expire after 30 minutes unused.
Without \`reader\`, the configured read route is used; with \`reader\`, only that provider is tried. \`focus\` narrows the page to a question on readers that support it.`;

export function createWebReadTool(env: ToolEnvironment, options: WebToolOptions = {}) {
  const service = webServiceFor(env, options);
  const phrasing = phrasingFor(env.surface ?? "mcp");
  return defineTool({
    name: "web_read",
    title: "Web read",
    description: DESCRIPTION,
    inputSchema: webReadInputSchema,
    outputSchema: webReadOutputSchema,
    annotations: { readOnlyHint: true, openWorldHint: true, destructiveHint: false, idempotentHint: true },
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
      return web.read({ url, ...rest }, context.signal, context.caller) as Result;
    },
    close: () => service.release(),
  });
}
