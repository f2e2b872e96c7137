/**
 * Which HTTP proxy a request goes through, as curl and npm decide it from HTTPS_PROXY,
 * HTTP_PROXY and NO_PROXY: https URLs use the HTTPS proxy (else the HTTP one), http URLs the HTTP
 * proxy, and a host listed in NO_PROXY none. The values come from the configuration layer; this
 * module never reads the environment.
 */
import ipaddr from "ipaddr.js";

export interface ProxySettings {
  /** Proxy for http:// URLs (`http_proxy` / `HTTP_PROXY`). */
  readonly httpProxy?: string;
  /** Proxy for https:// URLs (`https_proxy` / `HTTPS_PROXY`); the HTTP proxy when unset. */
  readonly httpsProxy?: string;
  /** Comma-separated hosts that bypass the proxy (`no_proxy` / `NO_PROXY`). */
  readonly noProxy?: string;
}

/** The proxy URL for a request to `url`, or undefined to connect directly. */
export function proxyFor(url: URL, settings: ProxySettings | undefined): string | undefined {
  if (settings === undefined) return undefined;
  const proxy = url.protocol === "https:" ? (settings.httpsProxy ?? settings.httpProxy) : settings.httpProxy;
  if (proxy === undefined || bypassesProxy(url, settings.noProxy)) return undefined;
  return proxy;
}

/**
 * NO_PROXY as curl reads it: `*` for every host; otherwise names that match the host and its
 * subdomains (`example.com`, `.example.com` and `*.example.com` alike), IP literals, CIDR
 * ranges (`10.0.0.0/8`), each optionally with `:port`.
 */
export function bypassesProxy(url: URL, noProxy: string | undefined): boolean {
  if (noProxy === undefined) return false;
  const host = url.hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === "") continue;
    if (entry === "*") return true;
    const { name, entryPort } = splitPort(entry);
    if (entryPort !== undefined && entryPort !== port) continue;
    const bare = name.replace(/^\*?\./, "").replace(/\.$/, "");
    if (host === bare || host.endsWith(`.${bare}`)) return true;
    if (bare.includes("/") && ipaddr.isValid(host)) {
      try {
        const [range, bits] = ipaddr.parseCIDR(bare);
        const address = ipaddr.process(host);
        if (address.kind() === range.kind() && address.match(range, bits)) return true;
      } catch {
        // Not a CIDR range after all: an entry that matches nothing.
      }
    }
  }
  return false;
}

function splitPort(entry: string): { name: string; entryPort?: string } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed !== null) {
    return {
      name: bracketed[1] as string,
      ...(bracketed[2] === undefined ? {} : { entryPort: bracketed[2] }),
    };
  }
  // An IPv6 literal without brackets has several colons and no port.
  const colon = entry.lastIndexOf(":");
  if (colon === -1 || entry.indexOf(":") !== colon) return { name: entry };
  const port = entry.slice(colon + 1);
  return /^\d+$/.test(port) ? { name: entry.slice(0, colon), entryPort: port } : { name: entry };
}

/** A proxy URL for messages and `doctor`: no user name or password. */
export function describeProxy(proxy: string): string {
  try {
    const url = new URL(proxy);
    return `${url.protocol}//${url.host}`;
  } catch {
    return "(invalid proxy URL)";
  }
}
