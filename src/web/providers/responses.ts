/**
 * Model-backed search through an OpenAI-compatible Responses endpoint
 * (`POST <base>/v1/responses` with a `web_search` tool), Bearer key.
 *
 * The answer is the model's output text; the rows are the URLs it cited through `url_citation`
 * annotations, in first-cited order, each with the annotation's title (the annotated span is
 * usually the inline citation itself, so it makes no useful snippet). A cited URL is a claim by the model, not a fetched page: the envelope's
 * `sources` says as much. Wire shape: see docs/PROVIDERS.md (OpenAI API reference, Responses).
 */
import { ProviderError } from "../provider.js";
import { defineHttpProvider, type VendorProviderOptions } from "./shared/define.js";
import { unexpectedShape } from "./shared/http.js";
import { type RowInput, searchOutcome, timeRangeIgnored, toRow } from "./shared/outcome.js";
import { arrayOf, httpUrl, isRecord, text } from "./shared/values.js";

export const RESPONSES_BASE_URL = "https://api.openai.com";

export interface ResponsesProviderOptions extends VendorProviderOptions {
  /** The model to ask (`EVIDENT_RESPONSES_MODEL`); required, there is no neutral default. */
  readonly model: string;
  /** Optional: a local OpenAI-compatible server may need none. */
  readonly apiKey?: string;
  /** The hosted search tool's type name; `web_search` unless the endpoint names it otherwise. */
  readonly toolType?: string;
}

export const createResponsesProvider = defineHttpProvider<ResponsesProviderOptions>({
  adapter: "responses",
  baseUrl: RESPONSES_BASE_URL,
  auth: { header: "authorization", prefix: "Bearer ", required: false },
  check: (options) => (text(options.model) === undefined ? "a model is required" : undefined),

  search: {
    request: (request, { options }) => ({
      method: "POST",
      path: "/v1/responses",
      body: {
        model: text(options.model),
        input: request.query,
        tools: [{ type: options.toolType ?? "web_search" }],
      },
    }),
    response: (body, request, { id }) => {
      if (!isRecord(body) || !Array.isArray(body.output)) throw unexpectedShape(id);
      if (body.status === "failed" || body.status === "cancelled") {
        throw new ProviderError(id, "upstream", `${id} reported the response as ${body.status}`);
      }
      const warnings = timeRangeIgnored(id, request.timeRange);
      if (body.status === "incomplete") warnings.push(`${id} reported the answer as incomplete`);
      const { texts, cited } = citedOutput(body.output);
      return searchOutcome({
        rows: cited.map(toRow),
        maxResults: request.maxResults,
        answer: texts.join("\n\n"),
        warnings,
      });
    },
  },
});

/** The output texts of the model's messages and the URLs they cite, in first-cited order. */
function citedOutput(output: readonly unknown[]): { texts: string[]; cited: RowInput[] } {
  const texts: string[] = [];
  const cited = new Map<string, RowInput>();
  for (const item of output) {
    if (!isRecord(item) || item.type !== "message") continue;
    for (const part of arrayOf(item.content)) {
      if (!isRecord(part) || part.type !== "output_text" || typeof part.text !== "string") continue;
      texts.push(part.text);
      for (const annotation of arrayOf(part.annotations)) {
        if (!isRecord(annotation) || annotation.type !== "url_citation") continue;
        const url = httpUrl(annotation.url);
        if (url === undefined || cited.has(url)) continue;
        cited.set(url, { title: annotation.title, url });
      }
    }
  }
  return { texts, cited: [...cited.values()] };
}
