/**
 * What a reading of WCXB's listings and collections keeps that the truth does not, and what it
 * misses, by kind of element over all pages of a type (not page by page): each line of our
 * Markdown and of the truth is put in one kind (an item's title, a snippet, a date or byline, a
 * price, the page's heading, the text before the first item, chrome such as "read more" or
 * pagination, image alt text, short labels, short links), and the words of each kind are counted
 * against the other side with the scorer's metric. For each kind it prints the points of
 * precision its extra words cost and the points of recall its missing words cost (means over the
 * pages), and the mean F1 if our reading dropped that kind: the kinds worth keeping or dropping.
 *
 * Run after a dump of the readings (either tool writes ID.md):
 *   npx tsx bench/web-read/wcxb-elements.ts --dump DIR [--type listing] [--rows kinds.json [--typed listing]]
 * where DIR comes from `npx tsx bench/web-read/wcxb-kinds.ts --type listing --dump DIR --json kinds.json`
 * or `node ../shared/wcxb/score.mjs --type listing --dump DIR`. `--typed` keeps the pages the
 * reader typed so (from wcxb-kinds.ts's rows; a comma-separated list), `--strategy` those it
 * read with that strategy.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { markdownToText, wcxbRoot as root, tokens } from "./wcxb-metric.js";

const args = process.argv.slice(2);
const option = (name: string) => {
  const index = args.indexOf(name);
  return index === -1 ? undefined : args[index + 1];
};

const PRICE = /[$€£¥₹]\s?\d|\d\s?(?:€|£|zł|kr|Kč|(?:EUR|USD|GBP|CHF|CAD|AUD|SEK|NOK|DKK|PLN)\b)/;
const MONTH =
  /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b|\b\d{1,2}\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b/i;
const DATE =
  /\b\d{4}-\d\d-\d\d\b|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b|\b\d+\s+(second|minute|min|hour|day|week|month|year)s?\s+ago\b|^\s*(by|posted by|written by|author)\b/i;
const CHROME =
  /\b(read more|continue reading|learn more|view (all|more|details)|see (all|more)|show (all|more)|load more|next|previous|prev|sort by|filter|filters|results|page \d+|add to (cart|basket|bag|wishlist)|quick (view|shop)|compare|wishlist|shop now|apply now|subscribe|sign up|log in|more info|out of stock|in stock|sold out|free shipping|reviews?|rating|stars?)\b/i;

type Kind =
  | "heading"
  | "title"
  | "intro"
  | "snippet"
  | "date"
  | "price"
  | "chrome"
  | "alt"
  | "link"
  | "label";
const KINDS: Kind[] = [
  "heading",
  "title",
  "intro",
  "snippet",
  "date",
  "price",
  "chrome",
  "alt",
  "link",
  "label",
];

interface Piece {
  kind: Kind;
  words: string[];
}

/** A short line's kind by what it says, the same for ours and the truth's. */
function shortKind(text: string, words: number): Kind | undefined {
  if (words <= 8 && PRICE.test(text)) return "price";
  if (words <= 12 && (MONTH.test(text) || DATE.test(text))) return "date";
  if (words <= 6 && (CHROME.test(text) || /^\s*[\d\s/|»«<>›‹.-]+\s*$/.test(text))) return "chrome";
  return undefined;
}

