/**
 * What a PDF's deflated streams inflate to, counted before pdf.js opens it. pdf.js keeps each
 * stream it inflates, in pieces the C allocator keeps after the reader's thread has ended, so a
 * refused bomb left the server larger for good (bench/hardening/RESULTS.md). Counting
 * with zlib and dropping what comes out needs no more than a chunk, so such a PDF is refused
 * before anything is kept. Every `stream` keyword is taken for a stream start (a wrong guess
 * costs a failed zlib header); each is inflated up to its `endstream`, until the total passes the
 * bound. Streams with other filters (LZW, run length) are left to the reader's own memory bound.
 */
import { constants, createInflate, inflateSync } from "node:zlib";

/** Streams at most this long (compressed) are inflated in one call: their output is bounded by it. */
const SMALL_STREAM_BYTES = 4 * 1024;
/** What zlib inflates per piece of a large stream, dropped once counted. */
const CHUNK_BYTES = 64 * 1024;

/**
 * The bytes the PDF's deflated streams inflate to, counted until they pass `limitBytes` (the
 * count then is the first one past it). A stream that fails to inflate counts what came out.
 */
export async function inflatedBytes(body: Uint8Array, limitBytes: number): Promise<number> {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.length);
  let total = 0;
  for (let at = bytes.indexOf("stream", 0, "latin1"); at >= 0 && total <= limitBytes; ) {
    let start = at + 6;
    if (bytes[start] === 0x0d) start++;
    const next = bytes.indexOf("endstream", start, "latin1");
    const end = next < 0 ? bytes.length : next;
    if (bytes[start] === 0x0a && zlibHeader(bytes, start + 1)) {
      const data = bytes.subarray(start + 1, end);
      total +=
        data.length <= SMALL_STREAM_BYTES ? smallStream(data) : await largeStream(data, limitBytes - total);
    }
    at = next < 0 ? -1 : bytes.indexOf("stream", next + 9, "latin1");
  }
  return total;
}

/** A zlib header: deflate with a window of at most 32 KB, and its check bits. */
function zlibHeader(bytes: Buffer, at: number): boolean {
  const cmf = bytes[at];
  const flg = bytes[at + 1];
  if (cmf === undefined || flg === undefined) return false;
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | flg) % 31 === 0;
}

function smallStream(data: Buffer): number {
  try {
    // A truncated stream counts what it holds.
    return inflateSync(data, { finishFlush: constants.Z_SYNC_FLUSH }).length;
  } catch {
    return 0;
  }
}

/** Inflates `data` a chunk at a time, counting and dropping, until it ends or passes `limitBytes`. */
function largeStream(data: Buffer, limitBytes: number): Promise<number> {
  return new Promise((resolve) => {
    const inflate = createInflate({ chunkSize: CHUNK_BYTES, finishFlush: constants.Z_SYNC_FLUSH });
    let count = 0;
    const done = () => {
      inflate.removeAllListeners("data");
      inflate.destroy();
      resolve(count);
    };
    inflate.on("data", (chunk: Buffer) => {
      count += chunk.length;
      if (count > limitBytes) done();
    });
    inflate.once("end", done);
    inflate.once("error", done);
    inflate.end(data);
  });
}
