/**
 * Where the `direct` reader's time goes, page by page: the V8 sampling profiler runs while every
 * page of the development set is read in-process, and each sample is charged to the innermost
 * reader step on its stack (decode, parse, metadata, cleanup, Readability, Markdown...): DOM
 * work done for Readability counts as Readability's, the Markdown of the container comparison
 * as the comparison's.
 *
 *   npx tsx bench/web-read/phases.ts [--limit N] [--functions N] [--readability]
 *
 * Nothing in the reader is instrumented: the steps are recognised by their function names.
 * Garbage collection is its own line; samples outside every step (the profiler, this script,
 * reading the set's files) are "other". `--functions N` adds the N functions that spent the most
 * time themselves (not in what they call), with their file and the step they ran for.
 * `--readability` splits Readability's line into its stages (what it redoes of the reader's
 * work: JSON-LD, metadata, scripts, visibility; its serialize of the body and its re-parse of it
 * for a retry; its scoring passes), each with what it calls.
 */
import { Session } from "node:inspector/promises";
import { readPage, warmedEval } from "./eval-set.js";

/** Function name -> step; the innermost match on a sample's stack wins. */
const STEPS = new Map<string, string>(
  Object.entries({
    readHtml: "glue (outcome)",
    htmlOutcome: "glue (outcome)",
    absoluteLinks: "links (absolute, index)",
    linksOf: "links (absolute, index)",
    decodeBody: "decode",
    wellFormed: "wellFormed (shape fix)",
    browserCdata: "shape scan",
    pageShape: "shape scan",
    heavyHtml: "shape scan",
    parseHTML: "parse (linkedom)",
    settleBody: "parse (linkedom)",
    pageType: "page type",
    pageProfile: "page profile (one walk)",
    revealNoscript: "noscript",
    findThread: "forum posts",
    threadRoot: "forum posts",
    extractProduct: "product facts",
    readSections: "sections",
    readCards: "cards",
    cardsReading: "cards",
    widerReading: "wider reading",
    extractBody: "wider reading",
    pageMetadata: "metadata",
    preClean: "cleanup before Readability",
    findContainer: "container (second opinion)",
    findLead: "lead",
    addLead: "lead",
    Readability: "Readability",
    parse: "Readability",
    clean: "cleanup after Readability",
    dropBoilerplateText: "cleanup after Readability",
    preferContainer: "container (second opinion)",
    toMarkdown: "Markdown",
  }),
);

/** Readability's stages, with `--readability`: its function names, innermost wins. */
const READABILITY_STEPS = new Map<string, string>(
  Object.entries({
    _unwrapNoscriptImages: "Readability: noscript images",
    _getJSONLD: "Readability: JSON-LD (again)",
    _removeScripts: "Readability: remove scripts",
    _prepDocument: "Readability: prep document",
    _getArticleMetadata: "Readability: metadata (again)",
    _grabArticle: "Readability: scoring passes",
    _isProbablyVisible: "Readability: visibility",
    _prepArticle: "Readability: clean-up of its choice",
    _postProcessContent: "Readability: post-process (URLs, classes)",
  }),
);
const splitReadability = process.argv.includes("--readability");

interface Node {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

const { dir, items, scorer } = await warmedEval(process.argv.slice(2));

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 200 });
await session.post("Profiler.start");
let readTotal = 0;
for (const item of items) readTotal += (await readPage(dir, item, scorer)).ms;
const { profile } = (await session.post("Profiler.stop")) as {
  profile: { nodes: Node[]; samples: number[]; timeDeltas: number[] };
};
session.disconnect();

// The step of each profile node: its own if it names one, else its parent's.
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const step = new Map<number, string>();
const root = profile.nodes[0] as Node;
const walk = (node: Node, inherited: string | undefined) => {
  let own = isReader(node) ? STEPS.get(node.callFrame.functionName) : undefined;
  if (splitReadability) own = readabilityStage(node, inherited) ?? own;
  // A page parsed again for a second reading is that reading's cost, named as such.
  if (own === "parse (linkedom)" && (inherited === "wider reading" || inherited === "cards"))
    own = `parse again (${inherited})`;
  const current =
    node.callFrame.functionName === "(garbage collector)" ? "garbage collection" : (own ?? inherited);
  step.set(node.id, current ?? "other");
  for (const child of node.children ?? []) walk(byId.get(child) as Node, current);
};
walk(root, undefined);

const spent = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, index) => {
  const ms = (profile.timeDeltas[index] ?? 0) / 1000;
  const name = step.get(id) ?? "other";
  spent.set(name, (spent.get(name) ?? 0) + ms);
  total += ms;
});
console.log(`web-read phases: ${items.length} pages, reads ${readTotal.toFixed(0)} ms in all`);
for (const [name, ms] of [...spent].sort((a, b) => b[1] - a[1])) {
  console.log(
    `${name.padEnd(30)} ${ms.toFixed(0).padStart(7)} ms  ${((100 * ms) / total).toFixed(1).padStart(5)}%`,
  );
}

const functionsArg = process.argv.indexOf("--functions");
if (functionsArg !== -1) {
  const own = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const frame = (byId.get(id) as Node).callFrame;
    const where = frame.url.replace(/^.*\/(node_modules|src)\//, "");
    const name = `${step.get(id) ?? "other"}: ${frame.functionName || "(anonymous)"} ${where}`;
    own.set(name, (own.get(name) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  const top = [...own].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[functionsArg + 1]));
  console.log("functions by own time");
  for (const [name, ms] of top)
    console.log(
      `  ${ms.toFixed(0).padStart(7)} ms  ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${name}`,
    );
}

/** Reader code and the libraries it calls by name (Readability's parse, linkedom's parseHTML). */
function isReader(node: Node): boolean {
  const { functionName, url } = node.callFrame;
  if (!STEPS.has(functionName)) return false;
  if (functionName === "parse") return /readability/i.test(url);
  return /providers\/direct|linkedom|readability/i.test(url);
}

/** Readability's stage a profile node is, with `--readability`: its serialize and re-parse by where they run. */
function readabilityStage(node: Node, inherited: string | undefined): string | undefined {
  const { functionName, url } = node.callFrame;
  if (/inner-html/.test(url) && inherited === "Readability: scoring passes")
    return functionName === "getInnerHtml"
      ? "Readability: serialize body (kept for a retry)"
      : functionName === "setInnerHtml"
        ? "Readability: re-parse for a retry"
        : undefined;
  return /readability/i.test(url) ? READABILITY_STEPS.get(functionName) : undefined;
}
