/**
 * Seeded argument objects for the fuzz suite: generated from a tool's published input schema
 * (what tools/list says), then mutated. Case `index` of `tool` under `seed` is always the same
 * value, so a failure is reproduced from the three numbers the run prints.
 *
 * Nearly half the cases keep to the schema (values from pools of hostile but well-typed forms:
 * costly regexes, protected paths, private URLs, forged cursors), 40% are such objects with one
 * to three mutations (wrong types, bounds crossed, unknown or prototype keys, huge or odd
 * strings, deep nesting), and the rest are random JSON values, non-objects included.
 */

import { seeded } from "../fixtures/seeded.js";

/** The JSON Schema subset zod emits for our tools. */
export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly anyOf?: readonly JsonSchema[];
  readonly enum?: readonly unknown[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
}

export type Random = () => number;

/** The seed of one case: FNV-1a over the run's seed, the tool and the index. */
export function caseSeed(seed: number, tool: string, index: number): number {
  let hash = 0x811c9dc5;
  for (const char of `${seed}:${tool}:${index}`) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

const pick = <T>(rng: Random, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;
const int = (rng: Random, min: number, max: number) => min + Math.floor(rng() * (max - min + 1));

/** Where URLs of the cases point (see world.ts): `{site}` and `{port}` in the pools. */
export interface Targets {
  /** A host name whose pages the loopback site serves (through the proxy). */
  readonly site: string;
  /** A loopback port something listens on: a URL that reaches it got past the guard. */
  readonly loopbackPort: number;
}

/** Strings that are odd anywhere. */
const ODD = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\u202e\u2066evil",
  "😀".repeat(40),
  "\r\n\r\n",
  "%00",
  "%2e%2e%2f",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, as text
  "${HOME}",
  "$(id)",
  "`id`",
  "' OR 1=1 --",
  "<script>alert(1)</script>",
  "__proto__",
  "constructor",
  "NaN",
  "-1",
  "0",
  "null",
  "true",
  "{}",
  "[]",
];

/** Values pools by property name; `{site}` is the fake site. */
const POOLS: Readonly<Record<string, readonly string[]>> = {
  query: ["evident", "site:example.com mcp", "news today", "a".repeat(3_999), "\u0000", "  spaced  "],
  intent: ["news", "code", "research", "unknown-intent", "x".repeat(64)],
  providers: ["tavily", "brave", "jina", "duckduckgo", "nope", "TAVILY", "mcp:nothing"],
  reader: ["direct", "jina", "tavily", "brave", "nope", "firecrawl"],
  focus: ["the main point", "pricing", "x".repeat(999)],
  url: [
    "http://{site}/article",
    "http://{site}/plain",
    "http://{site}/json",
    "http://{site}/image",
    "http://{site}/huge",
    "http://{site}/redirect-private",
    "http://{site}/redirect-loop",
    "http://{site}/binary",
    "http://{site}/empty",
    "http://{site}/missing",
    "http://docs.fuzz.test/",
    "https://example.com/",
    "http://127.0.0.1:{port}/",
    "http://[::1]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://0x7f000001/",
    "http://localhost/",
    "http://10.0.0.1/",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "data:text/html,<h1>x</h1>",
    "ftp://example.com/",
    "//example.com",
    "http://user:secret@{site}/article",
    "http://{site}/article#frag",
    "http://{site}/%00",
    `http://{site}/${"a".repeat(8_000)}`,
    "http://xn--nxasmq6b.fuzz.test/",
    "not a url",
  ],
  pattern: [
    "export",
    "function",
    "TODO",
    "secret",
    "a{1000}{1000}",
    "(a+)+$",
    "(",
    "[",
    "\\",
    "\u0000",
    ".*",
    "^$",
    "(?i)todo",
    "\\p{Greek}",
    "\\bconst\\b",
    "x".repeat(4_096),
    "[[:alpha:]]+",
    "(?P<name>a)",
    "\\x{110000}",
    "a|b|c|d|e|f|g|h|i|j",
    "é",
    "sk_live_",
  ],
  path: [
    ".",
    "src",
    "src/index.ts",
    "..",
    "../..",
    "/",
    "/etc/shadow",
    "/etc/ssl/private",
    "/proc/self/environ",
    "/proc/self/fd/0",
    "/dev/zero",
    "/dev/stdin",
    "~",
    "~/.ssh",
    "fifo",
    "link-out",
    "link-git",
    ".git",
    ".git/config",
    "node_modules",
    "src/../../..",
    "a\u0000b",
    "x".repeat(4_096),
    "C:\\Windows\\system32",
    "file:///etc/passwd",
    "*",
    "src/**",
    "missing-dir",
  ],
  glob: [
    "*.ts",
    "!*.md",
    "**/*",
    "src/**",
    "!**",
    "{a,b",
    "[",
    "**/.git/**",
    "../*",
    "/etc/*",
    "*".repeat(300),
  ],
  exclude: ["dist", "node_modules", "**", "!src", "[", "{", ".git"],
  sourceCursor: ["s1.AAAA", "x".repeat(300), "\u0000"],
  cursor: [
    "c1.AAAA",
    "c1.",
    "x".repeat(512),
    "eyJhbGciOiJub25lIn0.e30.",
    "../../etc/passwd",
    "r1.deadbeef",
    "\u0000",
  ],
  changes: [
    "worktree",
    "staged",
    "HEAD~1..HEAD",
    "HEAD...HEAD",
    "main..nope",
    "--output=/tmp/x",
    "-p",
    "HEAD..",
    "..",
    "$(id)..HEAD",
    "a".repeat(256),
  ],
  anyOf: ["export", "function", "const", "TODO", "", "\u0000", "x".repeat(256)],
  symbol: ["createServer", "main", "x", "\u0000", "constructor"],
  structure: [
    "console.log($A)",
    "function $F($$$) { $$$ }",
    "export function $F(): void {}",
    "$A.$B($$$)",
    "class $C { $$$ }",
    "import $X from $Y",
    "def $F($$$): $$$",
    "if ($A) { $$$ }",
    "$A",
    "a; b",
    "$$$",
    " ",
    "((((",
  ],
};

function stringFor(name: string, schema: JsonSchema, rng: Random, targets: Targets): string {
  const pool = POOLS[name];
  const from = pool !== undefined && rng() < 0.9 ? pick(rng, pool) : pick(rng, ODD);
  const text = from.replaceAll("{site}", targets.site).replaceAll("{port}", String(targets.loopbackPort));
  // Sometimes a random string within the declared bounds, to leave the pools.
  if (rng() < 0.1) {
    const min = schema.minLength ?? 0;
    const max = Math.min(schema.maxLength ?? 64, 256);
    return randomString(rng, int(rng, min, Math.max(min, max)));
  }
  return text;
}

function randomString(rng: Random, length: number): string {
  const alphabets = [
    "abcdefghijklmnopqrstuvwxyz",
    "ABCXYZ0123456789-_./~*?[]{}()!^$|\\+",
    " \t\n\r\u0000\u00e9\u4e2d\u202e\ud83d\ude00",
  ];
  const alphabet = pick(rng, alphabets);
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(rng() * alphabet.length)];
  return out;
}

