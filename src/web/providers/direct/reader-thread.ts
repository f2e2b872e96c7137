/**
 * PDFs and large HTML pages are read on a thread of their own (reader-worker.ts). Reading is
 * synchronous work in proportion to the page: on the calling thread every other call of the
 * server waits for it, and no cancel or deadline can act until it ends; a page near the body
 * cap, or a small PDF whose compressed content inflates a thousandfold, held a whole server up
 * and took gigabytes (bench/web-read/RESULTS.md). On a thread the server keeps answering, a
 * cancel or the deadline terminates the read at once, and the memory goes back when the thread
 * ends. Its memory is bounded: V8 caps the thread's heap; the thread checks its own buffers,
 * which the cap does not see (decoded PDF streams); and the process's resident set is watched
 * from here, with room for the thread's own start, for reading that runs too long to let the
 * thread check. Beyond any, the page is `too_large`. The process's growth alone would not do: the C allocator keeps what an ended
 * thread freed and hands it to the next, so the growth each thread is allowed would pile up.
 * At most WEB_READ_THREADS pages are read this way at once; the rest wait their turn, and one
 * cancelled while it waits starts nothing.
 *
 * A thread that answered is kept for the next page: its start (a fresh runtime loading the
 * reader, whose code then runs cold) cost a page more than its reading, so a burst of pages pays
 * it once. A kept thread holds no slot and does not keep the process alive; it ends once idle for
 * the operator's idle time (WEB_READ_THREAD_IDLE_MS by default; 0 keeps none), after WEB_READ_THREAD_PAGES pages (whatever a library keeps between
 * pages lives no longer), or at once when its heap and buffers hold more than
 * WEB_READ_THREAD_KEEP_MB after a page, so a huge page's memory still goes back with its thread.
 * A read that is stopped (cancel, deadline, memory) ends its thread, as before.
 *
 * Other HTML pages are read on the calling thread, unless a thread is kept and idle: a thread's
 * start would cost them more than their reading does. What a page costs to read follows the
 * number of its elements more than its size (scripts and styles are long and cheap), so a page
 * goes to a thread by either; what is counted is every token the parser acts on, not only start
 * tags.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { abortReason } from "../../../core/abort.js";
import { type ErrorCode, type ErrorDetails, EvidentError } from "../../../core/errors.js";
import {
  WEB_READ_MEMORY_CHECK_MS,
  WEB_READ_MEMORY_MB,
  WEB_READ_THREAD_IDLE_MS,
  WEB_READ_THREAD_KEEP_MB,
  WEB_READ_THREAD_MIN_CHARS,
  WEB_READ_THREAD_MIN_ELEMENTS,
  WEB_READ_THREAD_PAGES,
  WEB_READ_THREAD_START_MB,
  WEB_READ_THREAD_YOUNG_MB,
  WEB_READ_THREADS,
} from "../../../core/limits.js";
import { Slots } from "../../../core/slots.js";
import { ProviderError, type ProviderReadOutcome } from "../../provider.js";
import { readHtml } from "./html.js";
import { readPdf } from "./pdf.js";

/** What a thread is given to read. */
export type ThreadPage =
  | { readonly kind: "html"; readonly html: string; readonly pageUrl: string }
  | { readonly kind: "pdf"; readonly body: Uint8Array };

/** Reads a page where it is called: on its thread, or here when there is no thread module. */
export function readPage(page: ThreadPage, id: string, signal: AbortSignal): Promise<ProviderReadOutcome> {
  return page.kind === "html" ? readHtml(page.html, page.pageUrl) : readPdf(page.body, id, signal);
}

/** What it answers: the outcome, or a failure as data. */
export type ThreadReply =
  | { readonly outcome: ProviderReadOutcome }
  | { readonly tooLarge: true }
  | {
      readonly providerFailure: {
        readonly kind: ProviderError["kind"];
        readonly reason: string;
        readonly status?: number;
      };
    }
  | {
      readonly evidentFailure: {
        readonly code: ErrorCode;
        readonly message: string;
        readonly details: ErrorDetails;
      };
    };

/** A page sent to a thread: what to read, and the reader's id for its messages. */
export interface ThreadRequest {
  readonly page: ThreadPage;
  readonly id: string;
}

/** What a thread posts after a page: its reply, and what its heap and buffers then hold. */
export interface ThreadAnswer {
  readonly reply: ThreadReply;
  readonly heldBytes: number;
}

/**
 * What an operator sets of the threads: the memory a page may take on one
 * (EVIDENT_WEB_READ_MEMORY_MB), and how long one that answered is kept idle
 * (EVIDENT_WEB_READ_THREAD_IDLE_MS; 0 ends it with its page).
 */
