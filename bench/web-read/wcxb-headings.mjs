#!/usr/bin/env node
// By the heading each block sits under (wcxb-elements.ts counts by line shape, for listings):
// where a page type's points go, by kind of element, over all its pages: the words our reading
// keeps that the truth does not (precision) and the truth's words it misses (recall), each
// attributed to the kind of block that holds them (a product's related-items strip, its
// reviews, shipping boilerplate; a service page's testimonials, logos, call to action...).
//
// A block is a Markdown paragraph or line; its kind comes from the heading it sits under (the
// words of the heading) and from its own shape (a line of links, a price). A block of ours
// whose words are mostly absent from the truth is "extra"; a block of the truth whose words are
// mostly absent from ours is "missed". The figures are words, summed over the pages, and the
// mean F1 the type would gain if that kind's extra words were dropped (recall unchanged).
//
// usage (from the project root, after `npm run build`):
//   node ../shared/wcxb/score.mjs --type product --dump DIR --json rows.json
//   node bench/web-read/wcxb-headings.mjs --type product --dump DIR [--examples 3]
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const HERE = dirname(fileURLToPath(import.meta.url));
const { values: opt } = parseArgs({
  options: {
    type: { type: "string", default: "product" },
    dump: { type: "string" },
    split: { type: "string", default: join(HERE, "../../../shared/wcxb/dev") },
    examples: { type: "string", default: "0" },
  },
});
const { markdownToText } = await import(join(opt.split, "../../web-read-eval/score.mjs"));

const tokens = (text) => (text ? (text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []) : []);

/** Kinds by the words of the heading a block sits under, first match wins. */
const HEADING_KINDS = [
  ["product-facts", /^product facts$/],
  [
    "related",
    /related|also (like|viewed|bought|love|purchased)|you may|you might|similar|recommend|customers who|frequently bought|recently viewed|more (from|products|items|like)|complete the|pairs? (well|with)|shop the|trending|popular|best ?sellers|goes well|you.ll love|others/,
  ],
  [
    "reviews",
    /review|rating|testimonial|what (our )?(customers|clients|people)|loved by|trusted by|q ?& ?a|questions (&|and) answers|stories/,
  ],
  ["faq", /faq|frequently asked|questions/],
  ["shipping-returns", /shipping|delivery|returns?|warranty|payment|guarantee|secure|refund/],
  ["pricing", /pricing|price|plans?\b|packages?|subscription/],
  [
    "specs",
    /spec|technical|dimension|details|features|ingredients|material|size|care|what.s (in|included)|in the box|compatib|tech/,
  ],
  ["description", /description|overview|about|story|why |how it works|benefits/],
  [
    "cta",
    /get started|contact|sign ?up|subscribe|newsletter|book|demo|free trial|ready to|join|talk to|call us|get in touch|request|quote/,
  ],
  [
    "footer-like",
    /follow us|social|company|legal|resources|useful links|quick links|help|customer (service|care)|account|menu|navigation|categories|shop|support/,
  ],
  ["logos-partners", /partner|clients|customers|brands|as seen|featured in|logos|awards|certif/],
];

function headingKind(heading) {
  if (heading === undefined) return "before-first-heading";
  const text = heading.toLowerCase();
  for (const [kind, pattern] of HEADING_KINDS) if (pattern.test(text)) return kind;
  return "under-other-heading";
}

const PRICE = /[$€£¥₹]\s?\d|\d\s?(?:€|£|zł|kr|(?:EUR|USD|GBP)\b)/;

/** A block's own shape, which overrides its heading's kind for a few telling shapes. */
function shapeKind(line, words) {
  const links = [...line.matchAll(/\[([^\]]*)\]\([^)]*\)/g)];
  let linked = 0;
  for (const link of links) linked += tokens(link[1]).length;
  if (links.length >= 2 && linked >= 0.7 * words) return "links-line";
  if (words <= 12 && PRICE.test(line)) return "price-line";
  if (
    words <= 4 &&
    /^(add to (cart|bag|basket)|buy|quantity|qty|select|choose|size|colou?r|in stock|out of stock|sold out|notify)/i.test(
      line.replace(/^[-*#\s]+/, ""),
    )
  )
    return "buy-controls";
  if (/^\s*\|/.test(line)) return "table-row";
  return undefined;
}

/** Blocks of a Markdown text with the heading each sits under. */
function blocks(markdown) {
  const out = [];
  let heading;
  let fence = false;
  for (const raw of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(raw)) fence = !fence;
    const line = raw.trim();
    if (line === "") continue;
    const h = !fence && /^#{1,6}\s+(.*)$/.exec(line);
    if (h) {
      heading = h[1].replace(/[*_[\]]|\(http[^)]*\)/g, "");
      out.push({ line, heading, isHeading: true });
      continue;
    }
    out.push({ line, heading, isHeading: false });
  }
  return out;
}

