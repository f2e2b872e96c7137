/**
 * Large HTML pages are read on a thread of their own (html-worker.ts). Parsing and extracting
 * a page takes time in proportion to its size, and on the calling thread every other call of the
 * server waits for it: a few pages near the body cap stalled an HTTP server for tens of seconds
 * and held hundreds of megabytes each (bench/web-read/RESULTS.md). On a thread, the server keeps
 * answering, a cancelled or timed-out read stops at once (the thread is terminated), the thread's
 * heap is capped (a page that needs more is `too_large`, not the end of the process), and the
 * memory is returned when the thread ends. At most WEB_READ_THREADS pages are read this way at
 * once; the rest wait their turn, and one cancelled while it waits starts nothing. Small pages,
 * most of the web, are read on the calling thread: a thread's start would cost them more than
 * their reading does.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { abortReason } from "../../../core/abort.js";
import { WEB_READ_THREADS } from "../../../core/limits.js";
import { Slots } from "../../../core/slots.js";
import { ProviderError, type ProviderReadOutcome } from "../../provider.js";
import { readHtml } from "./html.js";

const threads = new Slots(WEB_READ_THREADS);

// Built, the thread's module sits next to this one. Run from source (tsx), there is none: Node 20
// does not apply tsx's hooks inside a thread, so the page is read on the calling thread.
const entry = new URL("./html-worker.js", import.meta.url);

/** Threads reading a page now (for tests and the server's own accounting). */
export function readingThreads(): number {
  return threads.running;
}

export async function readHtmlOnThread(
  html: string,
  pageUrl: string,
  id: string,
  signal: AbortSignal,
  heapMb: number,
): Promise<ProviderReadOutcome> {
  // Also when a bundler inlined this module and left the thread's file behind.
  if (!existsSync(fileURLToPath(entry))) return readHtml(html, pageUrl);
  const release = await threads.acquire(signal);
  let worker: Worker;
  try {
    worker = new Worker(entry, {
      workerData: { html, pageUrl },
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
      // Its stdout is not the process's: on stdio that is the protocol channel.
      stdout: true,
    });
  } catch (thrown) {
    release();
    throw thrown;
  }
  worker.stdout.resume();
  // The slot is free once the thread has ended, not when its answer is in: the bound is on
  // threads that hold memory.
  worker.once("exit", release);
  return new Promise<ProviderReadOutcome>((resolve, reject) => {
    // The first of answer, failure, end or abort settles; the listeners stay (a thread's late
    // `error` with no listener would throw in this one).
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      done();
    };
    const onAbort = () => {
      settle(() => reject(abortReason(signal)));
      void worker.terminate();
    };
    worker.on("message", (outcome: ProviderReadOutcome) => settle(() => resolve(outcome)));
    worker.on("error", (error: Error) => settle(() => reject(threadFailure(id, error, heapMb))));
    worker.once("exit", (code: number) =>
      settle(() =>
        reject(new ProviderError(id, "upstream", `${id}: the page reader stopped (exit code ${code})`)),
      ),
    );
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
}

function threadFailure(id: string, error: Error, heapMb: number): Error {
  if ((error as { code?: unknown }).code === "ERR_WORKER_OUT_OF_MEMORY") {
    return new ProviderError(
      id,
      "too_large",
      `${id}: reading this page needs more than the ${heapMb} MB its reader may use (EVIDENT_WEB_READ_THREAD_HEAP_MB); it was not read`,
      { cause: error },
    );
  }
  return error;
}