function valueFor(name: string, schema: JsonSchema, rng: Random, targets: Targets, depth = 0): unknown {
  if (schema.anyOf !== undefined && schema.anyOf.length > 0)
    return valueFor(name, pick(rng, schema.anyOf), rng, targets, depth);
  if (schema.enum !== undefined && schema.enum.length > 0) return pick(rng, schema.enum);
  const type = Array.isArray(schema.type) ? pick(rng, schema.type) : schema.type;
  switch (type) {
    case "string":
      return stringFor(name, schema, rng, targets);
    case "boolean":
      return rng() < 0.5;
    case "integer":
    case "number": {
      const min = schema.minimum ?? -5;
      const max = schema.maximum ?? 100;
      // Mostly inside the bounds, sometimes on them.
      return rng() < 0.2 ? pick(rng, [min, max]) : int(rng, min, max);
    }
    case "array": {
      const min = schema.minItems ?? 0;
      const max = Math.min(schema.maxItems ?? 4, 8);
      return Array.from({ length: int(rng, min, Math.max(min, max)) }, () =>
        valueFor(name, schema.items ?? {}, rng, targets, depth + 1),
      );
    }
    case "object":
      return objectFor(schema, rng, targets, depth + 1);
    default:
      return randomJson(rng, 2);
  }
}

