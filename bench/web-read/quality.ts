/**
 * Quality of the `direct` reader on the web-read-eval development set, in-process.
 *
 * Run: npx tsx bench/web-read/quality.ts [--limit N] [--only TEXT] [--worst N] [--json out.json]
 *      [--compare old.json] [--dump DIR]
 * The figures match the shared scorer's (`node ../shared/web-read-eval/score.mjs`, which runs the
 * CLI once per page): the same decoding, reader, Markdown reduction and counting.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { evalDir, loadEval, type PageResult, scorePage } from "./eval-set.js";

const args = process.argv.slice(2);
const option = (name: string) => {
  const index = args.indexOf(name);
  return index === -1 ? undefined : args[index + 1];
};

const dir = evalDir();
const { items, scorer } = await loadEval(dir);
const only = option("--only");
const limit = option("--limit");
let selected =
  only === undefined ? items : items.filter((item) => item.file.includes(only) || item.url.includes(only));
if (limit !== undefined) selected = selected.slice(0, Number(limit));

const results: PageResult[] = [];
for (const item of selected) results.push(await scorePage(dir, item, scorer));

const totals = results.reduce(
  (sum, page) => ({ tp: sum.tp + page.tp, fp: sum.fp + page.fp, fn: sum.fn + page.fn, tn: sum.tn + page.tn }),
  { tp: 0, fp: 0, fn: 0, tn: 0 },
);
const s = scorer.scores(totals);
const failures = results.filter((page) => page.failed !== undefined).length;
const empty = results.filter((page) => page.failed === undefined && page.markdown.trim() === "").length;
console.log(
  `pages ${results.length}${results.length === items.length ? "" : " (SUBSET)"}  failures ${failures}  empty ${empty}`,
);
console.log(`TP ${totals.tp}  FP ${totals.fp}  TN ${totals.tn}  FN ${totals.fn}`);
console.log(
  `precision ${s.precision.toFixed(3)}  recall ${s.recall.toFixed(3)}  accuracy ${s.accuracy.toFixed(3)}  F1 ${s.f1.toFixed(4)}`,
);

const worst = option("--worst");
if (worst !== undefined) {
  const ranked = [...results].sort((a, b) => b.fn + b.fp - (a.fn + a.fp)).slice(0, Number(worst));
  for (const page of ranked) {
    console.log(`\n${page.file}  FN ${page.fn} FP ${page.fp}${page.failed ? `  FAILED ${page.failed}` : ""}`);
    for (const text of page.missed) console.log(`  missed:   ${text.slice(0, 100)}`);
    for (const text of page.unwanted) console.log(`  unwanted: ${text.slice(0, 100)}`);
  }
}
const dump = option("--dump");
if (dump !== undefined) {
  mkdirSync(dump, { recursive: true });
  for (const page of results) writeFileSync(join(dump, `${page.file}.md`), page.markdown);
}
const compare = option("--compare");
if (compare !== undefined) {
  const before = new Map(
    (
      JSON.parse(readFileSync(compare, "utf8")).pages as Array<{
        file: string;
        tp: number;
        fp: number;
        missed: string[];
        unwanted: string[];
      }>
    ).map((page) => [page.file, page]),
  );
  for (const page of results) {
    const old = before.get(page.file);
    if (old === undefined || (old.tp === page.tp && old.fp === page.fp)) continue;
    console.log(`\n${page.file}: TP ${old.tp} -> ${page.tp}, FP ${old.fp} -> ${page.fp}`);
    for (const text of page.missed.filter((t) => !old.missed.includes(t)))
      console.log(`  now missed:   ${text.slice(0, 100)}`);
    for (const text of old.missed.filter((t) => !page.missed.includes(t)))
      console.log(`  now found:    ${text.slice(0, 100)}`);
    for (const text of page.unwanted.filter((t) => !old.unwanted.includes(t)))
      console.log(`  now unwanted: ${text.slice(0, 100)}`);
    for (const text of old.unwanted.filter((t) => !page.unwanted.includes(t)))
      console.log(`  now dropped:  ${text.slice(0, 100)}`);
  }
}
const json = option("--json");
if (json !== undefined) {
  writeFileSync(
    json,
    JSON.stringify(
      { totals, scores: s, pages: results.map(({ markdown: _markdown, ...page }) => page) },
      null,
      1,
    ),
  );
}
