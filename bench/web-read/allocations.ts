/**
 * What the `direct` reader allocates, by function: V8's sampling heap profiler runs, counting
 * objects the garbage collector has since taken back, while the development set's pages are read
 * in-process; each sampled allocation is charged to the function that made it (linkedom's node
 * constructor, `textContent`, css-select's compiler...) and to the innermost reader function on
 * its stack. Garbage is what the young generation grows for and what the collector's share of
 * the reader's time (`phases.ts`) pays for: this names where it comes from.
 *
 *   npx tsx bench/web-read/allocations.ts [--limit N] [--functions N] [--in PATTERN]
 *
 * `--in css-select|css-what` counts only what functions in matching files allocate (there: the
 * selectors compiled again at each query) and names the reader functions that asked for it.
 * Pages the reader sends to its thread allocate there and are not counted.
 */
import { Session } from "node:inspector/promises";
import { readPage, warmedEval } from "./eval-set.js";

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  id: number;
  children: HeapNode[];
}

const { dir, items, scorer } = await warmedEval(process.argv.slice(2));
const functionsArg = process.argv.indexOf("--functions");
const shown = functionsArg === -1 ? 25 : Number(process.argv[functionsArg + 1]);
const inArg = process.argv.indexOf("--in");
const only = inArg === -1 ? undefined : new RegExp(process.argv[inArg + 1] ?? "", "i");

const session = new Session();
session.connect();
await session.post("HeapProfiler.enable");
await session.post("HeapProfiler.startSampling", {
  samplingInterval: 16 * 1024,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
for (const item of items) await readPage(dir, item, scorer);
const { profile } = (await session.post("HeapProfiler.stopSampling")) as unknown as {
  profile: { head: HeapNode; samples: { size: number; nodeId: number }[] };
};
session.disconnect();

/** Reader functions (ours and Readability's) that name where an allocation was asked for. */
const ours = (node: HeapNode) => /providers\/direct\/|readability/i.test(node.callFrame.url);
const where = (node: HeapNode) =>
  `${node.callFrame.functionName || "(anonymous)"} ${node.callFrame.url.replace(/^.*\/(node_modules|src)\//, "")}:${node.callFrame.lineNumber + 1}`;

const byFunction = new Map<string, number>();
const byCaller = new Map<string, number>();
const nodes = new Map<number, { node: HeapNode; caller: string }>();
const visit = (node: HeapNode, caller: string) => {
  const current = ours(node) ? where(node) : caller;
  nodes.set(node.id, { node, caller: current });
  for (const child of node.children) visit(child, current);
};
visit(profile.head, "(outside the reader)");
let total = 0;
for (const sample of profile.samples) {
  const found = nodes.get(sample.nodeId);
  if (found === undefined || (only !== undefined && !only.test(found.node.callFrame.url))) continue;
  total += sample.size;
  const own = where(found.node);
  byFunction.set(own, (byFunction.get(own) ?? 0) + sample.size);
  byCaller.set(found.caller, (byCaller.get(found.caller) ?? 0) + sample.size);
}
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1).padStart(8);
const share = (bytes: number) => ((100 * bytes) / total).toFixed(1).padStart(5);
console.log(
  `web-read allocations: ${items.length} pages, ${mb(total).trim()} MB sampled (${(total / items.length / 1024 / 1024).toFixed(1)} MB a page)`,
);
console.log("functions by bytes they allocated");
for (const [name, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, shown))
  console.log(`${mb(bytes)} MB ${share(bytes)}%  ${name}`);
console.log("innermost reader function on the stack, by bytes");
for (const [name, bytes] of [...byCaller].sort((a, b) => b[1] - a[1]).slice(0, shown))
  console.log(`${mb(bytes)} MB ${share(bytes)}%  ${name}`);
