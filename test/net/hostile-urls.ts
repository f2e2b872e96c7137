/**
 * Hostile URL forms for the public-URL guard tests (S22) and the SSRF suite: loopback in every
 * notation aimed at a canary's port, private, link-local, metadata and reserved literals, names
 * that resolve to such addresses (through `hostileLookup`, which never asks real DNS), and
 * schemes or shapes that are not public http(s) URLs.
 */
import type { LookupAddress } from "node:dns";
import type { LookupFunction } from "../../src/net/guard.js";

/** A lookup answering from a table (never the network); unknown names fail like NXDOMAIN. */
export function tableLookup(
  table: Record<string, Array<{ address: string; family: number }>>,
): LookupFunction {
  return (hostname, options, callback) => {
    const answer = table[hostname.toLowerCase().replace(/\.$/, "")];
    if (answer === undefined) {
      callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), "");
      return;
    }
    if (options.all) callback(null, answer as LookupAddress[]);
    else callback(null, answer[0]?.address ?? "", answer[0]?.family);
  };
}

const v4 = (address: string) => [{ address, family: 4 }];
const v6 = (address: string) => [{ address, family: 6 }];

/** Names that resolve to loopback or private addresses (the rebinding-style hosts of the forms). */
export const hostileLookup = tableLookup({
  localhost: v4("127.0.0.1"),
  "loopback.test": v4("127.0.0.1"),
  // A loopback record first and a public one second: refused as a whole.
  "mixed.test": [
    { address: "127.0.0.1", family: 4 },
    { address: "93.184.216.34", family: 4 },
  ],
  "mapped.test": v6("::ffff:127.0.0.1"),
  "six.test": v6("::1"),
  "zero.test": v4("0.0.0.0"),
  "metadata.test": v4("169.254.169.254"),
  "intranet.test": v4("10.1.2.3"),
  "cgnat.test": v4("100.64.1.1"),
  "ula.test": v6("fd12:3456::1"),
  "nat64.test": v6("64:ff9b::a00:1"),
  "127.0.0.1.nip.test": v4("127.0.0.1"),
  // A public name, for the requests that must be allowed to go (never connected to here).
  "public.test": v4("93.184.216.34"),
});

/** Loopback forms aimed at a canary listening on 127.0.0.1:`p`: a broken guard would reach it. */
export function loopbackForms(p: number): string[] {
  return [
    `http://127.0.0.1:${p}/`,
    `http://127.1:${p}/`,
    `http://127.0.1:${p}/`,
    `http://2130706433:${p}/`,
    `http://0x7f000001:${p}/`,
    `http://0X7F000001:${p}/`,
    `http://0x7f.0.0.1:${p}/`,
    `http://0x7f.0x0.0x0.0x1:${p}/`,
    `http://0177.0.0.1:${p}/`,
    `http://0177.1:${p}/`,
    `http://017700000001:${p}/`,
    `http://0x7f.1:${p}/`,
    `http://127.000.000.001:${p}/`,
    `http://127.0.0.1.:${p}/`,
    `http://%31%32%37.0.0.1:${p}/`,
    `http://0x7f%2e0.0.1:${p}/`,
    `http://①②⑦.0.0.1:${p}/`,
    `http://127。0。0。1:${p}/`,
    `https://127.0.0.1:${p}/`,
    `HTTP://127.0.0.1:${p}/%2e%2e/`,
    `http:/127.0.0.1:${p}/`,
    `http:\\\\127.0.0.1:${p}/`,
    ` http://127.0.0.1:${p}/`,
    `http://127.0.0.1\t:${p}/`,
    `http://127.0.0.1:${p}\\@public.test/`,
    `http://127.0.0.1:${p}#@public.test/`,
    `http://[::ffff:127.0.0.1]:${p}/`,
    `http://[::ffff:7f00:1]:${p}/`,
    `http://[0:0:0:0:0:ffff:127.0.0.1]:${p}/`,
    `http://[::1]:${p}/`,
    `http://[0::1]:${p}/`,
    `http://[0:0:0:0:0:0:0:1]:${p}/`,
    `http://[::127.0.0.1]:${p}/`,
    `http://[::ffff:0:127.0.0.1]:${p}/`,
    `http://[64:ff9b::127.0.0.1]:${p}/`,
    `http://[64:ff9b:1::7f00:1]:${p}/`,
    `http://0.0.0.0:${p}/`,
    `http://0:${p}/`,
    `http://[::]:${p}/`,
    `http://localhost:${p}/`,
    `http://LOCALHOST.:${p}/`,
    `http://app.localhost:${p}/`,
    `http://loopback.test:${p}/`,
    `http://mixed.test:${p}/`,
    `http://mapped.test:${p}/`,
    `http://six.test:${p}/`,
    `http://zero.test:${p}/`,
    `http://127.0.0.1.nip.test:${p}/`,
  ];
}

/** Private, link-local, metadata, CGNAT, multicast and reserved targets, literal or by name. */
export const privateForms = [
  "http://10.0.0.1/",
  "http://172.16.0.1/",
  "http://192.168.1.1/",
  "http://169.254.169.254/latest/meta-data/",
  "http://[fd00:ec2::254]/",
  "http://100.64.0.1/",
  "http://[fe80::1]/",
  "http://[fc00::1]/",
  "http://[fec0::1]/",
  "http://224.0.0.1/",
  "http://255.255.255.255/",
  "http://192.0.0.170/",
  "http://192.0.2.1/",
  "http://198.18.0.1/",
  "http://198.51.100.1/",
  "http://203.0.113.1/",
  "http://240.0.0.1/",
  "http://[100::1]/",
  "http://[2001:db8::1]/",
  "http://[::ffff:10.0.0.1]/",
  "http://[::ffff:169.254.169.254]/",
  "http://[::ffff:a9fe:a9fe]/",
  "http://[64:ff9b::a9fe:a9fe]/",
  "http://0xa9fea9fe/",
  "http://2852039166/",
  "http://0251.0376.0251.0376/",
  "http://169.254.43518/",
  "http://[2002:7f00:1::]/",
  "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
  "http://[ff02::1]/",
  "http://metadata.test/latest/meta-data/",
  "http://intranet.test/",
  "http://cgnat.test/",
  "http://ula.test/",
  "http://nat64.test/",
];

/** Not public http(s) URLs at all. */
export function schemeForms(p: number): string[] {
  return [
    "file:///etc/passwd",
    `ftp://127.0.0.1:${p}/`,
    `gopher://127.0.0.1:${p}/_GET`,
    "data:text/html,<h1>hi</h1>",
    "javascript:alert(1)",
    `ws://127.0.0.1:${p}/`,
    "not a url",
    "//127.0.0.1/",
    "http://user:pass@93.184.216.34/",
    `http://public.test@127.0.0.1:${p}/`,
    `http://[::1%25lo]:${p}/`,
    "http://[fe80::1%25eth0]/",
  ];
}

/** Every hostile form, aimed at a canary on 127.0.0.1:`p` where it names a port. */
export function hostileUrls(p: number): string[] {
  return [...loopbackForms(p), ...privateForms, ...schemeForms(p)];
}