export interface ReaderLimits {
  readonly memoryMb: number;
  readonly idleMs: number;
}

export const READER_DEFAULTS: ReaderLimits = Object.freeze({
  memoryMb: WEB_READ_MEMORY_MB,
  idleMs: WEB_READ_THREAD_IDLE_MS,
});

/** A reader thread, with what it has read. */
interface Reader {
  readonly worker: Worker;
  readonly memoryMb: number;
  /** The idle time of the read it last took. */
  idleMs: number;
  pages: number;
  exited: boolean;
  /** Set while the thread is kept, idle: its end once idle too long. */
  idleTimer?: NodeJS.Timeout;
}

const threads = new Slots(WEB_READ_THREADS);
/** Kept threads waiting for a page. Each gave its slot back; the read that takes one holds one. */
const idle: Reader[] = [];
let started = 0;
let pagesAnswered = 0;

/**
 * Whether a thread of this memory is kept, idle: then a page under the thresholds is read there
 * too. Its reading costs the same there, and its garbage goes with the thread instead of growing
 * the calling thread's heap, which keeps it.
 */
export function readerKept(limits: ReaderLimits): boolean {
  return idle.some((reader) => reader.memoryMb === limits.memoryMb);
}

/** Reader threads this module has started, and pages they have answered (for tests and benches). */
export function readerThreads(): { readonly started: number; readonly pages: number } {
  return { started, pages: pagesAnswered };
}

// Built, the thread's module sits next to this one. Run from source (tsx), there is none: Node 20
// does not apply tsx's hooks inside a thread, so pages are read on the calling thread (as also
// when a bundler inlined this module and left the thread's file behind).
const entry = new URL("./reader-worker.js", import.meta.url);
const threadModule = existsSync(fileURLToPath(entry));

/**
 * An HTML page worth a thread: long, or with many tag-like tokens (`<` then a letter, `/`, `!` or
 * `?`). Each is a step of the parser, end tags included: a stray `</p>` makes a paragraph and
 * `</br>` a line break, so a page of them builds as many elements as one of start tags.
 */
export function heavyHtml(html: string): boolean {
  if (html.length >= WEB_READ_THREAD_MIN_CHARS) return true;
  let tokens = 0;
  for (let at = html.indexOf("<"); at >= 0; at = html.indexOf("<", at + 1)) {
    const next = html.charCodeAt(at + 1);
    const letter = (next | 0x20) >= 0x61 && (next | 0x20) <= 0x7a;
    // `/` 0x2f, `!` 0x21, `?` 0x3f
    if (
      (letter || next === 0x2f || next === 0x21 || next === 0x3f) &&
      ++tokens >= WEB_READ_THREAD_MIN_ELEMENTS
    )
      return true;
  }
  return false;
}

/** What a read queued behind another says it waits for (a timeout's reason then says so). */
export const READER_BUSY = "the page reader, busy with another large page";

export function readOnThread(
  page: ThreadPage,
  id: string,
  signal: AbortSignal,
  limits: ReaderLimits,
  waiting?: (what: string | undefined) => void,
): Promise<ProviderReadOutcome> {
  if (!threadModule) return readPage(page, id, signal);
  const queued = threads.full;
  if (queued) waiting?.(READER_BUSY);
  return threads.acquire(signal).then(async (release) => {
    let reader: Reader;
    try {
      if (queued) waiting?.(undefined);
      reader = await takeReader(limits);
    } catch (thrown) {
      release();
      throw thrown;
    }
    return run(reader, { page, id }, signal, release);
  });
}

/**
 * A kept thread of the same memory, else a new one; a kept thread of another memory ends first,
 * so no more threads run than the bound.
 */
async function takeReader({ memoryMb, idleMs }: ReaderLimits): Promise<Reader> {
  const kept = idle.shift();
  if (kept !== undefined) {
    clearTimeout(kept.idleTimer);
    kept.idleTimer = undefined;
    if (kept.memoryMb === memoryMb && !kept.exited) {
      kept.idleMs = idleMs;
      kept.worker.ref();
      return kept;
    }
    await kept.worker.terminate();
  }
  const worker = new Worker(entry, {
    workerData: { memoryMb },
    // Its young generation is bounded too: a reader allocates fast enough that V8 grows it to
    // its largest, which a kept thread would hold while idle.
    resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: WEB_READ_THREAD_YOUNG_MB },
    // Its stdout is not the process's: on stdio that is the protocol channel. It is not read
    // either (reading it would keep the process alive while the thread is kept): the thread
    // writes nothing there (reader-worker.ts).
    stdout: true,
  });
  started++;
  const reader: Reader = { worker, memoryMb, idleMs, pages: 0, exited: false };
  worker.once("exit", () => {
    reader.exited = true;
    clearTimeout(reader.idleTimer);
    const at = idle.indexOf(reader);
    if (at >= 0) idle.splice(at, 1);
  });
  // A thread's late `error` with no listener would throw in this one; a read's own listener
  // says it to its caller.
  worker.on("error", () => {});
  return reader;
}

