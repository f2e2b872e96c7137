/**
 * The `direct` reader measured: quality on the web-read-eval development set, extraction time
 * per page in-process, and memory for a 5 MB page. One command:
 *
 *   npx tsx bench/web-read/bench.ts [--limit N]
 *
 * Quality: every page read in-process and scored with the shared scorer's own functions (see
 * eval-set.ts; `node ../shared/web-read-eval/score.mjs` gives the same counts through the CLI).
 * Time: each page's read (decode, parse, extract, Markdown) after a warm-up pass, median and
 * p90 of wall time and of CPU time, next to the same pages parsed by linkedom alone (the floor
 * every DOM-based reader pays) and next to Readability + Turndown on the same DOM library (the
 * reader evident's is compared with), measured in the same run, page by page in turn. The
 * baseline starts where the reader does, from the page's bytes with the same content type and
 * decoding, then parses with linkedom, runs Readability and gives Turndown Readability's element
 * (Turndown's own HTML parser is another DOM library); the line "as before" is the baseline of
 * earlier runs, from the decoded text, Turndown parsing Readability's HTML string itself.
 * Memory: peak resident memory of a
 * fresh process that reads a 5 MB page, less that of one that loads the same modules and reads
 * a small page.
 */
import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";
import { decodeBody } from "../../src/web/providers/direct/charset.js";
import { pageBytes, readPage, warmedEval } from "./eval-set.js";

const { dir, all, items, scorer } = await warmedEval(process.argv.slice(2));

const totals = { tp: 0, fp: 0, fn: 0, tn: 0 };
const readMs: number[] = [];
const cpuMs: number[] = [];
const parseMs: number[] = [];
const parseCpuMs: number[] = [];
const baselineMs: number[] = [];
const baselineCpuMs: number[] = [];
const beforeMs: number[] = [];
const beforeCpuMs: number[] = [];
const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" });
let failures = 0;
let empty = 0;
for (const item of items) {
  const { outcome, ms, cpuMs: cpu } = await readPage(dir, item, scorer);
  readMs.push(ms);
  cpuMs.push(cpu);
  const markdown =
    outcome?.content
      .map((part) => (part.type === "text" ? part.text : JSON.stringify(part.value)))
      .join("\n\n") ?? null;
  if (outcome === undefined) failures++;
  else if (markdown?.trim() === "") empty++;
  const counts = scorer.countItem(item, markdown === null ? null : scorer.markdownToText(markdown));
  totals.tp += counts.tp;
  totals.fp += counts.fp;
  totals.fn += counts.fn;
  totals.tn += counts.tn;
  const bytes = pageBytes(dir, item.file);
  const contentType = `text/html; charset=${scorer.declaredCharset(bytes)}`;
  const html = decodeBody(bytes, contentType, true).text;
  const started = performance.now();
  const parseCpu = process.cpuUsage();
  parseHTML(html);
  parseMs.push(performance.now() - started);
  const { user, system } = process.cpuUsage(parseCpu);
  parseCpuMs.push((user + system) / 1000);
  const baseline = timed(() => {
    const { document } = parseHTML(decodeBody(bytes, contentType, true).text);
    const article = new Readability(document, { serializer: (element: unknown) => element }).parse();
    if (article?.content) turndown.turndown(article.content as unknown as TurndownService.Node);
  });
  baselineMs.push(baseline.ms);
  baselineCpuMs.push(baseline.cpuMs);
  const before = timed(() => {
    const article = new Readability(parseHTML(html).document).parse();
    turndown.turndown(article?.content ?? "");
  });
  beforeMs.push(before.ms);
  beforeCpuMs.push(before.cpuMs);
}

