/**
 * The development set of web-read-eval (../shared/web-read-eval, trafilatura's benchmark made to
 * run with Node), read in-process: each page is decoded as the shared scorer's server serves it
 * (`text/html; charset=` what the page declares) and given to the `direct` reader's body step,
 * then scored with the shared scorer's own functions (Markdown reduction, snippet counting).
 * No CLI process per page: a full pass takes about a minute instead of twenty.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";
import type { ProviderReadOutcome } from "../../src/web/provider.js";
import { readBody } from "../../src/web/providers/direct/provider.js";

export interface EvalItem {
  readonly file: string;
  readonly url: string;
  readonly with: readonly string[];
  readonly without: readonly string[];
}

export interface Scorer {
  markdownToText(markdown: string): string;
  countItem(
    item: EvalItem,
    text: string | null,
  ): { tp: number; fp: number; fn: number; tn: number; missed: string[]; unwanted: string[] };
  scores(counts: { tp: number; fp: number; fn: number; tn: number }): {
    precision: number;
    recall: number;
    accuracy: number;
    f1: number;
  };
  declaredCharset(bytes: Buffer): string;
}

export interface PageResult {
  readonly file: string;
  readonly tp: number;
  readonly fp: number;
  readonly fn: number;
  readonly tn: number;
  readonly missed: string[];
  readonly unwanted: string[];
  readonly ms: number;
  readonly failed?: string;
  readonly markdown: string;
}

/**
 * Where the set lives: EVIDENT_WEB_READ_EVAL, else `shared/web-read-eval` beside the project
 * (a clone's parent, or a worktree's grandparent).
 */
export function evalDir(): string {
  if (process.env.EVIDENT_WEB_READ_EVAL) return resolve(process.env.EVIDENT_WEB_READ_EVAL);
  const near = join(process.cwd(), "..", "shared", "web-read-eval");
  const far = join(process.cwd(), "..", "..", "shared", "web-read-eval");
  return existsSync(near) || !existsSync(far) ? resolve(near) : resolve(far);
}

export async function loadEval(dir = evalDir()): Promise<{ items: EvalItem[]; scorer: Scorer }> {
  if (!existsSync(join(dir, "evaldata.json"))) {
    throw new Error(`no web-read-eval set at ${dir} (set EVIDENT_WEB_READ_EVAL)`);
  }
  const items = JSON.parse(readFileSync(join(dir, "evaldata.json"), "utf8")) as EvalItem[];
  const scorer = (await import(pathToFileURL(join(dir, "score.mjs")).href)) as Scorer;
  return { items, scorer };
}

/**
 * The set as a timed run takes it: its first `--limit N` pages (all without it), after 30 reads
 * nothing times, so the modules are loaded and the JIT has settled.
 */
export async function warmedEval(
  argv: readonly string[],
): Promise<{ dir: string; all: EvalItem[]; items: EvalItem[]; scorer: Scorer }> {
  const limitArg = argv.indexOf("--limit");
  const dir = evalDir();
  const { items: all, scorer } = await loadEval(dir);
  const items = limitArg === -1 ? all : all.slice(0, Number(argv[limitArg + 1]));
  for (const item of items.slice(0, 30)) await readPage(dir, item, scorer);
  return { dir, all, items, scorer };
}

export function pageBytes(dir: string, file: string): Buffer {
  const plain = join(dir, "pages", file);
  return existsSync(plain) ? readFileSync(plain) : gunzipSync(readFileSync(`${plain}.gz`));
}

/**
 * Reads one page as the scorer's server would serve it, timing the read alone: wall time, and
 * the process's CPU time (which other processes on a loaded machine inflate far less; it
 * includes the garbage collector's helper threads).
 */
export async function readPage(
  dir: string,
  item: EvalItem,
  scorer: Scorer,
): Promise<{ outcome?: ProviderReadOutcome; ms: number; cpuMs: number; error?: unknown }> {
  const bytes = pageBytes(dir, item.file);
  const contentType = `text/html; charset=${scorer.declaredCharset(bytes)}`;
  const url = `http://127.0.0.1/${encodeURIComponent(item.file)}`;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const spent = () => {
    const { user, system } = process.cpuUsage(cpu);
    return { ms: performance.now() - started, cpuMs: (user + system) / 1000 };
  };
  try {
    const outcome = await readBody("direct", bytes, contentType, url, new AbortController().signal);
    return { outcome, ...spent() };
  } catch (error) {
    return { ...spent(), error };
  }
}

export async function scorePage(dir: string, item: EvalItem, scorer: Scorer): Promise<PageResult> {
  const { outcome, ms, error } = await readPage(dir, item, scorer);
  const markdown =
    outcome === undefined
      ? ""
      : outcome.content
          .filter((part) => part.type === "text")
          .map((part) => (part as { text: string }).text)
          .join("\n\n");
  const counts = scorer.countItem(item, outcome === undefined ? null : scorer.markdownToText(markdown));
  return {
    file: item.file,
    ...counts,
    ms,
    markdown,
    ...(error === undefined ? {} : { failed: String((error as Error)?.message ?? error) }),
  };
}

/** A page of either development set as the reader gets it: its bytes, declared type and URL. */
export interface SetPage {
  readonly id: string;
  readonly bytes: () => Buffer;
  readonly contentType: string;
  readonly url: string;
}

function wcxbPages(): SetPage[] {
  const split = join(process.cwd(), "..", "shared", "wcxb", "dev");
  return readdirSync(join(split, "html"))
    .filter((name) => name.endsWith(".html.gz"))
    .sort()
    .map((name) => ({
      id: `wcxb/${name.slice(0, -8)}`,
      bytes: () => gunzipSync(readFileSync(join(split, "html", name))),
      contentType: "text/html; charset=utf-8",
      url: `http://127.0.0.1/${name.slice(0, -3)}`,
    }));
}

async function evalPages(): Promise<SetPage[]> {
  const dir = evalDir();
  const { items, scorer } = await loadEval(dir);
  return items.map((item) => {
    const bytes = () => pageBytes(dir, item.file);
    return {
      id: `eval/${item.file}`,
      bytes,
      contentType: `text/html; charset=${scorer.declaredCharset(bytes())}`,
      url: `http://127.0.0.1/${encodeURIComponent(item.file)}`,
    };
  });
}

/** The WCXB development split's pages, then web-read-eval's (`set` keeps one), from `skip`, at most `limit`. */
export async function bothSetsPages(opt: {
  set?: string;
  skip?: string;
  limit?: string;
}): Promise<SetPage[]> {
  let pages = [...(opt.set === "eval" ? [] : wcxbPages()), ...(opt.set === "wcxb" ? [] : await evalPages())];
  if (opt.skip !== undefined) pages = pages.slice(Number(opt.skip));
  if (opt.limit !== undefined) pages = pages.slice(0, Number(opt.limit));
  return pages;
}
