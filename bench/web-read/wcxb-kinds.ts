/**
 * The page type the `direct` reader decides against WCXB's truth type, in-process: a confusion
 * matrix of the development split (rows: the truth's type; columns: provenance's `pageType`),
 * each cell with its pages and their mean F1 (the scorer's metric), and what each confusion
 * costs its row's mean. With `--force`, every mistyped page is read again as its truth's type
 * (page-type.ts's decision replaced for that read), so a cell also says what the right type's
 * reading would have scored: the points a page-type rule can win there, and where the reading
 * of the right type is what fails.
 *
 * Run (after `npm run build`; it reads dist/): npx tsx bench/web-read/wcxb-kinds.ts
 *      [--type listing,service] [--limit N] [--only ID,ID] [--force] [--json out.json] [--pages cell]
 *      [--dump DIR]
 * `--pages service>listing` lists that cell's pages (truth service, typed listing) by F1.
 * Figures are close to the scorer's (`node ../shared/wcxb/score.mjs`), which reads over MCP:
 * pages are decoded as UTF-8 as it serves them, and read on this thread whatever their size.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { register } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";
import { markdownToText, wcxbRoot as root, tokens } from "./wcxb-metric.js";

const args = process.argv.slice(2);
const option = (name: string) => {
  const index = args.indexOf(name);
  return index === -1 ? undefined : args[index + 1];
};
const force = args.includes("--force");

// page-type.ts's decision, replaceable for one read: its module is loaded through a hook that
// puts a global's type, when set, before the rules.
const hook = `export async function load(url, context, next) {
  const loaded = await next(url, context);
  if (!url.endsWith("/dist/web/providers/direct/page-type.js")) return loaded;
  const source = String(loaded.source).replace("export function pageType(", "function decidedType(");
  return { ...loaded, source: source + "\\nexport function pageType(d, p) { return globalThis.__wcxbType ?? decidedType(d, p); }\\n" };
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
const forced = globalThis as { __wcxbType?: string };

const dist = resolve("dist/web/providers/direct/html.js");
const { readHtml } = (await import(pathToFileURL(dist).href)) as {
  readHtml(html: string, url: string): Promise<{ pageType?: string; strategy?: string; content: unknown[] }>;
};
const split = join(root, "dev");

function f1(predicted: string, reference: string): number {
  const pred = tokens(predicted);
  const ref = tokens(reference);
  if (ref.length === 0) return pred.length === 0 ? 1 : 0;
  if (pred.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const t of ref) counts.set(t, (counts.get(t) ?? 0) + 1);
  let overlap = 0;
  for (const t of pred) {
    const n = counts.get(t) ?? 0;
    if (n > 0) {
      overlap += 1;
      counts.set(t, n - 1);
    }
  }
  const p = overlap / pred.length;
  const r = overlap / ref.length;
  return p + r > 0 ? (2 * p * r) / (p + r) : 0;
}

interface Row {
  id: string;
  truth: string;
  decided: string;
  strategy: string;
  f1: number;
  asTruth?: number;
}

async function score(
  id: string,
  html: string,
  main: string,
): Promise<{ type: string; strategy: string; f1: number }> {
  try {
    const outcome = await readHtml(html, `http://127.0.0.1/${id}.html`);
    const markdown = outcome.content.map((part) => (part as { text?: string }).text ?? "").join("");
    if (dump !== undefined)
      writeFileSync(join(dump, `${id}${forced.__wcxbType ? `.as-${forced.__wcxbType}` : ""}.md`), markdown);
    return {
      type: outcome.pageType ?? "?",
      strategy: outcome.strategy ?? "?",
      f1: f1(markdownToText(markdown), main),
    };
  } catch {
    return { type: "failed", strategy: "failed", f1: 0 };
  }
}

let ids = readdirSync(join(split, "ground-truth"))
  .filter((file) => file.endsWith(".json"))
  .map((file) => file.slice(0, -5))
  .sort();
const only = option("--only")?.split(",");
if (only !== undefined) ids = ids.filter((id) => only.some((part) => id.includes(part)));
const rows: Row[] = [];
const wanted = option("--type")?.split(",");
const dump = option("--dump");
if (dump !== undefined) mkdirSync(dump, { recursive: true });
for (const id of ids) {
  if (option("--limit") !== undefined && rows.length >= Number(option("--limit"))) break;
  const truth = JSON.parse(readFileSync(join(split, "ground-truth", `${id}.json`), "utf8"));
  const stated = truth._internal?.page_type;
  const type = (typeof stated === "string" ? stated : (stated?.primary ?? "article")).replace(
    "category",
    "collection",
  );
  if (wanted !== undefined && !wanted.includes(type)) continue;
  const html = gunzipSync(readFileSync(join(split, "html", `${id}.html.gz`))).toString("utf8");
  const main = truth.ground_truth?.main_content ?? "";
  const read = await score(id, html, main);
  const row: Row = { id, truth: type, decided: read.type, strategy: read.strategy, f1: read.f1 };
  if (force && read.type !== type) {
    forced.__wcxbType = type;
    row.asTruth = (await score(id, html, main)).f1;
    forced.__wcxbType = undefined;
  }
  rows.push(row);
  if (rows.length % 100 === 0) process.stderr.write(`${rows.length} pages\n`);
}

const TYPES = ["article", "documentation", "forum", "service", "product", "collection", "listing"];
const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length);
console.log(`WCXB dev, in-process, ${rows.length} pages; cell: pages F1 [F1 read as the truth's type]`);
console.log(`| truth \\ typed | n | F1 | ${TYPES.join(" | ")} |`);
console.log(`|---|---|---|${TYPES.map(() => "---").join("|")}|`);
for (const truth of TYPES) {
  const own = rows.filter((row) => row.truth === truth);
  if (own.length === 0) continue;
  const cells = TYPES.map((decided) => {
    const cell = own.filter((row) => row.decided === decided);
    if (cell.length === 0) return "";
    const asTruth = cell.filter((row) => row.asTruth !== undefined);
    const gain =
      asTruth.length === 0 ? "" : ` [${mean(asTruth.map((row) => row.asTruth as number)).toFixed(2)}]`;
    return `${cell.length} ${mean(cell.map((row) => row.f1)).toFixed(2)}${gain}`;
  });
  console.log(
    `| ${truth} | ${own.length} | ${mean(own.map((row) => row.f1)).toFixed(3)} | ${cells.join(" | ")} |`,
  );
}
// What each confusion costs: its pages' F1 below their row's right-typed mean, or below their
// reading as the right type, in points of the row's mean.
console.log(
  "\nconfusions by cost to their row's mean (points of F1, from reading them as the truth's type):",
);
const costs: Array<[string, number, number]> = [];
for (const truth of TYPES) {
  const own = rows.filter((row) => row.truth === truth);
  for (const decided of TYPES) {
    if (decided === truth) continue;
    const cell = own.filter((row) => row.decided === decided && row.asTruth !== undefined);
    if (cell.length === 0) continue;
    const gain = cell.reduce((s, row) => s + (row.asTruth as number) - row.f1, 0) / own.length;
    costs.push([`${truth}>${decided}`, cell.length, gain]);
  }
}
for (const [cell, n, gain] of costs.sort((a, b) => b[2] - a[2])) {
  console.log(`${cell}: ${n} pages, ${gain >= 0 ? "+" : ""}${gain.toFixed(3)}`);
}
const cell = option("--pages");
if (cell !== undefined) {
  const [truth, decided] = cell.split(">");
  console.log(`\n${cell}:`);
  for (const row of rows
    .filter((r) => r.truth === truth && r.decided === decided)
    .sort((a, b) => a.f1 - b.f1)) {
    console.log(
      `${row.id} ${row.strategy} F1 ${row.f1.toFixed(3)}${row.asTruth === undefined ? "" : ` as ${truth} ${row.asTruth.toFixed(3)}`}`,
    );
  }
}
const json = option("--json");
if (json !== undefined) writeFileSync(json, JSON.stringify({ rows }, null, 1));
