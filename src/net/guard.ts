/**
 * The public-URL guard: which URLs and addresses an agent may make us contact.
 *
 * Agent-supplied URLs are untrusted. A URL passes only when its scheme is http(s) and every
 * address it is connected to is public unicast. The address check runs inside the connector
 * (see client.ts) on the addresses DNS actually returned for this connection, so nothing can
 * change between the check and the use. IP literals never reach DNS, so they are checked on the
 * literal. Parsing is left to the WHATWG URL parser (which normalizes decimal, octal, hex and
 * short IPv4 forms) and to ipaddr.js (which classifies ranges and unwraps IPv4-mapped IPv6).
 */
import type { LookupAddress } from "node:dns";
import { lookup as dnsLookup } from "node:dns";
import ipaddr from "ipaddr.js";
import { EvidentError } from "../core/errors.js";

/** What the guard accepts: `public` (the default) or `private-allowed` (operator switch). */
export interface GuardPolicy {
  /**
   * The operator's explicit switch (`EVIDENT_ALLOW_PRIVATE_NETWORK=true`): agent URLs may reach
   * private, loopback and link-local addresses. Schemes are still checked.
   */
  readonly allowPrivateNetwork: boolean;
  /**
   * Exact addresses treated as public. For tests only (a loopback server standing in for a public
   * site, so redirects and rebinding can be tested with the guard on); never set by configuration.
   */
  readonly treatAsPublic?: ReadonlySet<string>;
}

/** The canonical text of an address (IPv4-mapped IPv6 unwrapped), for comparing exceptions. */
export function canonicalAddress(address: string): string {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  return ipaddr.isValid(bare) ? ipaddr.process(bare).toString() : bare;
}

/**
 * IPv6 prefixes that embed or alias an IPv4 address and that ipaddr.js classifies as plain
 * unicast: IPv4-compatible addresses (::/96) and local-use NAT64 (64:ff9b:1::/48, RFC 8215).
 */
const EXTRA_BLOCKED_V6: ReadonlyArray<[ipaddr.IPv6, number]> = [
  ipaddr.IPv6.parseCIDR("::/96"),
  ipaddr.IPv6.parseCIDR("64:ff9b:1::/48"),
];

/** Why an address is not public, or undefined when it is public unicast. */
export function addressRefusal(address: string, treatAsPublic?: ReadonlySet<string>): string | undefined {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return "not an IP address";
  if (treatAsPublic?.has(canonicalAddress(bare))) return undefined;
  // process() unwraps IPv4-mapped IPv6 (::ffff:a.b.c.d) so the IPv4 rules apply to it.
  const parsed = ipaddr.process(bare);
  const range = parsed.range();
  if (range !== "unicast") return `${range} address`;
  if (parsed.kind() === "ipv6") {
    const v6 = parsed as ipaddr.IPv6;
    for (const cidr of EXTRA_BLOCKED_V6) if (v6.match(cidr)) return "IPv4-embedding IPv6 address";
  }
  return undefined;
}

export function urlNotAllowed(url: string, why: string): EvidentError {
  return new EvidentError(
    "url_not_allowed",
    `The URL ${describeUrl(url)} is not allowed: ${why}. Only public http(s) URLs can be read.`,
    { details: { url: describeUrl(url), reason: why } },
  );
}

/**
 * Checks what can be checked without connecting: the URL parses, its scheme is http(s), it has
 * no credentials, and an IP-literal host is public. Hostnames are checked at connect time.
 * Returns the parsed URL.
 */
export function checkAgentUrl(raw: string, policy: GuardPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw urlNotAllowed(raw, "it is not an absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw urlNotAllowed(raw, `the scheme ${url.protocol.replace(/:$/, "")} is not http or https`);
  }
  if (url.username !== "" || url.password !== "") {
    throw urlNotAllowed(raw, "it carries credentials");
  }
  if (url.hostname === "") throw urlNotAllowed(raw, "it has no host");
  if (!policy.allowPrivateNetwork) {
    // RFC 6761: these names are loopback by definition; refusing them needs no DNS query.
    const name = url.hostname.toLowerCase().replace(/\.$/, "");
    if (name === "localhost" || name.endsWith(".localhost"))
      throw urlNotAllowed(raw, "its host is a loopback name");
    const host = literalHost(url.hostname);
    if (host !== undefined) {
      const why = addressRefusal(host, policy.treatAsPublic);
      if (why !== undefined) throw urlNotAllowed(raw, `its host is a ${why}`);
    }
  }
  return url;
}

/** The IP literal in a URL hostname (brackets removed), or undefined for a name. */
export function literalHost(hostname: string): string | undefined {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  // Fast path for names (the common case, e.g. indexing result URLs): a host with a letter
  // beyond hex digits and no colon cannot be an IP literal in any notation, and skipping the
  // parser spares a thrown exception per URL.
  if (!bare.includes(":") && /[g-wyz]/i.test(bare)) return undefined;
  return ipaddr.isValid(bare) ? bare : undefined;
}

/** The signature of `dns.lookup` as net/tls `connect` calls it. */
export type LookupFunction = (
  hostname: string,
  options: { family?: number | string; all?: boolean; hints?: number },
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/**
 * A lookup for the guarded connector: resolves with `base` (dns.lookup by default), refuses the
 * connection when any returned address is not public, and answers in the form the caller asked
 * for. Refusing on any non-public answer (not just filtering) keeps a name that mixes public and
 * private records from being used as a pivot.
 */
export function guardedLookup(
  base: LookupFunction = dnsLookup as unknown as LookupFunction,
  treatAsPublic?: ReadonlySet<string>,
): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", undefined);
      const list = (Array.isArray(addresses) ? addresses : [{ address: addresses, family: 4 }]).filter(
        (entry) => entry.address !== "",
      );
      if (list.length === 0) {
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "");
      }
      for (const entry of list) {
        const why = addressRefusal(entry.address, treatAsPublic);
        if (why !== undefined) {
          return callback(new GuardRefusal(hostname, `${hostname} resolves to a ${why}`), "", undefined);
        }
      }
      if (options.all) return callback(null, list);
      const first = list[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

/**
 * Raised inside the connector; the client turns it into `url_not_allowed`. A distinct class so
 * that it survives undici's error wrapping and cannot be confused with a network failure.
 */
export class GuardRefusal extends Error {
  readonly host: string;
  readonly why: string;
  constructor(host: string, why: string) {
    super(`connection to ${host} refused by the public-URL guard: ${why}`);
    this.name = "GuardRefusal";
    this.host = host;
    this.why = why;
  }
}

/** Finds a GuardRefusal in an error's cause chain. */
export function findGuardRefusal(thrown: unknown): GuardRefusal | undefined {
  let current: unknown = thrown;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (current instanceof GuardRefusal) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A URL for messages: no credentials, query or fragment (they may hold tokens), bounded length. */
export function describeUrl(raw: string): string {
  try {
    const url = new URL(raw);
    const shown = `${url.protocol}//${url.host}${url.pathname}`;
    return shown.length > 200 ? `${shown.slice(0, 200)}...` : shown;
  } catch {
    const shown = [...raw].filter((char) => char >= " ").join("");
    return shown.length > 200 ? `${shown.slice(0, 200)}...` : shown;
  }
}
