/**
 * What the router hands an MCP provider for one attempt, in tests: the MCP adapter never uses
 * the HTTP client (an upstream is reached over its own transport), so the client given is a stub
 * that fails loudly if it ever is.
 */
import { silentLogger } from "../../../src/core/logger.js";
import type { HttpClient } from "../../../src/net/http-client.js";
import type { ProviderContext } from "../../../src/web/provider.js";

export const unusedHttp: HttpClient = {
  request: () => Promise.reject(new Error("the mcp adapter must not use the HTTP client")),
  stream: () => Promise.reject(new Error("the mcp adapter must not use the HTTP client")),
  close: () => Promise.resolve(),
};

/** A provider context under `signal` (a live one by default). */
export function context(signal: AbortSignal = new AbortController().signal): ProviderContext {
  return { signal, http: unusedHttp, logger: silentLogger };
}
