/**
 * code_search analysis benchmark (not a test). Builds a real repository with history from two
 * npm tarballs of one package, the older committed first and the newer second (a diff of several
 * hundred files), then measures in this one run, each case against its baseline measured
 * alternately with it:
 *   - anyOf of 8, 16 and 64 terms against one raw `rg -F -e ... -e ...` (same files: hidden
 *     included, case-sensitive);
 *   - a search scoped to changes (changed lines, and whole files) against `git diff --name-only`
 *     followed by `rg` over the changed files: the working tree against HEAD (the newer version
 *     copied over the older, uncommitted), and two commits;
 *   - impact of a widely used symbol (webpack's Compilation class): the first page's time and
 *     size against the 16 KiB bound, and a walk of every page by cursor, checking that each
 *     occurrence ripgrep counts is reachable (raw `rg --count-matches` for scale).
 * Ratios are code_search's median over the baseline's median. code_search runs in a process of
 * its own (host.mjs, the built dist/), as an SDK user runs it, warm (its caches filled by the
 * untimed rounds); the baselines run in another, so neither pays for the other's memory when it
 * starts a child.
 *
 * Usage: npm run build && node --import tsx bench/analysis/bench.ts [--runs N] [--warmup N]
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { rgPath } from "@vscode/ripgrep";
import { alternation } from "../../src/code/analysis/terms.js";
import type { CodeSearchInput } from "../../src/code/schema.js";
import { ANYOF_CONCURRENT_GROUPS, ANYOF_GROUP_TERMS, DETAIL_PAGE_MAX_BYTES } from "../../src/core/limits.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const corpora = join(repo, "bench/.corpora/analysis");
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const runs = Number(arg("--runs", "9"));
const warmup = Number(arg("--warmup", "3"));

const PACKAGE = "webpack";
const OLDER = "5.90.0";
const NEWER = "5.97.1";
const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@example.invalid",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@example.invalid",
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8", maxBuffer: 1 << 28 });
}

/** `npm pack`s a version once and unpacks it; returns the package directory. */
function unpacked(version: string): string {
  const dir = join(corpora, `${PACKAGE}-${version}`);
  if (existsSync(join(dir, "package"))) return join(dir, "package");
  mkdirSync(dir, { recursive: true });
  const file = execFileSync("npm", ["pack", `${PACKAGE}@${version}`, "--silent"], {
    cwd: dir,
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .pop() as string;
  execFileSync("tar", ["xzf", file], { cwd: dir });
  return join(dir, "package");
}

function replaceTree(root: string, from: string): void {
  for (const entry of readdirSync(root)) {
    if (entry !== ".git") rmSync(join(root, entry), { recursive: true, force: true });
  }
  cpSync(from, root, { recursive: true });
}

/** Two repositories: `commits` (older, then newer, committed) and `worktree` (newer uncommitted). */
function prepare(): { commits: string; worktree: string } {
  const older = unpacked(OLDER);
  const newer = unpacked(NEWER);
  const commits = join(corpora, "repo-commits");
  const worktree = join(corpora, "repo-worktree");
  for (const [root, commitNewer] of [
    [commits, true],
    [worktree, false],
  ] as const) {
    if (existsSync(join(root, ".git"))) continue;
    mkdirSync(root, { recursive: true });
    git(root, "init", "-q", "-b", "main");
    replaceTree(root, older);
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", `${PACKAGE} ${OLDER}`);
    replaceTree(root, newer);
    if (commitNewer) {
      git(root, "add", "-A");
      git(root, "commit", "-q", "-m", `${PACKAGE} ${NEWER}`);
    }
  }
  // As any porcelain command would: the index's file metadata caught up with the copied tree,
  // so only files whose content changed differ from it (an agent's worktree looks like this).
  git(worktree, "status", "--porcelain");
  return { commits, worktree };
}

interface Answer {
  readonly ms: number;
  /** CPU time of the measuring process and of the children it reaped meanwhile (host.mjs). */
  readonly cpuMs: number;
  readonly error?: string;
  readonly [key: string]: unknown;
}

/** A measuring process (host.mjs), one request at a time. */
class Host {
  readonly #child: ChildProcess;
  readonly #lines: AsyncIterator<string>;

  constructor(mode: "base" | "sdk") {
    this.#child = spawn(process.execPath, [join(repo, "bench/analysis/host.mjs"), mode], {
      env: GIT_ENV,
      stdio: ["pipe", "pipe", "inherit"],
    });
    this.#lines = createInterface({ input: this.#child.stdout as NodeJS.ReadableStream })[
      Symbol.asyncIterator
    ]();
  }

  async ask(request: unknown): Promise<Answer> {
    this.#child.stdin?.write(`${JSON.stringify(request)}\n`);
    const line = await this.#lines.next();
    if (line.done) throw new Error("a measuring process ended");
    const answer = JSON.parse(line.value) as Answer;
    if (answer.error !== undefined) throw new Error(answer.error);
    return answer;
  }

  close(): void {
    this.#child.stdin?.end();
  }
}

