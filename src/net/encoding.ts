/**
 * Response bodies in the `Content-Encoding` they were sent in. evident does not ask for any
 * (no `Accept-Encoding`), but servers and CDNs send gzip or brotli anyway, and compressed bytes
 * read as text are garbage posing as a page. So the client decodes what it knows (gzip, deflate,
 * br; stacked ones in reverse order) as a stream, the body cap applying to the decoded bytes: a
 * small body that inflates past it is `body_too_large`, not a bomb. An encoding it does not know
 * is a failure that says so, never bytes passed on as they are.
 */
import { pipeline, type Readable, type Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { HttpClientError } from "./http-client.js";

const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  "x-gzip": createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** The codings applied to a body, in the order they were applied; identity dropped. */
export function contentCodings(header: string | string[] | undefined): string[] {
  const value = Array.isArray(header) ? header.join(",") : (header ?? "");
  return value
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
}

/**
 * The body decoded, or a thrown `encoding` HttpClientError for a coding not known. Errors of the
 * source and of each decoder (a corrupt or cut stream) surface on the returned stream.
 */
export function decodeBody(body: Readable, codings: readonly string[]): Readable {
  if (codings.length === 0) return body;
  const decoders = [...codings].reverse().map((coding) => {
    const make = DECODERS[coding];
    if (make === undefined) {
      throw new HttpClientError("encoding", "the response is in a content encoding evident cannot decode");
    }
    return make();
  });
  const last = decoders[decoders.length - 1] as Transform;
  pipeline([body, ...decoders], () => {
    // Errors reach `last` (pipeline destroys every stream with the first error): read there.
  });
  return last;
}

/** Whether a stream error is a decoder's own (corrupt or cut compressed data), not the socket's. */
export function isDecodeError(thrown: unknown): boolean {
  const code = (thrown as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^(Z_|ERR__ERROR|ERR_BROTLI)/.test(code);
}
