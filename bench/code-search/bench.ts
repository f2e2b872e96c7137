/**
 * code_search benchmark (not a test). Prepares corpora from npm / Debian packages only, then for
 * each fixed pattern measures, in this one run:
 *   - median time of a new code_search query (warm, in-process, and over MCP stdio to the built
 *     `evident mcp`) divided by raw `rg --json` on the same corpus, and of a cold one (a fresh
 *     service: no revision cache); with `--before DIR`, also in process, the build of the
 *     checkout DIR (built there first), measured alike: what a change was worth;
 *   - for context, raw ripgrep given exactly the arguments code_search passes (its case flag,
 *     hidden files, the protective globs), which is part of the difference, and raw ripgrep
 *     started with posix_spawn (`host-spawn.py`) rather than from Node, which shows what Node's
 *     own way of starting a child adds to every run on this machine;
 *   - a search after a pause: the scope's enumeration has aged past the revision cache's time
 *     to live (it is redone in the background after the answer, untimed);
 *   - first-response bytes against raw `rg -n` and `rg --json` output bytes;
 *   - time of a cursor page divided by the original search;
 *   - the resident memory of the process holding the in-process service.
 *
 * Raw ripgrep, the in-process service and the MCP server each run in a process of their own
 * (`host.mjs`, `evident mcp`), since starting ripgrep costs time in proportion to the memory of
 * the process that starts it: each subject pays for what it holds, and only for that. Each
 * measurement begins once no thread of those processes runs, so that what one still does after
 * answering does not slow the next.
 *
 * Usage: node --import tsx bench/code-search/bench.ts [--tier quick|large] [--runs N] [--warmup N]
 *        [--cases 1,2,...] (positions in CASES; all by default) [--corpus DIR] [--before DIR]
 *   quick: typescript@5.9.3 from `npm pack` (default)
 *   large: linux-source-6.1 from `apt-get download` (1.5 GB unpacked; optional)
 *   --corpus DIR: search DIR instead (Go's sources: /usr/share/go-1.19/src from golang-1.19-src)
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { rgPath } from "@vscode/ripgrep";
import { resolveSearchTarget } from "../../src/code/path-policy.js";
import { normalizeRequest } from "../../src/code/request.js";
import { buildSearchArgs } from "../../src/code/rg/args.js";
import type { CodeSearchInput, CodeSearchOutput } from "../../src/code/schema.js";
import { REVISION_CACHE_TTL_MS } from "../../src/core/limits.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const corpora = join(repo, "bench/.corpora");
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const tier = arg("--tier", "quick");
const runs = Number(arg("--runs", "7"));
/**
 * Untimed rounds of each case before its timed ones. A server that has run a kind of search only
 * a few times still runs its code unoptimised (V8 optimises what it has seen run often), which
 * is not how a long-lived server answers; it showed as short runs measuring higher ratios than
 * long ones for the first case that renders matching lines.
 */
const warmup = Number(arg("--warmup", "5"));
/** Which cases to run, by their 1-based position in CASES (`--cases 4,5`); all by default. */
const only = arg("--cases", "")
  .split(",")
  .filter(Boolean)
  .map((n) => Number(n) - 1);
const corpusDir = arg("--corpus", "");
const before = arg("--before", "");

interface Case {
  readonly label: string;
  readonly input: CodeSearchInput;
  readonly rgFlags: readonly string[];
  readonly pattern: string;
}

/*
 * Each case is one search said two ways: a raw ripgrep command line and the code_search request
 * that means the same thing. ripgrep is case-sensitive unless told otherwise, so the requests
 * say `ignoreCase: false`; code_search's own default (smart case) gets its own row, against
 * ripgrep's `--smart-case`, because a lowercase pattern then matches more lines, more slowly.
 */
const CASES: readonly Case[] = [
  {
    label: "-w '[A-Z]+_SUSPEND'",
    input: { pattern: "[A-Z]+_SUSPEND", wholeWord: true, ignoreCase: false },
    rgFlags: ["-w"],
    pattern: "[A-Z]+_SUSPEND",
  },
  { label: "TODO", input: { pattern: "TODO", ignoreCase: false }, rgFlags: [], pattern: "TODO" },
  {
    label: "createSourceFile",
    input: { pattern: "createSourceFile", ignoreCase: false },
    rgFlags: [],
    pattern: "createSourceFile",
  },
  {
    label: "-F 'function ' (broad)",
    input: { pattern: "function ", literal: true, ignoreCase: false },
    rgFlags: ["-F"],
    pattern: "function ",
  },
  {
    label: "-S -F 'function ' (broad, smart case)",
    input: { pattern: "function ", literal: true },
    rgFlags: ["-S", "-F"],
    pattern: "function ",
  },
  {
    label: "-F 'func ' (broad)",
    input: { pattern: "func ", literal: true, ignoreCase: false },
    rgFlags: ["-F"],
    pattern: "func ",
  },
];

