/**
 * The thread side of reader-thread.ts: reads the one page it was started with and posts the
 * outcome, or the failure as data (an error class does not survive the trip between threads).
 * It keeps nothing: the thread ends with its page, and its memory with it.
 */
import { parentPort, workerData } from "node:worker_threads";
import { EvidentError } from "../../../core/errors.js";
import { WEB_READ_MEMORY_CHECK_MS } from "../../../core/limits.js";
import { ProviderError } from "../../provider.js";
import { readPage, type ThreadPage, type ThreadReply } from "./reader-thread.js";

const { page, id, memoryMb } = workerData as {
  readonly page: ThreadPage;
  readonly id: string;
  readonly memoryMb: number;
};

// V8's cap bounds this thread's heap, not its buffers (a PDF's inflated streams): their bytes
// are this thread's own (`external`), checked whenever the reading yields. The calling thread's
// watch on the whole process catches what runs too long to yield.
const watch = setInterval(() => {
  if (process.memoryUsage().external > memoryMb * 1024 * 1024) {
    parentPort?.postMessage({ tooLarge: true } satisfies ThreadReply);
    process.exit(1);
  }
}, WEB_READ_MEMORY_CHECK_MS);
watch.unref();

let reply: ThreadReply;
try {
  // The thread is terminated to stop a read: the signal never aborts here.
  const outcome = await readPage(page, id, new AbortController().signal);
  reply = { outcome };
} catch (thrown) {
  if (thrown instanceof ProviderError) {
    reply = {
      providerFailure: {
        kind: thrown.kind,
        reason: thrown.reason,
        ...(thrown.status === undefined ? {} : { status: thrown.status }),
      },
    };
  } else if (thrown instanceof EvidentError) {
    reply = { evidentFailure: { code: thrown.code, message: thrown.message, details: thrown.details } };
  } else throw thrown;
}
clearInterval(watch);
parentPort?.postMessage(reply);
