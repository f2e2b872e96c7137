/**
 * `direct`: the keyless reader. It fetches the page itself through the guarded client (agent
 * trust: public addresses only, every redirect hop re-checked), decodes it in the encoding the
 * page declares (charset.ts) and reads it by what it is: HTML as main content in Markdown
 * (html.ts), PDF as text by page (pdf.ts), plain text, Markdown and JSON as they are (text.ts).
 * Anything else is `unsupported_content`, naming the type, rather than bytes posing as text.
 */
import { EvidentError } from "../../../core/errors.js";
import { MAX_RESPONSE_BODY_BYTES, WEB_READ_MAX_STREAMED_BYTES } from "../../../core/limits.js";
import { bodyTooLarge } from "../../../net/http-client.js";
import {
  type Provider,
  type ProviderContext,
  ProviderError,
  type ProviderReadOutcome,
  type ProviderReadRequest,
} from "../../provider.js";
import { clientFailure } from "../shared/http.js";
import { decodeBody } from "./charset.js";
import { readHtml } from "./html.js";
import { type PageBody, readPageBody } from "./page-body.js";
import { isPdf } from "./pdf.js";
import { heavyHtml, READER_DEFAULTS, type ReaderLimits, readerKept, readOnThread } from "./reader-thread.js";
import { readText, TEXT_TYPES } from "./text.js";

export interface DirectProviderOptions {
  readonly id?: string;
  readonly attemptDeadlineMs?: number;
  /** Sent as `User-Agent`; some sites refuse unknown clients. */
  readonly userAgent?: string;
}

const ACCEPT =
  "text/html,application/xhtml+xml,application/pdf;q=0.9,text/markdown;q=0.9,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.1";

const HTML = /^(text\/html|application\/xhtml\+xml)$/;
/** Types that say nothing about the bytes: the bytes decide. */
const UNTYPED = /^(|application\/octet-stream|binary\/octet-stream|application\/unknown)$/;

/** `reader`: the reader threads' memory and idle time, the operator's EVIDENT_WEB_READ_*. */
export function createDirectProvider(
  options: DirectProviderOptions = {},
  reader: ReaderLimits = READER_DEFAULTS,
): Provider {
  const id = options.id ?? "direct";
  const reading: ReadBodyOptions = { reader };
  return {
    id,
    adapter: "direct",
    // No operator credential is involved: evident fetches the page itself, without any account.
    anonymous: true,
    capabilities: { search: false, read: true, focus: false },
    ...(options.attemptDeadlineMs === undefined ? {} : { attemptDeadlineMs: options.attemptDeadlineMs }),

    async read(request: ProviderReadRequest, context: ProviderContext): Promise<ProviderReadOutcome> {
      const response = await fetchPage(id, request.url, context, options.userAgent);
      const contentType = response.headers.get("content-type") ?? undefined;
      const page = await pageBody(id, response, HTML.test(mediaType(contentType)));
      const outcome = await readBody(
        id,
        page.body,
        contentType,
        response.url,
        context.signal,
        context.waiting === undefined ? reading : { ...reading, waiting: context.waiting },
      );
      return withCutSaid(outcome, page);
    },
  };
}

/** The page's answer, its body still to read; a status other than 2xx is a failure. */
async function fetchPage(
  id: string,
  url: string,
  context: ProviderContext,
  userAgent: string | undefined,
): Promise<Response> {
  let response: Response;
  try {
    response = await context.http.stream({
      method: "GET",
      url,
      headers: { accept: ACCEPT, ...(userAgent === undefined ? {} : { "user-agent": userAgent }) },
      trust: "agent",
      followRedirects: true,
      signal: context.signal,
      // What is kept is bounded by MAX_RESPONSE_BODY_BYTES (page-body.ts); this bounds what streams.
      maxBodyBytes: WEB_READ_MAX_STREAMED_BYTES,
    });
  } catch (thrown) {
    throw fetchFailure(id, thrown);
  }
  if (response.status < 200 || response.status > 299) {
    await response.body?.cancel().catch(() => {});
    throw new ProviderError(id, "http", `${id} HTTP ${response.status}`, { status: response.status });
  }
  return response;
}

