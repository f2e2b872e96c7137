/**
 * How much DOM work the `direct` reader does per page, counted: whole-page parses, the HTML it
 * serializes and re-parses (innerHTML read and written), deep copies, Readability's runs and
 * its retries (a retry re-parses the body from the HTML it serialized before its first pass),
 * with the CPU time each takes, by the strategy that made the answer. A diagnosis: it wraps
 * linkedom's and Readability's methods in this process only, and changes no answer.
 *
 *   npx tsx bench/web-read/work.ts [--set wcxb|eval] [--limit N] [--skip N] [--retried FILE]
 *
 * `--retried FILE` writes the ids of the pages on which Readability retried, one a line.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Readability } from "@mozilla/readability";
import { DOMParser, parseHTML } from "linkedom";
import { MAX_RESPONSE_BODY_BYTES } from "../../src/core/limits.js";
import { decodeBody } from "../../src/web/providers/direct/charset.js";
import { readHtml } from "../../src/web/providers/direct/html.js";
import { bothSetsPages } from "./eval-set.js";

const { values: opt } = parseArgs({
  options: {
    limit: { type: "string" },
    skip: { type: "string" },
    set: { type: "string" },
    retried: { type: "string" },
  },
});

/** Counters for the page being read; `cpu` in ms. */
const page = {
  parses: 0,
  parseCpu: 0,
  serialized: 0,
  serializeCpu: 0,
  reparsed: 0,
  reparseCpu: 0,
  clones: 0,
  cloneCpu: 0,
  readability: 0,
  readabilityCpu: 0,
  attempts: 0,
  /** Readability's CPU on pages where it retried (its retries re-parse the body). */
  retriedCpu: 0,
};
type Counter = keyof typeof page;
let depth = 0;

const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Wraps a method so that each outermost call counts once and adds its CPU time. */
function wrap(
  target: object,
  name: string,
  count: Counter,
  cpu: Counter,
  kind: "value" | "get" | "set",
): void {
  let owner: object | null = target;
  while (owner !== null && !Object.getOwnPropertyDescriptor(owner, name))
    owner = Object.getPrototypeOf(owner);
  if (owner === null) throw new Error(`no ${name}`);
  const descriptor = Object.getOwnPropertyDescriptor(owner, name) as PropertyDescriptor;
  const original = descriptor[kind] as (...args: unknown[]) => unknown;
  const wrapped = function (this: unknown, ...args: unknown[]) {
    if (depth > 0) return original.apply(this, args);
    depth++;
    const started = cpuNow();
    try {
      return original.apply(this, args);
    } finally {
      depth--;
      page[count] += 1;
      page[cpu] += cpuNow() - started;
    }
  };
  Object.defineProperty(owner, name, { ...descriptor, [kind]: wrapped });
}

const sample = parseHTML("<!doctype html><html><body><div><p>x</p></div></body></html>").document;
const element = sample.querySelector("div");
wrap(DOMParser.prototype, "parseFromString", "parses", "parseCpu", "value");
wrap(element, "innerHTML", "serialized", "serializeCpu", "get");
wrap(element, "innerHTML", "reparsed", "reparseCpu", "set");
wrap(element, "cloneNode", "clones", "cloneCpu", "value");
const parse = Readability.prototype.parse;
Readability.prototype.parse = function (this: { _attempts: unknown[] }) {
  const started = cpuNow();
  try {
    return parse.call(this);
  } finally {
    page.readability += 1;
    page.readabilityCpu += cpuNow() - started;
    page.attempts += this._attempts.length;
    if (this._attempts.length > 0) page.retriedCpu += cpuNow() - started;
  }
};

const pages = await bothSetsPages(opt);

interface Row {
  pages: number;
  cpu: number;
  counts: Record<Counter, number>;
  retried: number;
}
const rows = new Map<string, Row>();
let retriedPagesCpu = 0;
const retriedIds: string[] = [];
const total: Row = { pages: 0, cpu: 0, counts: { ...page }, retried: 0 };
for (const key of Object.keys(total.counts) as Counter[]) total.counts[key] = 0;
for (const item of pages) {
  const bytes = item.bytes();
  if (bytes.length > MAX_RESPONSE_BODY_BYTES) continue;
  for (const key of Object.keys(page) as Counter[]) page[key] = 0;
  const text = decodeBody(bytes, item.contentType, true).text;
  const started = cpuNow();
  let key = "error";
  try {
    const outcome = await readHtml(text, item.url);
    key = `${outcome.pageType ?? "?"}/${outcome.strategy ?? "?"}`;
  } catch {}
  const spent = cpuNow() - started;
  if (page.attempts > 0) {
    retriedPagesCpu += spent;
    retriedIds.push(item.id);
  }
  for (const row of [total, rows.get(key) ?? { pages: 0, cpu: 0, counts: { ...page }, retried: 0 }]) {
    if (row !== total && !rows.has(key)) {
      for (const name of Object.keys(row.counts) as Counter[]) row.counts[name] = 0;
      rows.set(key, row);
    }
    row.pages += 1;
    row.cpu += spent;
    if (page.attempts > 0) row.retried += 1;
    for (const name of Object.keys(page) as Counter[]) row.counts[name] += page[name];
  }
}

const fmt = (row: Row) => {
  const c = row.counts;
  const share = (ms: number) => `${((100 * ms) / row.cpu).toFixed(1)}%`;
  return [
    String(row.pages).padStart(5),
    `${(row.cpu / row.pages).toFixed(1)} ms`.padStart(9),
    `${(c.parses / row.pages).toFixed(2)} ${share(c.parseCpu)}`.padStart(13),
    `${(c.readability / row.pages).toFixed(2)} ${share(c.readabilityCpu)}`.padStart(13),
    `${row.retried} ${(c.attempts / row.pages).toFixed(2)}`.padStart(10),
    `${(c.serialized / row.pages).toFixed(2)} ${share(c.serializeCpu)}`.padStart(13),
    `${(c.reparsed / row.pages).toFixed(2)} ${share(c.reparseCpu)}`.padStart(13),
    `${(c.clones / row.pages).toFixed(2)} ${share(c.cloneCpu)}`.padStart(13),
  ].join(" ");
};
console.log(
  `web-read work: ${total.pages} pages; per page: count and share of the reader's CPU (Readability's share includes its serialize and re-parse)`,
);
console.log(
  `${"type/strategy".padEnd(28)} pages  CPU/page  full parses   Readability  retried(att)  innerHTML get  innerHTML set   cloneNode`,
);
for (const [key, row] of [...rows].sort((a, b) => b[1].pages - a[1].pages))
  console.log(`${key.padEnd(28)} ${fmt(row)}`);
console.log(`${"all".padEnd(28)} ${fmt(total)}`);
console.log(
  `Readability on the ${total.retried} pages it retried: ${total.counts.retriedCpu.toFixed(0)} ms of the reader's ${total.cpu.toFixed(0)} ms (${((100 * total.counts.retriedCpu) / total.cpu).toFixed(1)}%); the reader on those pages ${retriedPagesCpu.toFixed(0)} ms`,
);
if (opt.retried !== undefined) writeFileSync(opt.retried, retriedIds.map((id) => `${id}\n`).join(""));
