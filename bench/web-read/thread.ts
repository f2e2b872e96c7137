/**
 * What the reader's thread costs the pages that go to it: every page of the web-read-eval set
 * that the `direct` reader sends to a thread (1 MiB or more, or WEB_READ_THREAD_MIN_ELEMENTS
 * tag-like tokens) read one after another through the built reader as the server reads it
 * (`readBody`: decode, then the thread), and the same page read on the calling thread (`readHtml`,
 * warm), in turn, in one run. Then one page of about 4,600 elements (`--page`) read three times
 * in a row through the thread, first with no thread running.
 *
 *   npm run build && npx tsx bench/web-read/thread.ts [--dist DIR] [--limit N] [--page FILE]
 *
 * `--dist` names another build (e.g. main's, for a before/after in one session). Times are wall
 * and the process's CPU (which counts the thread's CPU too), medians over the pages.
 */

import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { evalDir, loadEval, pageBytes } from "./eval-set.js";

const option = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const dist = resolve(option("--dist") ?? "dist");
const limit = Number(option("--limit") ?? Number.POSITIVE_INFINITY);
const single = option("--page") ?? "livenet.ch-sprache.html";

type Reader = typeof import("../../src/web/providers/direct/provider.js");
type Html = typeof import("../../src/web/providers/direct/html.js");
type Thread = typeof import("../../src/web/providers/direct/reader-thread.js");
const load = async <T>(path: string): Promise<T> =>
  (await import(pathToFileURL(`${dist}/web/providers/direct/${path}`).href)) as T;
const { readBody } = await load<Reader>("provider.js");
const { readHtml } = await load<Html>("html.js");
// readerThreads is not in every build (not before threads were kept).
const { heavyHtml, readerThreads } = (await load<Thread>("reader-thread.js")) as Partial<Thread> &
  Pick<Thread, "heavyHtml">;

const dir = evalDir();
const { items, scorer } = await loadEval(dir);
const live = new AbortController().signal;

async function timed(work: () => Promise<unknown>): Promise<{ ms: number; cpuMs: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  await work();
  const { user, system } = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (user + system) / 1000 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

// The 4,600-element page first, while no thread has run in this process.
const page = items.find((item) => item.file === single);
if (page === undefined) throw new Error(`no page ${single} in ${dir}`);
const bytes = pageBytes(dir, page.file);
const type = `text/html; charset=${scorer.declaredCharset(bytes)}`;
const html = new TextDecoder(scorer.declaredCharset(bytes)).decode(bytes);
const rounds: string[] = [];
for (let i = 0; i < 3; i++) {
  const { ms, cpuMs } = await timed(() => readBody("direct", bytes, type, "http://127.0.0.1/", live));
  rounds.push(`${ms.toFixed(0)} ms (CPU ${cpuMs.toFixed(0)})`);
}
for (let i = 0; i < 3; i++) await readHtml(html, "http://127.0.0.1/");
const here = await timed(() => readHtml(html, "http://127.0.0.1/"));

const onThread = { ms: [] as number[], cpuMs: [] as number[] };
const onCaller = { ms: [] as number[], cpuMs: [] as number[] };
let pages = 0;
for (const item of items) {
  if (pages >= limit) break;
  const body = pageBytes(dir, item.file);
  const charset = scorer.declaredCharset(body);
  const text = new TextDecoder(charset).decode(body);
  if (!heavyHtml(text)) continue;
  pages++;
  const url = `http://127.0.0.1/${encodeURIComponent(item.file)}`;
  const thread = await timed(() => readBody("direct", body, `text/html; charset=${charset}`, url, live));
  const caller = await timed(() => readHtml(text, url));
  onThread.ms.push(thread.ms);
  onThread.cpuMs.push(thread.cpuMs);
  onCaller.ms.push(caller.ms);
  onCaller.cpuMs.push(caller.cpuMs);
}

const started = readerThreads === undefined ? "" : `, ${readerThreads().started} threads started`;
console.log(`reader thread bench: build ${dist}, ${pages} pages of ${dir} that go to a thread${started}`);
console.log(
  `${single} (${html.length} chars), through the thread, three times in a row: ${rounds.join(", ")}; on the calling thread, warm: ${here.ms.toFixed(0)} ms (CPU ${here.cpuMs.toFixed(0)})`,
);
console.log(
  `median per page: through the thread ${median(onThread.ms).toFixed(1)} ms (CPU ${median(onThread.cpuMs).toFixed(1)}), on the calling thread ${median(onCaller.ms).toFixed(1)} ms (CPU ${median(onCaller.cpuMs).toFixed(1)})`,
);