/** A search of the cases' file scope that matches nothing: it only keeps the scope warm. */
const KEEP_WARM: CodeSearchInput = { pattern: "evident bench keeps this scope warm", literal: true };

/**
 * The keep-warm search said with a case's options, so that the case's search follows one like it,
 * as an agent's searches with the same options and file scope follow each other.
 */
const keepWarmFor = (c: Case): CodeSearchInput => ({ ...c.input, pattern: KEEP_WARM.pattern });

function prepare(): string {
  if (corpusDir !== "") return corpusDir;
  mkdirSync(corpora, { recursive: true });
  if (tier === "quick") {
    const dir = join(corpora, "typescript-5.9.3");
    if (!existsSync(join(dir, "package"))) {
      mkdirSync(dir, { recursive: true });
      execFileSync("npm", ["pack", "typescript@5.9.3", "--pack-destination", dir, "--silent"], {
        stdio: "inherit",
      });
      execFileSync("tar", ["xzf", join(dir, "typescript-5.9.3.tgz"), "-C", dir], { stdio: "inherit" });
    }
    return join(dir, "package");
  }
  const dir = join(corpora, "linux-source-6.1");
  if (!existsSync(join(dir, "tree"))) {
    mkdirSync(join(dir, "tree"), { recursive: true });
    execFileSync("apt-get", ["download", "linux-source-6.1"], { cwd: dir, stdio: "inherit" });
    const deb = readdirSync(dir).find((f) => f.endsWith(".deb"));
    if (deb === undefined) throw new Error("apt-get download produced no .deb");
    execFileSync("dpkg-deb", ["-x", join(dir, deb), join(dir, "deb")], { stdio: "inherit" });
    const tarball = readdirSync(join(dir, "deb/usr/src")).find(
      (f) => f.startsWith("linux-source") && f.includes(".tar"),
    );
    if (tarball === undefined) throw new Error("no linux-source tarball in the package");
    execFileSync("tar", ["xaf", join(dir, "deb/usr/src", tarball), "-C", join(dir, "tree")], {
      stdio: "inherit",
    });
  }
  const [top] = readdirSync(join(dir, "tree"));
  const tree = join(dir, "tree", top as string);
  // Debian's source package ends the top-level .gitignore with "/*" (everything but debian/).
  // Under this repository's git work tree ripgrep would honour it and see no files at all, for
  // raw rg and code_search alike; a kernel checkout has no such rule, so drop it.
  const gitignore = join(tree, ".gitignore");
  const rules = readFileSync(gitignore, "utf8");
  const kept = rules.replace(/^\/\*\n(?:!\/debian\/\n)?/m, "");
  if (kept !== rules) writeFileSync(gitignore, kept);
  return tree;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

/** Every thread of `roots` and of their descendants (the MCP server's ripgreps). */
function threadsOf(roots: readonly number[]): string[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const tree = new Set(roots);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (tree.has(ppid) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  const threads: string[] = [];
  for (const pid of tree) {
    try {
      for (const task of readdirSync(`/proc/${pid}/task`)) threads.push(`/proc/${pid}/task/${task}/stat`);
    } catch {
      // Gone meanwhile.
    }
  }
  return threads;
}

/**
 * Waits until no thread of the measuring processes runs (twice in a row), so that what one
 * subject still does after answering (a server's next ripgrep handed over, a collection) does
 * not slow the next subject's measurement on two CPUs. Returns false if they never settled.
 */
async function settled(roots: readonly number[]): Promise<boolean> {
  const deadline = performance.now() + 2_000;
  let quiet = 0;
  while (performance.now() < deadline) {
    let running = false;
    for (const path of threadsOf(roots)) {
      try {
        const stat = readFileSync(path, "utf8");
        if (stat[stat.lastIndexOf(")") + 2] === "R") running = true;
      } catch {
        // Gone meanwhile.
      }
    }
    quiet = running ? 0 : quiet + 1;
    if (quiet >= 2) return true;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return false;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/**
 * How far a ratio of medians could move by chance on a noisy machine: the 5th and 95th
 * percentiles of `median(num) / median(den)` over rounds resampled with replacement (pairs kept
 * together, as they were measured interleaved). Seeded, so a run's figures can be recomputed.
 */
function ratioInterval(num: readonly number[], den: readonly number[], resamples = 2000): [number, number] {
  let seed = 0x9e3779b9;
  const random = () => {
    // mulberry32
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const ratios: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < num.length; i++) {
      const k = Math.floor(random() * num.length);
      a.push(num[k] as number);
      b.push(den[k] as number);
    }
    ratios.push(median(a) / median(b));
  }
  ratios.sort((x, y) => x - y);
  return [ratios[Math.floor(resamples * 0.05)] as number, ratios[Math.floor(resamples * 0.95)] as number];
}

/** One JSON request per line to a child process, answered by id on its stdout. */
class LineClient {
  #next = 1;
  #buffer = "";
  readonly #pending = new Map<number, (message: Record<string, unknown>) => void>();
  #stopping = false;
  constructor(readonly child: ChildProcess) {
    // A measuring process that dies would leave its pending request unanswered forever: fail.
    child.once("exit", (code, signal) => {
      if (!this.#stopping) {
        console.error(`bench: ${child.spawnargs.join(" ")} exited (code ${code}, signal ${signal})`);
        process.exit(1);
      }
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      this.#buffer += chunk.toString("utf8");
      let newline = this.#buffer.indexOf("\n");
      while (newline >= 0) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        const message = JSON.parse(line) as Record<string, unknown>;
        if (typeof message.id === "number") this.#pending.get(message.id)?.(message);
        newline = this.#buffer.indexOf("\n");
      }
    });
  }
  send(message: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.child.stdin?.write(`${JSON.stringify({ ...message, id })}\n`);
    });
  }
  write(message: Record<string, unknown>): void {
    this.child.stdin?.write(`${JSON.stringify(message)}\n`);
  }
  stop(): Promise<void> {
    this.#stopping = true;
    return new Promise((resolve) => {
      this.child.once("close", () => resolve());
      this.child.stdin?.end();
    });
  }
}

