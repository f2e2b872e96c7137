/**
 * The thread side of reader-thread.ts: reads each page it is sent, one at a time, and posts the
 * outcome, or the failure as data (an error class does not survive the trip between threads),
 * with what its heap and buffers hold after it, by which the calling thread decides whether to
 * keep it for the next page. It keeps nothing of a page past its answer.
 */
import { getHeapStatistics } from "node:v8";
import { parentPort, workerData } from "node:worker_threads";
import { EvidentError } from "../../../core/errors.js";
import { WEB_READ_MEMORY_CHECK_MS } from "../../../core/limits.js";
import { ProviderError } from "../../provider.js";
import { readPage, type ThreadAnswer, type ThreadReply, type ThreadRequest } from "./reader-thread.js";

const { memoryMb } = workerData as { readonly memoryMb: number };

// What a library prints goes nowhere: the calling thread does not read this thread's stdout.
process.stdout.write = (() => true) as typeof process.stdout.write;

/** Its heap as reserved and its buffers: what it would hold while kept. */
function heldBytes(): number {
  return getHeapStatistics().total_heap_size + process.memoryUsage().external;
}

async function read({ page, id }: ThreadRequest): Promise<ThreadReply> {
  try {
    // The thread is terminated to stop a read: the signal never aborts here.
    return { outcome: await readPage(page, id, new AbortController().signal) };
  } catch (thrown) {
    if (thrown instanceof ProviderError) {
      return {
        providerFailure: {
          kind: thrown.kind,
          reason: thrown.reason,
          ...(thrown.status === undefined ? {} : { status: thrown.status }),
        },
      };
    }
    if (thrown instanceof EvidentError) {
      return { evidentFailure: { code: thrown.code, message: thrown.message, details: thrown.details } };
    }
    throw thrown;
  }
}

parentPort?.on("message", async (request: ThreadRequest) => {
  // V8's cap bounds this thread's heap, not its buffers (a PDF's inflated streams): their bytes
  // are this thread's own (`external`), checked whenever the reading yields. The calling thread's
  // watch on the whole process catches what runs too long to yield.
  const watch = setInterval(() => {
    if (process.memoryUsage().external > memoryMb * 1024 * 1024) {
      parentPort?.postMessage({ reply: { tooLarge: true }, heldBytes: heldBytes() } satisfies ThreadAnswer);
      process.exit(1);
    }
  }, WEB_READ_MEMORY_CHECK_MS);
  watch.unref();
  const reply = await read(request);
  clearInterval(watch);
  parentPort?.postMessage({ reply, heldBytes: heldBytes() } satisfies ThreadAnswer);
});
