/**
 * What the first large page after a quiet spell costs a warm server: the built reader reads 30
 * pages of web-read-eval (as a server that has been answering would have), waits past the kept
 * thread's idle bound, then reads one page through `readBody`, as the server reads it. Wall and
 * CPU time (the thread's included), and how many threads that page started.
 *
 *   npm run build && npx tsx bench/web-read/first-page.ts [--dist DIR] [--page FILE]
 */
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { WEB_READ_THREAD_IDLE_MS } from "../../src/core/limits.js";
import { evalDir, loadEval, pageBytes } from "./eval-set.js";

const option = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const dist = resolve(option("--dist") ?? "dist");
const single = option("--page") ?? "livenet.ch-sprache.html";
const load = async <T>(path: string): Promise<T> =>
  (await import(pathToFileURL(`${dist}/web/providers/direct/${path}`).href)) as T;
const { readBody } = await load<typeof import("../../src/web/providers/direct/provider.js")>("provider.js");
const { readerThreads } =
  await load<typeof import("../../src/web/providers/direct/reader-thread.js")>("reader-thread.js");

const dir = evalDir();
const { items, scorer } = await loadEval(dir);
const live = new AbortController().signal;
const read = (file: string) => {
  const bytes = pageBytes(dir, file);
  const type = `text/html; charset=${scorer.declaredCharset(bytes)}`;
  return readBody("direct", bytes, type, `http://127.0.0.1/${encodeURIComponent(file)}`, live);
};
for (const item of items.slice(0, 30)) await read(item.file);
// Quiet: a thread kept by the warm-up ends.
await sleep(WEB_READ_THREAD_IDLE_MS + 1_000);
const before = readerThreads().started;
const started = performance.now();
const cpu = process.cpuUsage();
await read(single);
const { user, system } = process.cpuUsage(cpu);
console.log(
  `${dist}: ${single} after 30 pages and a quiet spell: ${(performance.now() - started).toFixed(0)} ms (CPU ${((user + system) / 1000).toFixed(0)} ms), threads started ${readerThreads().started - before}`,
);
process.exit(0);
