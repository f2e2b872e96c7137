/**
 * What one client address holds open on the HTTP server. A connection counts from its arrival to
 * its close whatever it does (idle, still sending its head, being served): an idle kept-alive
 * socket and one dribbling a head are the same thing until its bytes are read, so one bound
 * covers both, and Node's headers and keep-alive timeouts end each in time.
 *
 * Clients are keyed by address: an IPv4 address (an IPv4-mapped IPv6 one included) is one
 * client, an IPv6 address counts with its /64, which one host usually holds whole.
 */
import { isIPv4, isIPv6 } from "node:net";

/** The key a remote address is counted under (undefined for a socket that has none). */
export function clientKey(address: string | undefined): string | undefined {
  if (address === undefined || address === "") return undefined;
  const bare = address.split("%")[0] ?? address; // a link-local zone names the interface only
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (isIPv4(bare) || !isIPv6(bare)) return bare;
  return `${prefix64(bare)}::/64`;
}

/** The first four 16-bit groups of a valid IPv6 address, canonical (lower case, no zeros). */
function prefix64(address: string): string {
  const [head = "", tail] = address.toLowerCase().split("::");
  const groups = (part: string | undefined) =>
    part === undefined || part === ""
      ? []
      : // an embedded IPv4 tail takes two groups; it never reaches the first four
        part.split(":").flatMap((group) => (group.includes(".") ? ["0", "0"] : [group]));
  const left = groups(head);
  const right = groups(tail);
  const all =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return all
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":");
}

/** Open connections per client key, against one bound. */
export class ClientConnections {
  readonly #max: number;
  readonly #open = new Map<string, number>();

  constructor(max: number) {
    this.#max = max;
  }

  /**
   * Counts a new connection from `key` and returns a release function, or undefined when the
   * key already holds its maximum (the connection is then not counted).
   */
  admit(key: string): (() => void) | undefined {
    const held = this.#open.get(key) ?? 0;
    if (held >= this.#max) return undefined;
    this.#open.set(key, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#open.get(key) ?? 1) - 1;
      if (left === 0) this.#open.delete(key);
      else this.#open.set(key, left);
    };
  }

  /** Connections `key` holds now. */
  held(key: string): number {
    return this.#open.get(key) ?? 0;
  }

  /** Client keys holding at least one connection (the map never outgrows the open sockets). */
  get clients(): number {
    return this.#open.size;
  }
}