/**
 * Ends a thread; its slot comes back once it has ended, not when asked: the bound is on threads
 * that hold memory.
 */
function end(reader: Reader, release: () => void): void {
  if (reader.exited) release();
  else {
    reader.worker.once("exit", release);
    void reader.worker.terminate();
  }
}

/** Keeps a thread that answered for the next page, or ends it (see the module's header). */
function keepOrEnd(reader: Reader, heldBytes: number, release: () => void): void {
  reader.pages++;
  pagesAnswered++;
  if (
    reader.exited ||
    reader.idleMs === 0 ||
    reader.pages >= WEB_READ_THREAD_PAGES ||
    heldBytes > WEB_READ_THREAD_KEEP_MB * 1024 * 1024
  ) {
    end(reader, release);
    return;
  }
  reader.worker.unref();
  reader.idleTimer = setTimeout(() => {
    const at = idle.indexOf(reader);
    if (at < 0) return;
    idle.splice(at, 1);
    // A slot is free while a thread is kept (it gave its own back), so this takes one at once
    // and no new thread starts before this one has ended.
    void threads.acquire().then((slot) => end(reader, slot));
  }, reader.idleMs);
  reader.idleTimer.unref();
  // Kept before the slot goes back: a read waiting for the slot gets it at once, and this thread.
  idle.push(reader);
  release();
}

function run(
  reader: Reader,
  request: ThreadRequest,
  signal: AbortSignal,
  release: () => void,
): Promise<ProviderReadOutcome> {
  const { worker, memoryMb } = reader;
  const { id } = request;
  const startRss = process.memoryUsage.rss();
  const tooLarge = () =>
    new ProviderError(
      id,
      "too_large",
      `${id}: reading this page needs more than the ${memoryMb} MB its reader may use (EVIDENT_WEB_READ_MEMORY_MB); it was not read`,
    );
  return new Promise<ProviderReadOutcome>((resolve, reject) => {
    // The first of answer, failure, end, abort or memory settles; a read that did not end with
    // an answer ends its thread.
    let settled = false;
    const settle = (done: () => void, answered?: ThreadAnswer) => {
      if (settled) return;
      settled = true;
      clearInterval(watch);
      signal.removeEventListener("abort", onAbort);
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
      if (answered === undefined || "tooLarge" in answered.reply) end(reader, release);
      else keepOrEnd(reader, answered.heldBytes, release);
      done();
    };
    const onAbort = () => settle(() => reject(abortReason(signal)));
    // A backstop with room for what a thread's start costs the process (more on some runtimes).
    const growth = (memoryMb + WEB_READ_THREAD_START_MB) * 1024 * 1024;
    const watch = setInterval(() => {
      if (process.memoryUsage.rss() - startRss > growth) settle(() => reject(tooLarge()));
    }, WEB_READ_MEMORY_CHECK_MS);
    watch.unref();
    const onMessage = (answered: ThreadAnswer) =>
      settle(
        () =>
          "tooLarge" in answered.reply ? reject(tooLarge()) : answer(answered.reply, id, resolve, reject),
        answered,
      );
    const onError = (error: Error) =>
      settle(() =>
        reject((error as { code?: unknown }).code === "ERR_WORKER_OUT_OF_MEMORY" ? tooLarge() : error),
      );
    const onExit = (code: number) =>
      settle(() =>
        reject(new ProviderError(id, "upstream", `${id}: the page reader stopped (exit code ${code})`)),
      );
    worker.on("message", onMessage);
    worker.on("error", onError);
    worker.once("exit", onExit);
    if (signal.aborted) onAbort();
    else {
      signal.addEventListener("abort", onAbort, { once: true });
      worker.postMessage(request satisfies ThreadRequest);
    }
  });
}

function answer(
  reply: Exclude<ThreadReply, { readonly tooLarge: true }>,
  id: string,
  resolve: (outcome: ProviderReadOutcome) => void,
  reject: (error: Error) => void,
): void {
  if ("outcome" in reply) resolve(reply.outcome);
  else if ("providerFailure" in reply) {
    const { kind, reason, status } = reply.providerFailure;
    reject(new ProviderError(id, kind, reason, status === undefined ? {} : { status }));
  } else {
    const { code, message, details } = reply.evidentFailure;
    reject(new EvidentError(code, message, { details }));
  }
}
