/**
 * The direct provider reading pages from a loopback site, over real HTTP: the site and the HTTP
 * client start before the calling describe's tests and close after them.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { after, before } from "node:test";
import { silentLogger } from "../../../src/core/logger.js";
import { createHttpClient } from "../../../src/net/client.js";
import type { HttpClient } from "../../../src/net/http-client.js";
import type { ProviderReadOutcome } from "../../../src/web/provider.js";
import { createDirectProvider } from "../../../src/web/providers/direct/provider.js";
import { type Loopback, startLoopback } from "../../net/loopback.js";

/** Returns the read of a path of the site, and the text of an outcome's first part. */
export function loopbackReader(handler: (request: IncomingMessage, response: ServerResponse) => void): {
  read: (path: string) => Promise<ProviderReadOutcome>;
  text: (outcome: ProviderReadOutcome) => string;
} {
  let site: Loopback;
  let http: HttpClient;
  const direct = createDirectProvider();
  before(async () => {
    site = await startLoopback(handler);
    http = createHttpClient({ allowPrivateNetwork: true });
  });
  after(async () => {
    await http.close();
    await site.close();
  });
  return {
    read: (path) =>
      direct.read?.(
        { url: `${site.url}${path}` },
        { signal: new AbortController().signal, http, logger: silentLogger },
      ) as Promise<ProviderReadOutcome>,
    text: (outcome) => (outcome.content[0] as { text: string }).text,
  };
}
