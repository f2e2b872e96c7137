/**
 * Plain JSON answers over Streamable HTTP. A POST that asks for no progress (no
 * `_meta.progressToken` in any of its requests) is answered with one JSON body, which gateways,
 * serverless platforms and `curl` handle best; one that asks for progress keeps the SSE stream
 * so the progress reaches it. The 2026-07-28 revision's exchanges already work this way in the
 * SDK (a JSON body unless the server sends something before the result); this module gives
 * 2025-era requests, which the SDK's stateless fallback always streams, the same rule, through
 * the SDK transport's `enableJsonResponse`.
 *
 * That transport refuses an Accept header without `text/event-stream` (406), as the 2025
 * revisions tell clients to list both types. A client that lists `application/json` alone gets
 * exactly what it accepts here, a JSON body, so its request is served rather than refused.
 */
import {
  isLegacyRequest,
  type McpHandlerRequestOptions,
  type McpServerFactory,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";

/** What the SDK transport requires of a POST's Accept header. */
const BOTH_TYPES = "application/json, text/event-stream";

function mediaTypes(accept: string | null): string[] {
  return (accept ?? "").split(",").map((part) => (part.split(";")[0] ?? "").trim().toLowerCase());
}

function asksForProgress(parsed: unknown): boolean {
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return messages.some((message) => {
    if (typeof message !== "object" || message === null) return false;
    const meta = (message as { params?: { _meta?: { progressToken?: unknown } } }).params?._meta;
    return meta?.progressToken !== undefined;
  });
}

/**
 * Whether this 2025-era POST is answered with one JSON body: it asks for no progress, or its
 * client cannot read a stream; and its client reads JSON. Anything else goes to the SDK as is.
 */
export async function answersWithJson(request: Request, parsed: unknown): Promise<boolean> {
  if (request.method !== "POST" || parsed === undefined) return false;
  const types = mediaTypes(request.headers.get("accept"));
  const readsJson = types.includes("application/json") || types.includes("*/*");
  const readsStream = types.includes("text/event-stream");
  if (!readsJson || (asksForProgress(parsed) && readsStream)) return false;
  return isLegacyRequest(request, parsed);
}

/** The headers a JSON-answered request is handed to the SDK transport with. */
export function withJsonAccept(headers: Headers): Headers {
  const copy = new Headers(headers);
  copy.set("accept", BOTH_TYPES);
  return copy;
}

/**
 * Serves one 2025-era request statelessly, as the SDK's fallback does, but answers with one JSON
 * body: a fresh server from the shared factory, closed once the answer is complete or the
 * exchange is abandoned (its client went away, or cancelled its only call). An abandoned
 * exchange has no answer to send, so it ends as 204 No Content, never as an empty success body.
 */
export async function serveJson(
  factory: McpServerFactory,
  request: Request,
  options: McpHandlerRequestOptions,
): Promise<Response> {
  const server = await factory({
    era: "legacy",
    ...(options.authInfo === undefined ? {} : { authInfo: options.authInfo }),
    requestInfo: request,
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  let abandon = () => {};
  const abandoned = new Promise<Response>((resolve) => {
    abandon = () => resolve(new Response(null, { status: 204 }));
  });
  request.signal.addEventListener("abort", abandon, { once: true });
  try {
    await server.connect(transport);
    return await Promise.race([transport.handleRequest(request, options), abandoned]);
  } finally {
    request.signal.removeEventListener("abort", abandon);
    transport.close().catch(() => {});
    server.close().catch(() => {});
  }
}
