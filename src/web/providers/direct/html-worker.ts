/**
 * The thread side of html-thread.ts: reads the one page it was started with and posts the
 * outcome. It keeps nothing: the thread ends with its page, and its heap with it.
 */
import { parentPort, workerData } from "node:worker_threads";
import { readHtml } from "./html.js";

const { html, pageUrl } = workerData as { readonly html: string; readonly pageUrl: string };
parentPort?.postMessage(await readHtml(html, pageUrl));
