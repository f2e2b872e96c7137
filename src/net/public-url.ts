/**
 * Public-URL checks that do not open a connection: a static one for indexing URLs (`sources`),
 * and one that resolves the host, for URLs handed to a provider that fetches them on our behalf
 * (a self-hosted reader inside the operator's network must not become a way in).
 */
import type { LookupAddress } from "node:dns";
import { EvidentError } from "../core/errors.js";
import { networkNextStep } from "./failure.js";
import {
  addressRefusal,
  checkAgentUrl,
  describeUrl,
  type GuardPolicy,
  GuardRefusal,
  guardedLookup,
  type LookupFunction,
  literalHost,
  urlNotAllowed,
} from "./guard.js";

/** Names that never denote a public host, whatever DNS says. */
const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa", ".lan", ".intranet", ".corp"];

/**
 * Whether a URL looks public without resolving it: http(s), no credentials, an IP literal only
 * if public, a dotted host name that is not a local-only name. Used to index URLs, never to
 * decide whether to connect (the connector checks the resolved address for that).
 */
export function isPublicUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (url.username !== "" || url.password !== "") return false;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  const literal = literalHost(host);
  if (literal !== undefined) return addressRefusal(literal) === undefined;
  if (host === "localhost" || !host.includes(".")) return false;
  return !LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix));
}

/**
 * Checks an agent URL before it is handed to a provider: the static checks, then (unless the
 * operator allowed private networks) a resolution of its host name whose every address must be
 * public. Throws `url_not_allowed`, or `host_unresolved` when the name does not resolve (not a
 * refusal: nothing can be read there, and nothing unchecked is handed on).
 */
export async function assertPublicUrl(
  raw: string,
  policy: GuardPolicy,
  lookup?: LookupFunction,
): Promise<URL> {
  const url = checkAgentUrl(raw, policy);
  if (policy.allowPrivateNetwork || literalHost(url.hostname) !== undefined) return url;
  const resolve = guardedLookup(lookup, policy.treatAsPublic);
  await new Promise<void>((done, fail) => {
    resolve(url.hostname, { all: true }, (error, _addresses: string | LookupAddress[]) => {
      if (error instanceof GuardRefusal) fail(urlNotAllowed(raw, error.why));
      else if (error) fail(hostUnresolved(raw, url.hostname, error));
      else done();
    });
  });
  return url;
}

/** A host name that DNS did not resolve: a failure that says so, with the code kept for logs. */
export function hostUnresolved(raw: string, hostname: string, cause: unknown): EvidentError {
  return new EvidentError(
    "host_unresolved",
    `The host ${hostname} could not be resolved (DNS lookup failed), so ${describeUrl(raw)} cannot be read. Check the URL. ${networkNextStep(["dns"])}`,
    { cause, details: { url: describeUrl(raw), reason: "dns" } },
  );
}