function multiset(words) {
  const counts = new Map();
  for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
}

const extra = new Map();
const missed = new Map();
const examples = new Map();
const add = (map, kind, n, page) => {
  const entry = map.get(kind) ?? { words: 0, pages: new Set(), gain: 0 };
  entry.words += n;
  entry.pages.add(page);
  map.set(kind, entry);
  return entry;
};
let pages = 0;
let sumF1 = 0;
const gt = join(opt.split, "ground-truth");
for (const file of readdirSync(opt.dump)
  .filter((f) => f.endsWith(".md"))
  .sort()) {
  const id = file.slice(0, -3);
  const truth = JSON.parse(readFileSync(join(gt, `${id}.json`), "utf8"));
  const type = truth._internal?.page_type?.primary ?? truth._internal?.page_type;
  if ((type === "category" ? "collection" : type) !== opt.type) continue;
  pages += 1;
  const ours = readFileSync(join(opt.dump, file), "utf8");
  const truthText = truth.ground_truth.main_content ?? "";
  const truthMd = truth.ground_truth.main_content_markdown ?? truthText;
  const ref = multiset(tokens(truthText));
  const refSet = new Set(ref.keys());
  const predAll = tokens(markdownToText(ours));
  const oursSet = new Set(predAll);
  // The page's F1 now, and what it would be without each kind's extra words.
  let overlap = 0;
  const left = new Map(ref);
  for (const w of predAll) {
    const n = left.get(w) ?? 0;
    if (n > 0) {
      overlap += 1;
      left.set(w, n - 1);
    }
  }
  const refN = tokens(truthText).length;
  const f1 = (o, p) =>
    o === 0 || p === 0 || refN === 0 ? 0 : (2 * (o / p) * (o / refN)) / (o / p + o / refN);
  const pageF1 = f1(overlap, predAll.length);
  sumF1 += pageF1;
  const extraHere = new Map();
  for (const block of blocks(ours)) {
    const words = tokens(markdownToText(block.line));
    if (words.length === 0) continue;
    const absent = words.filter((w) => !refSet.has(w)).length;
    if (absent < 0.5 * words.length) continue;
    const kind = block.isHeading
      ? "heading"
      : (shapeKind(block.line, words.length) ?? headingKind(block.heading));
    extraHere.set(kind, (extraHere.get(kind) ?? 0) + words.length);
    if (Number(opt.examples) > 0) {
      const list = examples.get(kind) ?? [];
      if (list.length < Number(opt.examples) * 3) list.push(`${id}: ${block.line.slice(0, 120)}`);
      examples.set(kind, list);
    }
  }
  for (const [kind, n] of extraHere) {
    const entry = add(extra, kind, n, id);
    entry.gain += f1(overlap, Math.max(overlap, predAll.length - n)) - pageF1;
  }
  for (const block of blocks(truthMd)) {
    const words = tokens(markdownToText(block.line));
    if (words.length === 0) continue;
    const absent = words.filter((w) => !oursSet.has(w)).length;
    if (absent < 0.5 * words.length) continue;
    const kind = block.isHeading
      ? "heading"
      : (shapeKind(block.line, words.length) ?? headingKind(block.heading));
    add(missed, kind, words.length, id);
  }
}

const table = (title, map, withGain) => {
  console.log(`\n${title}`);
  const rows = [...map.entries()].sort((a, b) => b[1].words - a[1].words);
  for (const [kind, { words, pages: on, gain }] of rows) {
    const g = withGain ? `  F1 +${(gain / pages).toFixed(4)}` : "";
    console.log(
      `  ${kind.padEnd(22)} ${String(words).padStart(7)} words on ${String(on.size).padStart(3)} pages${g}`,
    );
  }
};
console.log(`${opt.type}: ${pages} pages, mean F1 ${(sumF1 / pages).toFixed(3)}`);
table("kept, not in the truth (precision): words, pages, mean F1 if dropped", extra, true);
table("in the truth, not kept (recall): words, pages", missed, false);
if (Number(opt.examples) > 0) {
  for (const [kind, list] of examples) console.log(`\n[${kind}]\n  ${list.join("\n  ")}`);
}
