/**
 * code_search inspection benchmark (not a test). On webpack's published sources (from `npm
 * pack`), a scripted agent does 30+ tasks "find where X is defined and read its body" two ways,
 * and this counts the bytes it receives:
 *   - evident: one code_search with a definition pattern, then one inspection of every match
 *     (`targets`, one batch), following `sourceCursor` until nothing is owed;
 *   - plain: the same pattern with raw `rg -n`, then each file holding the definition, whole.
 * A task is answered when what the agent received holds the definition's complete body: the
 * lines from the definition to its closing brace at the definition's indentation (found here
 * by that indentation rule, independently of the syntax layer under test).
 *
 * It also times, in one service (median of --runs rounds, each on a fresh service so parses
 * are not cached): a search, the 5-target batch inspection after it, and the same inspection
 * again (parses cached); and, for the decision to parse off the main thread, the longest
 * event-loop stall while the corpus's largest JavaScript file is parsed by `parse` (on the
 * calling thread) and by `parseAsync` (on libuv's pool), the tree walk for symbols included.
 *
 * Usage: node --import tsx bench/code-inspect/bench.ts [--runs N]
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Lang, parse, parseAsync, type SgRoot } from "@ast-grep/napi";
import { rgPath } from "@vscode/ripgrep";
import type { CodeSearchInput, CodeSearchOutput } from "../../src/code/schema.js";
import { CodeSearchService } from "../../src/code/service.js";
import { treeFacts } from "../../src/code/syntax/ast-grep.js";
import { silentLogger } from "../../src/core/logger.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const VERSION = "webpack@5.113.0";
const runsArg = process.argv.indexOf("--runs");
const runs = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : 7;

type Kind = "class" | "method" | "function";

/** The tasks: a name and what it is, which decides the definition pattern an agent would grep. */
const TASKS: readonly [string, Kind][] = [
  ["addModuleTree", "method"],
  ["processModuleDependencies", "method"],
  ["handleModuleCreation", "method"],
  ["getChunkModules", "method"],
  ["walkStatement", "method"],
  ["evaluateExpression", "method"],
  ["connectChunkAndModule", "method"],
  ["createChunkAssets", "method"],
  ["summarizeDependencies", "method"],
  ["addChunkInGroup", "method"],
  ["isModuleInChunk", "method"],
  ["getUsedName", "method"],
  ["createSource", "method"],
  ["getModuleRuntimes", "method"],
  ["factorizeModule", "method"],
  ["seal", "method"],
  ["emitAssets", "method"],
  ["watch", "method"],
  ["StackedMap", "class"],
  ["LazySet", "class"],
  ["SortableSet", "class"],
  ["WebpackError", "class"],
  ["ModuleGraphConnection", "class"],
  ["AsyncQueue", "class"],
  ["TupleSet", "class"],
  ["WeakTupleMap", "class"],
  ["normalizeCacheGroups", "function"],
  ["toIdentifier", "method"],
  ["getViolatingMinSizes", "function"],
  ["bufferArraysEqual", "function"],
  ["cachedSetProperty", "function"],
  ["getOrInsert", "function"],
  ["compareIds", "function"],
  ["checkModuleType", "function"],
  ["similarity", "function"],
];

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
function definitionPattern(name: string, kind: Kind): string {
  const n = escapeRegExp(name);
  if (kind === "class") return `^\\s*(module\\.exports\\s*=\\s*)?class ${n}\\b`;
  if (kind === "method") return `^\\s+(static\\s+)?(async\\s+)?\\*?${n}\\s*\\(`;
  return `^(async\\s+)?function\\*?\\s+${n}\\b|^const ${n}\\s*=|^module\\.exports\\.${n}\\s*=`;
}

function prepare(): string {
  const dir = join(repo, "bench/.corpora", VERSION.replace("@", "-"));
  if (!existsSync(join(dir, "package"))) {
    mkdirSync(dir, { recursive: true });
    execFileSync("npm", ["pack", VERSION, "--pack-destination", dir, "--silent"], { stdio: "inherit" });
    const tgz = `${VERSION.replace("@", "-")}.tgz`;
    execFileSync("tar", ["xzf", join(dir, tgz), "-C", dir], { stdio: "inherit" });
  }
  return join(dir, "package");
}