/** The 1, 5 and 15 minute load averages (the machine is shared: figures depend on them). */
function loadAverage(): string {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

interface Row {
  readonly label: string;
  readonly ours: number;
  readonly base: number;
  readonly oursCpu: number;
  readonly baseCpu: number;
  readonly note: string;
}

async function compare(
  label: string,
  ours: () => Promise<Answer>,
  base: () => Promise<Answer>,
  note: (answer: Answer) => string,
): Promise<Row> {
  let last: Answer | undefined;
  for (let i = 0; i < warmup; i++) {
    last = await ours();
    await base();
  }
  const a: Answer[] = [];
  const b: Answer[] = [];
  for (let i = 0; i < runs; i++) {
    // Alternating, so drift on a shared machine falls on both.
    if (i % 2 === 0) {
      last = await ours();
      a.push(last);
      b.push(await base());
    } else {
      b.push(await base());
      last = await ours();
      a.push(last);
    }
  }
  return {
    label,
    ours: median(a.map((x) => x.ms)),
    base: median(b.map((x) => x.ms)),
    // Means: children's CPU comes in 10 ms ticks.
    oursCpu: mean(a.map((x) => x.cpuMs)),
    baseCpu: mean(b.map((x) => x.cpuMs)),
    note: note(last as Answer),
  };
}

async function main(): Promise<void> {
  if (!existsSync(join(repo, "dist/code/service.js"))) throw new Error("run `npm run build` first");
  const { commits, worktree } = prepare();
  const changedCommits = git(commits, "diff", "--name-only", "HEAD~1", "HEAD").split("\n").filter(Boolean);
  const changedWorktree = git(worktree, "diff", "--name-only", "HEAD").split("\n").filter(Boolean);
  const terms = [
    ...readFileSync(join(commits, "lib/index.js"), "utf8").matchAll(/get ([A-Z][A-Za-z]+)\(\)/g),
  ].map((m) => m[1] as string);
  console.log(
    `corpus: ${PACKAGE} ${OLDER} -> ${NEWER}; ${changedCommits.length} files changed between the commits, ` +
      `${changedWorktree.length} in the working tree; ${runs} timed runs after ${warmup} untimed rounds; ` +
      `load average at the start: ${loadAverage()}`,
  );
  // A fresh code_search process per section: results kept for their cursors (anyOf's many
  // items) grow a process, and a larger process starts its children more slowly.
  let sdk = new Host("sdk");
  const fresh = () => {
    sdk.close();
    sdk = new Host("sdk");
  };
  const base = new Host("base");
  const ask = (cwd: string, input: CodeSearchInput, walk = false) => sdk.ask({ cwd, input, walk });
  const rows: Row[] = [];

  for (const n of [8, 16, 64]) {
    fresh();
    const chosen = terms.slice(0, n);
    if (chosen.length < n) throw new Error(`only ${terms.length} terms in lib/index.js`);
    const raw = () =>
      base.ask({
        steps: [
          {
            command: rgPath,
            args: ["-F", "-n", "--hidden", "-s", ...chosen.flatMap((t) => ["-e", t]), "."],
            cwd: commits,
          },
        ],
      });
    rows.push(
      await compare(
        `anyOf ${n} terms vs rg -F -e ... (${n} patterns)`,
        () => ask(commits, { anyOf: chosen, ignoreCase: false }),
        raw,
        (r) => `${r.totalItems} occurrences, first page ${r.bytes} B`,
      ),
    );
    // What the contract alone costs: the candidate scans an anyOf of n terms runs (one per
    // group of at most eight terms, as many at once as code_search runs them), as bare
    // ripgrep processes whose output is read and discarded.
    const groups: string[] = [];
    for (let t = 0; t < n; t += ANYOF_GROUP_TERMS)
      groups.push(alternation(chosen.slice(t, t + ANYOF_GROUP_TERMS)));
    rows.push(
      await compare(
        `  its ${groups.length} candidate scan${groups.length === 1 ? "" : "s"} as bare rg --json (at most ${ANYOF_CONCURRENT_GROUPS} at once) vs rg -F -e ...`,
        () =>
          base.ask({
            concurrency: ANYOF_CONCURRENT_GROUPS,
            steps: groups.map((pattern) => ({
              command: rgPath,
              args: ["--json", "--no-config", "--case-sensitive", "--hidden", "--", pattern, "."],
              cwd: commits,
            })),
          }),
        raw,
        (r) =>
          `floor set by the groups of ${ANYOF_GROUP_TERMS}: no decoding, no per-term search (${r.bytes} B read)`,
      ),
    );
  }

  fresh();
  const pattern = "RuntimeGlobals";
  for (const [label, cwd, changes, range] of [
    ["working tree vs HEAD", worktree, "worktree", ["HEAD"]],
    ["HEAD~1..HEAD", commits, "HEAD~1..HEAD", ["HEAD~1", "HEAD"]],
  ] as const) {
    for (const changeScope of ["lines", "files"] as const) {
      rows.push(
        await compare(
          `changes ${label}, ${changeScope} vs git diff --name-only + rg`,
          () => ask(cwd, { pattern, ignoreCase: false, changes, changeScope, mode: "summary" }),
          () =>
            base.ask({
              steps: [
                { command: "git", args: ["diff", "--name-only", ...range], cwd },
                // Deleted files drop out: rg is given what exists.
                {
                  command: rgPath,
                  args: ["-n", "--hidden", "-s", "--", pattern],
                  cwd,
                  filesFromPrevious: true,
                },
              ],
            }),
          (r) => `${r.totalMatches} lines in ${r.totalFiles} files of ${r.filesChanged} changed`,
        ),
      );
    }
  }

  fresh();
  // Impact of a widely used class: the first page, then every page by cursor.
  const impactInput: CodeSearchInput = { impact: true, path: "lib/Compilation.js", symbol: "Compilation" };
  const count = () =>
    base.ask({
      steps: [
        {
          command: rgPath,
          args: ["-F", "-w", "-s", "--hidden", "--count-matches", "--", "Compilation", "."],
          cwd: commits,
          keep: true,
        },
      ],
    });
  const counted = await count();
  const expected = String(counted.output)
    .split("\n")
    .filter(Boolean)
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(":") + 1)), 0);
  const impact = await compare(
    "impact of class Compilation, first page vs rg -F -w --count-matches",
    () => ask(commits, impactInput, true),
    count,
    (r) =>
      `first page ${r.bytes} B; every page by cursor: ${r.pages} pages in ${Number(r.walkMs).toFixed(1)} ms, ` +
      `${r.occurrences} occurrences (ripgrep counts ${expected}${r.occurrences === expected ? ", all reachable" : ", SOME MISSING"}), ` +
      `${r.tests} related test files`,
  );
  rows.push(impact);
  sdk.close();
  base.close();

  console.log(`\nload average at the end: ${loadAverage()}`);
  console.log(
    "\n| case | code_search (ms) | baseline (ms) | ratio | code_search CPU (ms) | baseline CPU (ms) | CPU ratio | result |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---|");
  for (const row of rows) {
    console.log(
      `| ${row.label} | ${row.ours.toFixed(1)} | ${row.base.toFixed(1)} | ${(row.ours / row.base).toFixed(2)}x | ` +
        `${row.oursCpu.toFixed(0)} | ${row.baseCpu.toFixed(0)} | ${(row.oursCpu / row.baseCpu).toFixed(2)}x | ${row.note} |`,
    );
  }
  const largest = Math.max(...rows.map((r) => Number(/(?:first page )(\d+) B/.exec(r.note)?.[1] ?? 0)));
  console.log(`\nlargest first page: ${largest} B (bound ${DETAIL_PAGE_MAX_BYTES} B)`);
}

await main();