/** Our Markdown's lines, each in a kind (its image alt texts apart). */
function ourPieces(markdown: string): Piece[] {
  const pieces: Piece[] = [];
  let titled = false;
  for (const raw of markdown.split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    const alts = [...line.matchAll(/!\[([^\]]*)\]\([^)]*\)/g)].map((m) => m[1] ?? "");
    for (const alt of alts) pieces.push({ kind: "alt", words: tokens(alt) });
    const rest = line.replace(/!\[([^\]]*)\]\([^)]*\)/g, " ");
    const text = markdownToText(rest);
    const words = tokens(text);
    if (words.length === 0) continue;
    const bare = rest.replace(/^([-*+]|\d+\.|#{1,6}|>)\s+/, "").trim();
    const wholeLink = /^\[[^\]]*\]\([^)]*\)$/.test(
      bare.replace(/^#{1,6}\s+/, "").replace(/^\*\*|\*\*$/g, ""),
    );
    let kind = shortKind(text, words.length);
    if (kind === undefined) {
      if (/^#\s/.test(line) && !titled) kind = "heading";
      else if (/^#{2,6}\s/.test(line) || (wholeLink && words.length >= 4)) kind = "title";
      else if (wholeLink) kind = "link";
      else if (words.length >= 8) kind = titled ? "snippet" : "intro";
      else kind = "label";
    }
    if (kind === "title") titled = true;
    pieces.push({ kind, words });
  }
  return pieces;
}

/** The truth's lines, each in a kind (plain text: its titles are its short lines). */
function truthPieces(text: string): Piece[] {
  const pieces: Piece[] = [];
  let first = true;
  let titled = false;
  for (const line of text.split("\n")) {
    const words = tokens(line);
    if (words.length === 0) continue;
    let kind = shortKind(line, words.length);
    if (kind === undefined) {
      if (first && words.length <= 12) kind = "heading";
      else if (words.length < 12 && !/[.!?:]\s*$/.test(line)) kind = words.length >= 3 ? "title" : "label";
      else kind = titled ? "snippet" : "intro";
    }
    if (kind === "title") titled = true;
    first = false;
    pieces.push({ kind, words });
  }
  return pieces;
}

/** Words of `pieces` not found in `other`'s multiset, by kind (greedy, in order; totals are the metric's). */
function unmatched(pieces: readonly Piece[], other: readonly string[]): Map<Kind, [number, number]> {
  const counts = new Map<string, number>();
  for (const word of other) counts.set(word, (counts.get(word) ?? 0) + 1);
  const byKind = new Map<Kind, [number, number]>();
  for (const piece of pieces) {
    const entry = byKind.get(piece.kind) ?? [0, 0];
    for (const word of piece.words) {
      entry[0] += 1;
      const n = counts.get(word) ?? 0;
      if (n > 0) counts.set(word, n - 1);
      else entry[1] += 1;
    }
    byKind.set(piece.kind, entry);
  }
  return byKind;
}

function f1(pred: readonly string[], ref: readonly string[]): number {
  if (ref.length === 0) return pred.length === 0 ? 1 : 0;
  if (pred.length === 0) return 0;
  let missed = 0;
  for (const [, [, miss]] of unmatched([{ kind: "label", words: [...pred] }], ref)) missed += miss;
  const overlap = pred.length - missed;
  const p = overlap / pred.length;
  const r = overlap / ref.length;
  return p + r > 0 ? (2 * p * r) / (p + r) : 0;
}

const dump = option("--dump");
if (dump === undefined) throw new Error("--dump DIR is required");
const wanted = option("--type");
const typed = option("--typed");
const rows = option("--rows");
const strategy = option("--strategy");
const decided = new Map<string, string>();
const used = new Map<string, string>();
if (rows !== undefined)
  for (const row of JSON.parse(readFileSync(rows, "utf8")).rows) {
    decided.set(row.id, row.decided);
    used.set(row.id, row.strategy);
  }

const cost = { p: new Map<Kind, number>(), r: new Map<Kind, number>(), share: new Map<Kind, number>() };
const truthShare = new Map<Kind, number>();
const dropped = new Map<Kind, number>();
let base = 0;
let pages = 0;
const add = (map: Map<Kind, number>, kind: Kind, value: number) =>
  map.set(kind, (map.get(kind) ?? 0) + value);
for (const file of readdirSync(dump).filter((name) => /^\d+\.md$/.test(name))) {
  const id = file.slice(0, -3);
  const truth = JSON.parse(readFileSync(join(root, "dev", "ground-truth", `${id}.json`), "utf8"));
  const stated = truth._internal?.page_type;
  const type = (typeof stated === "string" ? stated : (stated?.primary ?? "article")).replace(
    "category",
    "collection",
  );
  if (wanted !== undefined && type !== wanted) continue;
  if (typed !== undefined && !typed.split(",").includes(decided.get(id) ?? "")) continue;
  if (strategy !== undefined && used.get(id) !== strategy) continue;
  const main: string = truth.ground_truth?.main_content ?? "";
  const reference = tokens(main);
  if (reference.length === 0) continue;
  pages += 1;
  const ours = ourPieces(readFileSync(join(dump, file), "utf8"));
  const predicted = ours.flatMap((piece) => piece.words);
  base += f1(predicted, reference);
  for (const kind of KINDS) {
    add(
      dropped,
      kind,
      f1(
        ours.filter((piece) => piece.kind !== kind).flatMap((piece) => piece.words),
        reference,
      ),
    );
  }
  for (const [kind, [total, miss]] of unmatched(ours, reference)) {
    add(cost.share, kind, predicted.length === 0 ? 0 : total / predicted.length);
    add(cost.p, kind, predicted.length === 0 ? 0 : miss / predicted.length);
  }
  const theirs = truthPieces(main);
  for (const [kind, [total, miss]] of unmatched(theirs, predicted)) {
    add(truthShare, kind, total / reference.length);
    add(cost.r, kind, miss / reference.length);
  }
}

const mean = (map: Map<Kind, number>, kind: Kind) => ((map.get(kind) ?? 0) / Math.max(1, pages)).toFixed(3);
console.log(`${pages} pages (truth not empty), mean F1 ${(base / Math.max(1, pages)).toFixed(3)}`);
console.log("| kind | share of ours | P lost (extra) | share of truth | R lost (missing) | F1 if dropped |");
console.log("|---|---|---|---|---|---|");
for (const kind of KINDS) {
  console.log(
    `| ${kind} | ${mean(cost.share, kind)} | ${mean(cost.p, kind)} | ${mean(truthShare, kind)} | ${mean(cost.r, kind)} | ${mean(dropped, kind)} |`,
  );
}
