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
 *   - impact of a widely used symbol: the first page's size against the 16 KiB bound, and a walk
 *     of every page showing each occurrence reachable by cursor (timed, no baseline).
 * Ratios are code_search's median over the baseline's median. The service is warm (its revision
 * cache and ripgrep started ahead), as on a long-lived server.
 *
 * Usage: node --import tsx bench/analysis/bench.ts [--runs N] [--warmup N]
 */
import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { rgPath } from "@vscode/ripgrep";
import type { CodeSearchInput } from "../../src/code/schema.js";
import { type CodeSearchResponse, CodeSearchService } from "../../src/code/service.js";
import { DETAIL_PAGE_MAX_BYTES } from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";

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
  for (const entry of readdirSync(root))
    if (entry !== ".git") rmSync(join(root, entry), { recursive: true, force: true });
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
  return { commits, worktree };
}

/** Runs a command to its end, reading its output; resolves with the output's size. */
function run(command: string, args: readonly string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd, env: GIT_ENV, stdio: ["ignore", "pipe", "ignore"] });
    let bytes = 0;
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      chunks.push(chunk);
    });
    child.once("error", reject);
    child.once("close", () => {
      last = Buffer.concat(chunks);
      resolve(bytes);
    });
  });
}
let last = Buffer.alloc(0);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

interface Row {
  readonly label: string;
  readonly ours: number;
  readonly base: number;
  readonly note: string;
}

async function compare(
  label: string,
  ours: () => Promise<string>,
  base: () => Promise<unknown>,
): Promise<Row> {
  let note = "";
  for (let i = 0; i < warmup; i++) {
    note = await ours();
    await base();
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    // Alternating, so drift on a shared machine falls on both.
    if (i % 2 === 0) {
      a.push(await timed(ours));
      b.push(await timed(base));
    } else {
      b.push(await timed(base));
      a.push(await timed(ours));
    }
  }
  return { label, ours: median(a), base: median(b), note };
}

const context = () => ({ caller: "bench", signal: new AbortController().signal });

async function main(): Promise<void> {
  const { commits, worktree } = prepare();
  const changedCommits = git(commits, "diff", "--name-only", "HEAD~1", "HEAD").split("\n").filter(Boolean);
  const changedWorktree = git(worktree, "diff", "--name-only", "HEAD").split("\n").filter(Boolean);
  const terms = [
    ...readFileSync(join(commits, "lib/index.js"), "utf8").matchAll(/get ([A-Z][A-Za-z]+)\(\)/g),
  ].map((m) => m[1] as string);
  console.log(
    `corpus: ${PACKAGE} ${OLDER} -> ${NEWER}; ${changedCommits.length} files changed between the commits, ` +
      `${changedWorktree.length} in the working tree; ${runs} timed runs after ${warmup} warm-up rounds`,
  );
  const rows: Row[] = [];
  const service = (cwd: string) =>
    new CodeSearchService({ cwd, env: GIT_ENV, logger: silentLogger, prestart: {} });
  const onCommits = service(commits);
  const onWorktree = service(worktree);
  const answer = async (s: CodeSearchService, input: CodeSearchInput): Promise<CodeSearchResponse> =>
    s.run(input, context());

  for (const n of [8, 16, 64]) {
    const chosen = terms.slice(0, n);
    if (chosen.length < n) throw new Error(`only ${terms.length} terms in lib/index.js`);
    rows.push(
      await compare(
        `anyOf ${n} terms vs rg -F -e ... (${n} patterns)`,
        async () => {
          const r = await answer(onCommits, { anyOf: chosen, ignoreCase: false });
          return `${r.data.totalItems} occurrences, first page ${Buffer.byteLength(r.text)} B`;
        },
        () => run(rgPath, ["-F", "-n", "--hidden", "-s", ...chosen.flatMap((t) => ["-e", t]), "."], commits),
      ),
    );
  }

  const pattern = "RuntimeGlobals";
  const baseline = (cwd: string, range: string[]) => async () => {
    await run("git", ["diff", "--name-only", ...range], cwd);
    const files = last
      .toString("utf8")
      .split("\n")
      .filter((f) => f !== "" && existsSync(join(cwd, f)));
    await run(rgPath, ["-n", "--hidden", "-s", "--", pattern, ...files], cwd);
  };
  for (const [label, cwd, changes, range] of [
    ["working tree vs HEAD", worktree, "worktree", ["HEAD"]],
    ["HEAD~1..HEAD", commits, "HEAD~1..HEAD", ["HEAD~1", "HEAD"]],
  ] as const) {
    for (const changeScope of ["lines", "files"] as const) {
      const s = cwd === worktree ? onWorktree : onCommits;
      rows.push(
        await compare(
          `changes ${label}, ${changeScope} vs git diff --name-only + rg`,
          async () => {
            const r = await answer(s, { pattern, ignoreCase: false, changes, changeScope, mode: "summary" });
            return `${r.data.totalMatches} lines in ${r.data.totalFiles} files of ${r.data.changes?.filesChanged} changed`;
          },
          baseline(cwd, [...range]),
        ),
      );
    }
  }

  console.log("\n| case | code_search (ms) | baseline (ms) | ratio | result |");
  console.log("|---|---:|---:|---:|---|");
  for (const row of rows) {
    console.log(
      `| ${row.label} | ${row.ours.toFixed(1)} | ${row.base.toFixed(1)} | ${(row.ours / row.base).toFixed(2)}x | ${row.note} |`,
    );
  }
  if (
    rows.some(
      (r) =>
        r.note.includes("first page") && Number(/page (\d+) B/.exec(r.note)?.[1]) > DETAIL_PAGE_MAX_BYTES,
    )
  ) {
    console.log("a first page exceeded the 16 KiB bound");
  }
  await onCommits.close();
  await onWorktree.close();
}

await main();
