/**
 * The thread side of reader-thread.ts: reads the one page it was started with and posts the
 * outcome, or the failure as data (an error class does not survive the trip between threads).
 * It keeps nothing: the thread ends with its page, and its memory with it.
 */
import { parentPort, workerData } from "node:worker_threads";
import { EvidentError } from "../../../core/errors.js";
import { ProviderError } from "../../provider.js";
import { readHtml } from "./html.js";
import { readPdf } from "./pdf.js";
import type { ThreadPage, ThreadReply } from "./reader-thread.js";

const page = workerData as ThreadPage;
let reply: ThreadReply;
try {
  const outcome =
    page.kind === "html"
      ? await readHtml(page.html, page.pageUrl)
      : // The thread is terminated to stop a read: the signal never aborts here.
        await readPdf(page.body, page.id, new AbortController().signal);
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
parentPort?.postMessage(reply);
