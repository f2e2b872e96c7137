/**
 * web_search: results from the operator's search providers, each under its provider's id, with
 * provenance. Route mode follows the configured chain; `providers` fans out to exactly those.
 */
import { z } from "zod";
import {
  PROVIDER_ID_MAX_CHARS,
  WEB_INTENT_MAX_CHARS,
  WEB_MAX_RESULTS_DEFAULT,
  WEB_MAX_RESULTS_MAX,
  WEB_MAX_RESULTS_MIN,
  WEB_PROVIDERS_MAX,
  WEB_QUERY_MAX_CHARS,
  WEB_QUERY_MIN_CHARS,
} from "../core/limits.js";
import type { ToolSuccess } from "../core/result.js";
import { webSearchOutputSchema } from "../web/envelope-schema.js";
import { defineTool, type ToolEnvironment } from "./tool.js";
import { callScope, type WebToolOptions, webServiceFor } from "./web-shared.js";

export { webSearchOutputSchema };

export const webSearchInputSchema = z.strictObject({
  query: z
    .string()
    .min(WEB_QUERY_MIN_CHARS)
    .max(WEB_QUERY_MAX_CHARS)
    .regex(/\S/, "the query is blank")
    .describe("As you would type it into a search engine."),
  intent: z
    .string()
    .min(1)
    .max(WEB_INTENT_MAX_CHARS)
    .optional()
    .describe("Kind of search (e.g. news, code): the operator's route for it, if configured."),
  maxResults: z
    .number()
    .int()
    .min(WEB_MAX_RESULTS_MIN)
    .max(WEB_MAX_RESULTS_MAX)
    .optional()
    .describe(
      `Per provider: ${WEB_MAX_RESULTS_MIN}-${WEB_MAX_RESULTS_MAX}, default ${WEB_MAX_RESULTS_DEFAULT}.`,
    ),
  timeRange: z.enum(["day", "week", "month", "year"]).optional(),
  providers: z
    .array(z.string().min(1).max(PROVIDER_ID_MAX_CHARS))
    .min(1)
    .max(WEB_PROVIDERS_MAX)
    .optional()
    .describe("Exactly these provider ids, in parallel. Omit for the configured route."),
});

const DESCRIPTION = `Search the web through the operator's providers. Returns JSON: \`results\` has each provider's rows (title, url, snippet) and \`answer\` under its id, unmerged and unranked; \`provenance\` names the providers attempted, used and anonymous (keyless); \`warnings\` and \`truncated\` say what to watch and what was cut.
Without \`providers\` the configured route runs (the next provider only if one fails); with \`providers\`, exactly those, in parallel (failures in \`providerErrors\`). Results are what providers said: read a page with web_read before relying on it.`;

/** The description, with the search provider ids configured when the tools were created. */
export function webSearchDescription(ids: readonly string[]): string {
  return `${DESCRIPTION}\nProviders configured at start (ids for \`providers\`): ${ids.join(", ")}.`;
}

export function createWebSearchTool(env: ToolEnvironment, options: WebToolOptions = {}) {
  const service = webServiceFor(env, options);
  return defineTool({
    name: "web_search",
    title: "Web search",
    description: webSearchDescription(env.settings.web.searchProviderIds()),
    inputSchema: webSearchInputSchema,
    outputSchema: webSearchOutputSchema,
    annotations: { readOnlyHint: true, openWorldHint: true },
    async handler(input, context) {
      // The envelope types are the schema's, with readonly arrays.
      return (await service.get()).search(input, context.signal, callScope(context)) as Promise<
        ToolSuccess<z.output<typeof webSearchOutputSchema>>
      >;
    },
    close: () => service.release(),
  });
}