/** Wall and CPU time of one call; a throw (Turndown on some markup) counts its time too. */
function timed(work: () => void): { ms: number; cpuMs: number } {
  const started = performance.now();
  const cpu = process.cpuUsage();
  try {
    work();
  } catch {}
  const { user, system } = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (user + system) / 1000 };
}
const s = scorer.scores(totals);
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};
console.log(
  `web-read bench: ${items.length} pages of ${dir}${items.length === all.length ? "" : " (SUBSET)"}`,
);
console.log(
  `quality   precision ${s.precision.toFixed(3)}  recall ${s.recall.toFixed(3)}  accuracy ${s.accuracy.toFixed(3)}  F1 ${s.f1.toFixed(3)}`,
);
console.log(
  `          TP ${totals.tp}  FP ${totals.fp}  TN ${totals.tn}  FN ${totals.fn}  failures ${failures}  empty ${empty}`,
);
const [readMedian, readP90, parseMedian, parseP90] = [
  quantile(readMs, 0.5),
  quantile(readMs, 0.9),
  quantile(parseMs, 0.5),
  quantile(parseMs, 0.9),
];
const [readCpuMedian, readCpuP90, parseCpuMedian, parseCpuP90] = [
  quantile(cpuMs, 0.5),
  quantile(cpuMs, 0.9),
  quantile(parseCpuMs, 0.5),
  quantile(parseCpuMs, 0.9),
];
console.log("time      wall time per page, then CPU time of this process (less inflated by other load)");
console.log(
  `          read  median ${readMedian.toFixed(1)} ms  p90 ${readP90.toFixed(1)} ms  CPU median ${readCpuMedian.toFixed(1)} ms  p90 ${readCpuP90.toFixed(1)} ms  (decode, parse, extract, Markdown)`,
);
console.log(
  `          parse median ${parseMedian.toFixed(1)} ms  p90 ${parseP90.toFixed(1)} ms  CPU median ${parseCpuMedian.toFixed(1)} ms  p90 ${parseCpuP90.toFixed(1)} ms  (linkedom alone, same pages)`,
);
console.log(
  `          Readability + Turndown median ${quantile(baselineMs, 0.5).toFixed(1)} ms  p90 ${quantile(baselineMs, 0.9).toFixed(1)} ms  CPU median ${quantile(baselineCpuMs, 0.5).toFixed(1)} ms  p90 ${quantile(baselineCpuMs, 0.9).toFixed(1)} ms  (decode, linkedom, same pages)`,
);
console.log(
  `          as before  median ${quantile(beforeMs, 0.5).toFixed(1)} ms  p90 ${quantile(beforeMs, 0.9).toFixed(1)} ms  CPU median ${quantile(beforeCpuMs, 0.5).toFixed(1)} ms  p90 ${quantile(beforeCpuMs, 0.9).toFixed(1)} ms  (decoded text, Turndown parsing Readability's HTML)`,
);
console.log(
  `          read/Readability + Turndown  CPU median ${(quantile(cpuMs, 0.5) / quantile(baselineCpuMs, 0.5)).toFixed(2)}x  (as before ${(quantile(cpuMs, 0.5) / quantile(beforeCpuMs, 0.5)).toFixed(2)}x)`,
);
console.log(
  `          read/parse  median ${(readMedian / parseMedian).toFixed(2)}x  p90 ${(readP90 / parseP90).toFixed(2)}x  CPU median ${(readCpuMedian / parseCpuMedian).toFixed(2)}x  p90 ${(readCpuP90 / parseCpuP90).toFixed(2)}x`,
);

// Memory: two fresh processes, the same modules, a 5 MB page against a small one.
const child = fileURLToPath(new URL("./memory-child.ts", import.meta.url));
const peak = (bytes: number) =>
  Number(
    execFileSync(process.execPath, ["--import", "tsx", child, String(bytes)], {
      encoding: "utf8",
      env: { ...process.env, EVIDENT_WEB_READ_EVAL: dir },
    }).trim(),
  );
const small = peak(0);
const large = peak(5 * 1024 * 1024);
console.log(
  `memory    5 MB page: peak RSS ${(large / 1024 / 1024).toFixed(0)} MB, ${((large - small) / 1024 / 1024).toFixed(0)} MB above a small page's ${(small / 1024 / 1024).toFixed(0)} MB`,
);
