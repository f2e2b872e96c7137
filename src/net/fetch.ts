/**
 * A web-standard `fetch` over the HTTP client, for libraries that take a fetch function (the MCP
 * SDK's Streamable HTTP client transport), so that their requests get the client's rules: trust
 * and pools, the cross-origin redirect guard, the body cap, cancellation down to the socket.
 */
import type { HttpClient, HttpRequest } from "./http-client.js";

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export function fetchVia(http: HttpClient, trust: HttpRequest["trust"]): FetchLike {
  return async (url, init = {}) => {
    const method = (init.method ?? "GET").toUpperCase();
    if (method !== "GET" && method !== "POST" && method !== "DELETE") {
      throw new TypeError(`fetchVia: method ${method} is not supported`);
    }
    if (init.body !== undefined && init.body !== null && typeof init.body !== "string") {
      throw new TypeError("fetchVia: only string bodies are supported");
    }
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    // `redirect: "manual"` (how the MCP SDK keeps redirects within the origin) returns the
    // redirect itself; otherwise the client follows it, guarding any hop to another origin.
    const response = await http.stream({
      method,
      url: String(url),
      headers,
      ...(typeof init.body === "string" ? { body: init.body } : {}),
      trust,
      followRedirects: init.redirect !== "manual" && init.redirect !== "error",
      signal: init.signal ?? new AbortController().signal,
    });
    if (init.redirect === "error" && response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => {});
      throw new TypeError("fetchVia: a redirect was answered where none is allowed");
    }
    return response;
  };
}