function startChild(args: readonly string[], cwd: string, program = process.execPath): LineClient {
  return new LineClient(spawn(program, [...args], { cwd, stdio: ["pipe", "pipe", "inherit"] }));
}

/** The server as users run it: the built `evident mcp` on plain node, rooted at the corpus. */
async function startMcp(cwd: string): Promise<LineClient> {
  const client = startChild([join(repo, "dist/adapters/cli/main.js"), "mcp"], cwd);
  await client.send({
    jsonrpc: "2.0",
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  });
  client.write({ jsonrpc: "2.0", method: "notifications/initialized" });
  return client;
}

const callTool = (mcp: LineClient, input: CodeSearchInput) =>
  mcp.send({ jsonrpc: "2.0", method: "tools/call", params: { name: "code_search", arguments: input } });

interface SdkAnswer {
  readonly ms: number;
  readonly text: string;
  readonly data: CodeSearchOutput;
  readonly rssMiB: number;
}

const fmt = (n: number, digits = 2) => n.toFixed(digits);

async function main(): Promise<void> {
  const corpus = prepare();
  // The MCP server runs from dist/, which may be older than the sources.
  execFileSync("npm", ["run", "build", "--silent"], { cwd: repo, stdio: "inherit" });
  const files =
    execFileSync(rgPath, ["--files", "."], { cwd: corpus, maxBuffer: 1 << 30 })
      .toString()
      .split("\n").length - 1;
  console.log(
    `corpus: ${corpus} (${files} files searchable), runs per measurement: ${runs} (after ${warmup} untimed)`,
  );
  const host = join(repo, "bench/code-search/host.mjs");
  const rgHost = startChild([host, "rg"], repo);
  const spawnHost = startChild([join(repo, "bench/code-search/host-spawn.py"), rgPath], repo, "python3");
  const sdk = startChild([host, "sdk", corpus], repo);
  if (before !== "") execFileSync("npm", ["run", "build", "--silent"], { cwd: before, stdio: "inherit" });
  const old = before === "" ? undefined : startChild([host, "sdk", corpus, before], repo);
  const mcp = await startMcp(corpus);
  const rawRg = async (cwd: string, args: readonly string[]) =>
    (await rgHost.send({ cwd, args })) as { ms: number; bytes: number };
  const spawnedRg = async (cwd: string, args: readonly string[]) =>
    (await spawnHost.send({ cwd, args })) as { ms: number; bytes: number };
  /** A search in process, and its background work let finish. */
  const search = async (input: CodeSearchInput, host = sdk) => {
    const answer = (await host.send({ op: "search", input })) as unknown as SdkAnswer;
    await host.send({ op: "idle" });
    return answer;
  };
  const subjects = [rgHost, spawnHost, sdk, mcp, ...(old === undefined ? [] : [old])].map(
    (client) => client.child.pid ?? -1,
  );
  /** Measurements that began although a measuring process still ran after 2 s. */
  let unsettled = 0;
  /** An MCP search timed from request to response. */
  const overMcp = (input: CodeSearchInput) => timed(() => callTool(mcp, input));
  // Warm-up: the first call loads modules and resolves ripgrep.
  await rawRg(corpus, ["--json", "--", "warm-up", "."]);
  await spawnedRg(corpus, ["--json", "--", "warm-up", "."]);
  await search(KEEP_WARM);
  if (old !== undefined) await search(KEEP_WARM, old);
  // The server's first search enumerates the scope before searching: about what its background
  // re-enumeration takes later, so it sets how long to let one finish.
  const coldMcp = await overMcp(KEEP_WARM);
  let mcpEnumeratedAt = performance.now();

  const rows: string[][] = [];
  const intervals: string[] = [];
  let rssMiB = 0;
  for (const c of CASES.filter((_, i) => only.length === 0 || only.includes(i))) {
    const rgArgs = ["--json", ...c.rgFlags, "--", c.pattern, "."];
    const request = normalizeRequest(c.input);
    if (request.kind !== "search") throw new Error("a benchmark case must be a new search");
    const target = (await resolveSearchTarget(corpus, request.path)).rg;
    const sameArgs = buildSearchArgs(request.query, target);
    const rgTimes: number[] = [];
    const sameTimes: number[] = [];
    const ourTimes: number[] = [];
    const plainTimes: number[] = [];
    const mcpTimes: number[] = [];
    const coldTimes: number[] = [];
    const staleTimes: number[] = [];
    const spawnTimes: number[] = [];
    let first: SdkAnswer | undefined;
    let jsonBytes = 0;
    for (let i = 0; i < warmup + runs; i++) {
      const keep = i >= warmup;
      // Warm means the file scope's enumeration is fresh (younger than the revision cache's
      // time to live). A search that finds it stale does not wait for a new one, but starts one
      // in the background after answering, and that must not overlap a measurement. So each
      // round starts with an untimed search of the same scope, and any enumeration it starts is
      // let finish: awaited in process; over MCP, given twice the server's first (cold) search.
      const keepWarm = keepWarmFor(c);
      await search(keepWarm);
      if (old !== undefined) await search(keepWarm, old);
      const keepWarmAt = performance.now();
      await overMcp(keepWarm);
      if (keepWarmAt - mcpEnumeratedAt > REVISION_CACHE_TTL_MS) {
        await new Promise((resolve) => setTimeout(resolve, 2 * coldMcp.ms));
        mcpEnumeratedAt = performance.now();
      }
      // Interleaved so that cache state and machine noise hit every side alike.
      // Each measurement starts once every measuring process is quiet.
      const quiet = async () => {
        if (!(await settled(subjects))) unsettled++;
      };
      await quiet();
      const raw = await rawRg(corpus, rgArgs);
      await quiet();
      const same = await rawRg(target.cwd, sameArgs);
      await quiet();
      const spawned = await spawnedRg(corpus, rgArgs);
      await quiet();
      const answer = await search(c.input);
      await quiet();
      const earlier = old === undefined ? undefined : await search(c.input, old);
      await quiet();
      const mcpSearch = await overMcp(c.input);
      if (!keep) continue;
      rgTimes.push(raw.ms);
      jsonBytes = raw.bytes;
      sameTimes.push(same.ms);
      spawnTimes.push(spawned.ms);
      first = answer;
      ourTimes.push(answer.ms);
      if (earlier !== undefined) plainTimes.push(earlier.ms);
      rssMiB = Math.max(rssMiB, answer.rssMiB);
      mcpTimes.push(mcpSearch.ms);
    }
    // Cold: a new service, so the names-only enumeration comes first. In a loop of its own:
    // each leaves a whole service's worth of garbage, which would otherwise be collected during
    // the next round's warm measurements.
    for (let i = 0; i < runs; i++) {
      coldTimes.push(((await sdk.send({ op: "cold", input: c.input })) as { ms: number }).ms);
    }
    for (let i = 0; i < runs; i++) {
      staleTimes.push(((await sdk.send({ op: "stale", input: c.input })) as { ms: number }).ms);
    }
    const plain = await rawRg(corpus, ["-n", ...c.rgFlags, "--", c.pattern, "."]);
    let pageRatio = "n/a";
    if (first?.data.cursor !== undefined) {
      // From a search made now: the stale loop's searches since may have evicted the snapshot
      // behind the warm loop's last cursor (the store is bounded), and a page of it would fail.
      const cursor = (await search(c.input)).data.cursor;
      if (cursor === undefined) throw new Error(`${c.label}: a repeated search returned no cursor`);
      const pageTimes: number[] = [];
      for (let i = 0; i < runs; i++) pageTimes.push((await search({ cursor })).ms);
      pageRatio = fmt(median(pageTimes) / median(ourTimes), 3);
    }
    const [inLow, inHigh] = ratioInterval(ourTimes, rgTimes);
    const [plainLow, plainHigh] =
      old === undefined ? [Number.NaN, Number.NaN] : ratioInterval(plainTimes, rgTimes);
    const [mcpLow, mcpHigh] = ratioInterval(mcpTimes, rgTimes);
    intervals.push(
      `${c.label}: in-process ${fmt(inLow)}-${fmt(inHigh)}, before ${fmt(plainLow)}-${fmt(plainHigh)}, ` +
        `MCP stdio ${fmt(mcpLow)}-${fmt(mcpHigh)}`,
    );
    const firstBytes = Buffer.byteLength(first?.text ?? "");
    const reachable = first?.data.cursor !== undefined || first?.data.view !== "summary";
    rows.push([
      c.label,
      String(first?.data.totalMatches ?? 0) + (first?.data.status === "partial" ? "+" : ""),
      fmt(median(rgTimes), 1),
      fmt(median(sameTimes), 1),
      fmt(median(spawnTimes), 1),
      fmt(median(ourTimes), 1),
      old === undefined ? "n/a" : fmt(median(plainTimes), 1),
      fmt(median(ourTimes) / median(rgTimes)),
      old === undefined ? "n/a" : fmt(median(plainTimes) / median(rgTimes)),
      fmt(median(mcpTimes) / median(rgTimes)),
      fmt(median(mcpTimes) / median(spawnTimes)),
      fmt(median(staleTimes) / median(rgTimes)),
      fmt(median(coldTimes) / median(rgTimes)),
      String(firstBytes),
      String(plain.bytes),
      String(jsonBytes),
      pageRatio,
      `${first?.data.view}${reachable ? "" : " (unreachable!)"}`,
    ]);
  }
  await Promise.all([mcp.stop(), sdk.stop(), rgHost.stop(), spawnHost.stop(), old?.stop()]);
  const header = [
    "pattern",
    "matches",
    "rg --json ms",
    "rg, same flags ms",
    "rg, posix_spawn ms",
    "code_search ms",
    "before ms",
    "in-process / rg",
    "in-process, before / rg",
    "MCP stdio / rg",
    "MCP stdio / rg posix_spawn",
    "after a pause / rg",
    "cold / rg",
    "first response B",
    "rg -n B",
    "rg --json B",
    "page / search",
    "first view",
  ];
  console.log(`| ${header.join(" | ")} |`);
  console.log(`|${header.map(() => "---").join("|")}|`);
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
  console.log(`RSS of the in-process service's process (its snapshots included): ${Math.round(rssMiB)} MiB`);
  console.log(`measurements begun before the measuring processes were quiet (2 s at most): ${unsettled}`);
  console.log("90% intervals of the warm ratios to rg --json (rounds resampled with replacement):");
  for (const line of intervals) console.log(`  ${line}`);
}

await main();