/** Properties most calls carry though the schema cannot require them (`url` or `cursor`...). */
const USUAL = new Set(["url", "pattern"]);

function objectFor(schema: JsonSchema, rng: Random, targets: Targets, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    // Few properties at once, as agents send them; required ones always.
    const chance = required.has(name) ? 1 : USUAL.has(name) ? 0.85 : 0.12;
    if (rng() < chance) out[name] = valueFor(name, property, rng, targets, depth);
  }
  return out;
}

/** Any JSON value, to `depth` levels. */
export function randomJson(rng: Random, depth: number): unknown {
  const roll = rng();
  if (depth <= 0 || roll < 0.5) {
    return pick(rng, [
      null,
      true,
      false,
      0,
      -1,
      1.5,
      2 ** 53,
      -(2 ** 63),
      1e308,
      pick(rng, ODD),
      randomString(rng, int(rng, 0, 40)),
    ]);
  }
  if (roll < 0.75) return Array.from({ length: int(rng, 0, 4) }, () => randomJson(rng, depth - 1));
  const out: Record<string, unknown> = {};
  for (let i = int(rng, 0, 4); i > 0; i--)
    out[randomString(rng, int(rng, 1, 8))] = randomJson(rng, depth - 1);
  return out;
}

/** A value nested `levels` deep: parsers and validators must not recurse without bound. */
function deep(levels: number, rng: Random): unknown {
  let value: unknown = "bottom";
  for (let i = 0; i < levels; i++) value = rng() < 0.5 ? [value] : { a: value };
  return value;
}

function mutate(value: Record<string, unknown>, schema: JsonSchema, rng: Random): Record<string, unknown> {
  const names = Object.keys(schema.properties ?? {});
  const present = Object.keys(value);
  const name = present.length > 0 && rng() < 0.7 ? pick(rng, present) : pick(rng, names);
  const out = { ...value };
  switch (int(rng, 0, 11)) {
    case 0:
      delete out[name]; // a required one, sometimes
      break;
    case 1:
      out[name] = randomJson(rng, 2); // another type
      break;
    case 2:
      out[name] = pick(rng, [-1, 0, 1e9, -1e9, 2 ** 53 + 1, 0.5, 1e308]);
      break;
    case 3:
      out[name] = "y".repeat(pick(rng, [4_097, 8_193, 20_000, 200_000]));
      break;
    case 4:
      out[name] = Array.from({ length: pick(rng, [0, 33, 65, 200]) }, (_, i) => `item${i}`);
      break;
    case 5:
      out[randomString(rng, int(rng, 1, 12))] = randomJson(rng, 1); // unknown key
      break;
    case 6:
      // A key JSON.parse turns into an own property named "__proto__".
      Object.defineProperty(out, "__proto__", {
        value: { polluted: true },
        enumerable: true,
        configurable: true,
        writable: true,
      });
      break;
    case 7:
      Object.assign(out, { constructor: { prototype: { polluted: true } } });
      break;
    case 8:
      out[name] = deep(pick(rng, [50, 500, 1_000]), rng);
      break;
    case 9:
      out[name] = null;
      break;
    case 10:
      out[name] = pick(rng, ODD);
      break;
    default:
      out[name] = pick(rng, [true, false, [], {}, "", 0]);
  }
  return out;
}

/** The arguments of case `index` of `tool` under `seed`. */
export function fuzzArguments(
  tool: string,
  schema: JsonSchema,
  seed: number,
  index: number,
  targets: Targets,
): unknown {
  const rng = seeded(caseSeed(seed, tool, index));
  const roll = rng();
  if (roll < 0.45) return objectFor(schema, rng, targets);
  if (roll < 0.85) {
    let value = objectFor(schema, rng, targets);
    for (let i = int(rng, 1, 3); i > 0; i--) value = mutate(value, schema, rng);
    return value;
  }
  if (roll < 0.94) return randomJson(rng, 3) ?? null;
  return deep(pick(rng, [100, 1_000]), rng);
}
