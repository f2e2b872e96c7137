/**
 * `direct`: the keyless reader. It fetches the page itself through the guarded client (agent
 * trust: public addresses only, every redirect hop re-checked), decodes it in the encoding the
 * page declares (charset.ts) and reads it by what it is: HTML as main content in Markdown
 * (html.ts), PDF as text by page (pdf.ts), plain text, Markdown and JSON as they are (text.ts).
 * Anything else is `unsupported_content`, naming the type, rather than bytes posing as text.
 */
import { EvidentError } from "../../../core/errors.js";
import type { HttpResponse } from "../../../net/http-client.js";
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
      let response: HttpResponse;
      try {
        response = await context.http.request({
          method: "GET",
          url: request.url,
          headers: {
            accept: ACCEPT,
            ...(options.userAgent === undefined ? {} : { "user-agent": options.userAgent }),
          },
          trust: "agent",
          followRedirects: true,
          signal: context.signal,
        });
      } catch (thrown) {
        throw fetchFailure(id, thrown);
      }
      if (response.status < 200 || response.status > 299) {
        throw new ProviderError(id, "http", `${id} HTTP ${response.status}`, { status: response.status });
      }
      return readBody(
        id,
        response.body,
        response.headers["content-type"],
        response.url,
        context.signal,
        context.waiting === undefined ? reading : { ...reading, waiting: context.waiting },
      );
    },
  };
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
