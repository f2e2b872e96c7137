/**
 * Model-backed search through an OpenAI-compatible Responses endpoint
 * (`POST <base>/v1/responses` with a `web_search` tool), Bearer key.
 *
 * The answer is the model's output text; the rows are the URLs it cited through `url_citation`
 * annotations, in first-cited order, each with the annotation's title (the annotated span is
 * usually the inline citation itself, so it makes no useful snippet). A cited URL is a claim by the model, not a fetched page: the envelope's
 * `sources` says as much. Wire shape: see docs/PROVIDERS.md (OpenAI API reference, Responses).
 */
import type { Provider, ProviderContext, ProviderSearchOutcome, ProviderSearchRequest } from "../provider.js";
import { ProviderError } from "../provider.js";
import { joinUrl, requestJson, unexpectedShape } from "./shared/http.js";
import { deadlineOverride, presentKey, type VendorProviderOptions } from "./shared/options.js";
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

export function createResponsesProvider(options: ResponsesProviderOptions): Provider {
  const id = options.id ?? "responses";
  const model = text(options.model);
  if (model === undefined) throw new TypeError(`${id}: a model is required`);
  const baseUrl = options.baseUrl ?? RESPONSES_BASE_URL;
  const apiKey = presentKey(options.apiKey);
  const headers: Record<string, string> = apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` };

  return {
    id,
    adapter: "responses",
    anonymous: false,
    capabilities: { search: true, read: false, focus: false },
    ...deadlineOverride(options),

    async search(request: ProviderSearchRequest, context: ProviderContext): Promise<ProviderSearchOutcome> {
      const body = await requestJson(id, context, {
        method: "POST",
        url: joinUrl(baseUrl, "/v1/responses"),
        headers,
        body: { model, input: request.query, tools: [{ type: options.toolType ?? "web_search" }] },
      });
      if (!isRecord(body) || !Array.isArray(body.output)) throw unexpectedShape(id);
      if (body.status === "failed" || body.status === "cancelled") {
        throw new ProviderError(id, "upstream", `${id} reported the response as ${body.status}`);
      }
      const warnings = timeRangeIgnored(id, request.timeRange);
      if (body.status === "incomplete") warnings.push(`${id} reported the answer as incomplete`);

      const texts: string[] = [];
      const cited = new Map<string, RowInput>();
      for (const item of body.output) {
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
      return searchOutcome({
        rows: [...cited.values()].map(toRow),
        maxResults: request.maxResults,
        answer: texts.join("\n\n"),
        warnings,
      });
    },
  };
}