/** The body within the cap: an HTML page over it sieved and cut (page-body.ts), anything else refused. */
async function pageBody(id: string, response: Response, html: boolean): Promise<PageBody> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  try {
    if (!html && declared > MAX_RESPONSE_BODY_BYTES) {
      await response.body?.cancel().catch(() => {});
      throw bodyTooLarge(MAX_RESPONSE_BODY_BYTES);
    }
    return await readPageBody(response.body, html, MAX_RESPONSE_BODY_BYTES);
  } catch (thrown) {
    throw fetchFailure(id, thrown);
  }
}

/** The outcome with a warning for a page over the cap: what was dropped, where it was cut. */
function withCutSaid(outcome: ProviderReadOutcome, page: PageBody): ProviderReadOutcome {
  const mib = `${MAX_RESPONSE_BODY_BYTES / (1024 * 1024)} MiB`;
  const bytes = (count: number) => count.toLocaleString("en-US");
  let said: string;
  if (page.cutAt !== undefined) {
    said = `direct: the page's HTML was cut after ${bytes(page.cutAt)} bytes: even without its scripts and styles it is over the ${mib} response cap (or it is longer than the ${bytes(WEB_READ_MAX_STREAMED_BYTES)} bytes read of one page); the reading may miss the end of the page`;
  } else if (page.droppedBytes > 0) {
    said = `direct: the page's HTML is over the ${mib} response cap; the content of its scripts and styles (${bytes(page.droppedBytes)} bytes), which direct does not read, was dropped as it arrived, and the rest was read to its end`;
  } else {
    return outcome;
  }
  return { ...outcome, warnings: [said, ...(outcome.warnings ?? [])] };
}

export interface ReadBodyOptions {
  /** The memory a page read on a thread of its own may take, and the thread's idle time (reader-thread.ts). */
  readonly reader?: ReaderLimits;
  /** Told while the page waits for the reader's thread (ProviderContext.waiting). */
  readonly waiting?: (what: string | undefined) => void;
}

/** Reads a fetched body by its declared type, or by its bytes when the type says nothing. */
export async function readBody(
  id: string,
  body: Uint8Array,
  contentType: string | undefined,
  url: string,
  signal: AbortSignal,
  options: ReadBodyOptions = {},
): Promise<ProviderReadOutcome> {
  const reader = options.reader ?? READER_DEFAULTS;
  const readPage = (html: string) =>
    heavyHtml(html) || readerKept(reader)
      ? readOnThread({ kind: "html", html, pageUrl: url }, id, signal, reader, options.waiting)
      : readHtml(html, url);
  const type = mediaType(contentType);
  if (type === "application/pdf" || ((UNTYPED.test(type) || type === "text/plain") && isPdf(body))) {
    return readOnThread({ kind: "pdf", body }, id, signal, reader, options.waiting);
  }
  if (HTML.test(type)) return readPage(decodeBody(body, contentType, true).text);
  if (TEXT_TYPES.test(type)) {
    return readText(decodeBody(body, contentType, /xml/.test(type)).text, type, id, signal);
  }
  if (UNTYPED.test(type) && looksLikeText(body)) {
    const { text } = decodeBody(body, contentType, true);
    return /^\s*<(!doctype html|html|head|body)\b/i.test(text)
      ? readPage(text)
      : readText(text, "text/plain", id, signal);
  }
  throw new EvidentError(
    "unsupported_content",
    `${id} cannot read ${type === "" ? "content without a type that is not text" : `${type} content`}: it reads HTML, PDF, plain text, Markdown and JSON. Try a reader that converts this type.`,
    { details: { content_type: type === "" ? null : type } },
  );
}

/** No NUL byte early on: binary formats have them, text does not (UTF-16 comes with a BOM). */
function looksLikeText(body: Uint8Array): boolean {
  if ((body[0] === 0xfe && body[1] === 0xff) || (body[0] === 0xff && body[1] === 0xfe)) return true;
  return !body.subarray(0, 1024).includes(0);
}

function mediaType(header: string | undefined): string {
  return (header ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

function fetchFailure(id: string, thrown: unknown): Error {
  // A refused URL or redirect is the agent's to know about as such, not a provider failure.
  if (thrown instanceof EvidentError && thrown.code === "url_not_allowed") return thrown;
  if (thrown instanceof EvidentError && thrown.code === "deadline_exceeded") {
    return new ProviderError(id, "timeout", `${id} did not answer within the deadline`, { cause: thrown });
  }
  if (thrown instanceof EvidentError && thrown.code === "cancelled") {
    return new ProviderError(id, "cancelled", `${id} request was cancelled`, { cause: thrown });
  }
  return clientFailure(id, thrown);
}