interface Definition {
  readonly path: string;
  readonly line: number;
  /** The definition's text, from its line through its closing brace line. */
  readonly body: string;
}

/** The body by indentation: the first later line that is the definition's indentation plus `}`. */
function groundTruth(corpus: string, path: string, line: number): Definition | undefined {
  const lines = readFileSync(join(corpus, path), "utf8").split("\n");
  const first = lines[line - 1] ?? "";
  const indent = /^\s*/.exec(first)?.[0] ?? "";
  for (let i = line - 1; i < lines.length; i++) {
    if (/^\s*\}[;,)]*\s*$/.test(lines[i] ?? "") && (lines[i] ?? "").startsWith(`${indent}}`)) {
      if (i === line - 1) continue;
      return { path, line, body: `${lines.slice(line - 1, i + 1).join("\n")}\n` };
    }
  }
  return undefined;
}

function rgLines(corpus: string, pattern: string): string {
  try {
    return execFileSync(rgPath, ["-n", "--", pattern, "lib"], {
      cwd: corpus,
      encoding: "utf8",
      maxBuffer: 1 << 28,
    });
  } catch (error) {
    if ((error as { status?: number }).status === 1) return "";
    throw error;
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

async function main(): Promise<void> {
  const corpus = prepare();
  const service = new CodeSearchService({
    cwd: corpus,
    env: { PATH: process.env.PATH },
    logger: silentLogger,
  });
  const ctx = { caller: "bench", signal: new AbortController().signal };
  const rows: string[] = [];
  let ours = 0;
  let plain = 0;
  let answered = 0;
  let used = 0;
  const batch: { path: string; line: number }[] = [];
  for (const [name, kind] of TASKS) {
    const pattern = definitionPattern(name, kind);
    const raw = rgLines(corpus, pattern);
    const hits = raw
      .split("\n")
      .filter(Boolean)
      .map((l) => /^([^:]+):(\d+):/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ path: m[1] as string, line: Number(m[2]) }));
    if (hits.length === 0 || hits.length > 5) {
      rows.push(`| ${name} | ${kind} | skipped: ${hits.length} matches | | | |`);
      continue;
    }
    const truths = hits
      .map((h) => groundTruth(corpus, h.path, h.line))
      .filter((d): d is Definition => d !== undefined);
    used++;
    // evident: the search, then one inspection of every match, then its continuations.
    const search = await service.run({ pattern, path: "lib" } as CodeSearchInput, ctx);
    let bytes = Buffer.byteLength(search.text);
    const shown = (search.data.matches ?? []).map((m) => ({ path: m.path, line: m.line }));
    const targets = shown.length > 0 ? shown : hits;
    const received: Record<string, string[]> = {};
    let answer = await service.run(
      targets.length === 1
        ? { path: (targets[0] as { path: string }).path, line: (targets[0] as { line: number }).line }
        : { targets },
      ctx,
    );
    for (;;) {
      bytes += Buffer.byteLength(answer.text);
      for (const f of (answer.data as CodeSearchOutput).fragments ?? []) {
        const list = received[f.path] ?? [];
        list.push(f.text);
        received[f.path] = list;
      }
      const cursor = answer.data.sourceCursor;
      if (cursor === undefined) break;
      answer = await service.run({ sourceCursor: cursor }, ctx);
    }
    const complete =
      truths.length > 0 && truths.every((t) => (received[t.path] ?? []).join("").includes(t.body));
    if (complete) answered++;
    const files = [...new Set(truths.map((t) => t.path))];
    const plainBytes =
      Buffer.byteLength(raw) + files.reduce((n, f) => n + readFileSync(join(corpus, f)).length, 0);
    ours += bytes;
    plain += plainBytes;
    if (batch.length < 5 && !batch.some((b) => b.path === hits[0]?.path))
      batch.push(hits[0] as { path: string; line: number });
    rows.push(
      `| ${name} | ${kind} | ${hits.length} | ${bytes} | ${plainBytes} | ${(bytes / plainBytes).toFixed(3)}${complete ? "" : " (body incomplete)"} |`,
    );
  }
  await service.close();
  console.log(`corpus: ${VERSION} lib/ (${TASKS.length} tasks, ${used} run)\n`);
  console.log("| task | kind | matches | evident bytes | plain bytes | ratio |");
  console.log("|---|---|---|---|---|---|");
  for (const row of rows) console.log(row);
  console.log(
    `\ntotal: evident ${ours} bytes, plain ${plain} bytes: ${(ours / plain).toFixed(3)}x; ` +
      `${answered} of ${used} tasks answered with the complete body`,
  );

  // Time: a search, then the 5-target batch inspection (cold: a fresh service), then again (warm).
  const searchMs: number[] = [];
  const coldMs: number[] = [];
  const warmMs: number[] = [];
  const [firstTask] = TASKS;
  for (let round = 0; round < runs; round++) {
    const fresh = new CodeSearchService({
      cwd: corpus,
      env: { PATH: process.env.PATH },
      logger: silentLogger,
    });
    await fresh.run({ pattern: "warm-up-never-matches-x9", path: "lib" }, ctx);
    await fresh.idle();
    let t = performance.now();
    await fresh.run({ pattern: definitionPattern(...(firstTask as [string, Kind])), path: "lib" }, ctx);
    searchMs.push(performance.now() - t);
    t = performance.now();
    await fresh.run({ targets: batch }, ctx);
    coldMs.push(performance.now() - t);
    t = performance.now();
    await fresh.run({ targets: batch }, ctx);
    warmMs.push(performance.now() - t);
    await fresh.close();
  }
  const s = median(searchMs);
  console.log(
    `\n5-target batch inspection (${batch.map((b) => `${b.path}:${b.line}`).join(", ")}), median of ${runs}:\n` +
      `  search ${s.toFixed(1)} ms; inspection, parses not cached ${median(coldMs).toFixed(1)} ms (${(median(coldMs) / s).toFixed(2)}x the search); ` +
      `cached ${median(warmMs).toFixed(1)} ms (${(median(warmMs) / s).toFixed(2)}x)`,
  );

  // The main-thread decision: the longest event-loop stall while the largest file is parsed.
  const largest = execFileSync(rgPath, ["--files", "lib"], { cwd: corpus, encoding: "utf8" })
    .split("\n")
    .filter((f) => f.endsWith(".js"))
    .map((f) => ({ f, size: readFileSync(join(corpus, f)).length }))
    .sort((a, b) => b.size - a.size)[0] as { f: string; size: number };
  const text = readFileSync(join(corpus, largest.f), "utf8");
  const napi = await import("@ast-grep/napi");
  const stall = async (work: () => Promise<SgRoot> | SgRoot) => {
    let last = performance.now();
    let worst = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }, 1);
    const start = performance.now();
    const root = await work();
    const parsed = performance.now() - start;
    const walk = performance.now();
    treeFacts(napi, root, "javascript");
    const walked = performance.now() - walk;
    await new Promise((resolve) => setTimeout(resolve, 5));
    clearInterval(ticker);
    return { worst, parsed, walked };
  };
  const sync: number[] = [];
  const async: number[] = [];
  const walks: number[] = [];
  const parses: number[] = [];
  for (let round = 0; round < runs; round++) {
    const a = await stall(() => parse(Lang.JavaScript, text));
    const b = await stall(() => parseAsync(Lang.JavaScript, text));
    sync.push(a.worst);
    async.push(b.worst);
    walks.push(b.walked);
    parses.push(a.parsed);
  }
  console.log(
    `\nlargest file ${largest.f} (${(largest.size / 1e6).toFixed(2)} MB), median of ${runs}: parse ${median(parses).toFixed(0)} ms, ` +
      `symbol walk ${median(walks).toFixed(0)} ms; longest event-loop stall: parse on the calling thread ` +
      `${median(sync).toFixed(0)} ms, parseAsync ${median(async).toFixed(0)} ms (the walk included in both)`,
  );
}

await main();
