/**
 * A fetched page's body, read within the response cap (MAX_RESPONSE_BODY_BYTES).
 *
 * An HTML page over the cap is usually a readable article or product wrapped in megabytes of
 * inline scripts and JSON that the reader never uses. Refusing it as `too_large` would fail a
 * page whose text is there; reading it whole would give up the bound. So an HTML page (one
 * that starts with markup) that passes the cap is sieved as it arrives: the content of its scripts (all but JSON-LD, which
 * the reader reads) and styles is dropped, and the cap bounds what is kept. What still passes
 * the cap, or a page longer than WEB_READ_MAX_STREAMED_BYTES, is cut there, and the cut is
 * said (`PageBody.cutAt`). Any other type over the cap is refused as before: a cut PDF or JSON
 * is not readable.
 */
import { bodyTooLarge, HttpClientError } from "../../../net/http-client.js";

export interface PageBody {
  readonly body: Uint8Array;
  /** Bytes of script and style content dropped because the page passed the cap (0: none). */
  readonly droppedBytes: number;
  /** The bytes read when the page was cut (undefined: it was read to its end). */
  readonly cutAt?: number;
}

/**
 * Reads `stream` to its end, keeping at most `cap` bytes. `html`: sieve the page once it passes
 * the cap and cut it there rather than refuse it; otherwise a body over the cap is
 * `body_too_large`. The stream is cancelled when reading stops early.
 */
export async function readPageBody(
  stream: ReadableStream<Uint8Array> | null,
  html: boolean,
  cap: number,
): Promise<PageBody> {
  if (stream === null) return { body: new Uint8Array(0), droppedBytes: 0 };
  const reader = stream.getReader();
  const kept = new KeptBytes(cap);
  let sieve: ScriptSieve | undefined;
  let read = 0;
  try {
    for (;;) {
      const next = await nextChunk(reader, html);
      if (next === "over") return finish(kept, sieve, read);
      if (next.done) break;
      const chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
      read += chunk.length;
      if (sieve === undefined && kept.size + chunk.length > cap) {
        if (!html || !startsAsMarkup(kept.head())) throw bodyTooLarge(cap);
        sieve = new ScriptSieve();
        kept.restart((all) => sieve?.push(all) ?? []);
      }
      const full = kept.add(sieve === undefined ? [chunk] : sieve.push(chunk));
      if (full) return finish(kept, sieve, read);
    }
    if (sieve !== undefined) kept.add(sieve.end());
    return { body: kept.bytes(), droppedBytes: sieve?.dropped ?? 0 };
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** The next chunk, or "over" when an HTML page passes the bytes streamed for one page. */
async function nextChunk(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  html: boolean,
): Promise<Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>> | "over"> {
  try {
    return await reader.read();
  } catch (thrown) {
    if (html && thrown instanceof HttpClientError && thrown.kind === "body_too_large") return "over";
    throw thrown;
  }
}

function finish(kept: KeptBytes, sieve: ScriptSieve | undefined, read: number): PageBody {
  return { body: kept.bytes(), droppedBytes: sieve?.dropped ?? 0, cutAt: read };
}

/**
 * Whether a body starts as HTML does (a byte order mark and white space, then `<`): a body
 * labelled HTML that is not (a compression bomb of one byte repeated) is refused over the cap
 * rather than read in part.
 */
function startsAsMarkup(head: Buffer): boolean {
  let at = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (at < head.length && /[\t\n\f\r ]/.test(String.fromCharCode(head[at] as number))) at += 1;
  return head[at] === LT;
}

/** Kept chunks, at most `cap` bytes: a chunk that passes it is cut at it. */
class KeptBytes {
  #chunks: Buffer[] = [];
  #size = 0;
  readonly #cap: number;

  constructor(cap: number) {
    this.#cap = cap;
  }

  get size(): number {
    return this.#size;
  }

  /** Adds chunks; true when the cap is reached and a chunk had to be cut. */
  add(chunks: readonly Buffer[]): boolean {
    for (const chunk of chunks) {
      const room = this.#cap - this.#size;
      if (chunk.length > room) {
        this.#chunks.push(chunk.subarray(0, room));
        this.#size = this.#cap;
        return true;
      }
      this.#chunks.push(chunk);
      this.#size += chunk.length;
    }
    return false;
  }

  /** Passes what is kept through `sieve` and keeps what comes out instead. */
  restart(sieve: (all: Buffer) => readonly Buffer[]): void {
    const all = Buffer.concat(this.#chunks, this.#size);
    this.#chunks = [];
    this.#size = 0;
    this.add(sieve(all));
  }

  /** The first bytes kept (fewer when the first chunk is short). */
  head(): Buffer {
    return this.#chunks[0] ?? Buffer.alloc(0);
  }

  bytes(): Uint8Array {
    return Buffer.concat(this.#chunks, this.#size);
  }
}

/** The longest start tag looked at for its `type`: a longer one is kept as text. */
const MAX_TAG_BYTES = 64 * 1024;
/** Bytes needed after `<` to tell `<script`, `<style` or `<!--` from other markup. */
const LOOKAHEAD = 8;
const LT = 0x3c;

/**
 * Drops the content of `<script>` (but JSON-LD) and `<style>` elements from HTML bytes that
 * arrive in chunks split anywhere; the tags themselves stay, so the page's structure does not
 * change. Comments are passed over, so a commented-out `<script>` drops nothing. The bytes are
 * looked at as ASCII: the encodings pages use keep `<`, `>` and letters as ASCII bytes.
 */
export class ScriptSieve {
  /** Bytes of script and style content dropped so far. */
  dropped = 0;
  #pending: Buffer = Buffer.alloc(0);
  /** The element whose content is being passed over, and whether it is kept (JSON-LD). */
  #inside: { readonly name: string; readonly keep: boolean } | undefined;
  #comment = false;

  /** The kept bytes of `chunk`; a possible marker at its end waits for the next chunk. */
  push(chunk: Buffer): Buffer[] {
    const bytes = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    this.#pending = Buffer.alloc(0);
    const out: Buffer[] = [];
    let at = 0;
    while (at < bytes.length) {
      const next = this.#comment
        ? this.#inComment(bytes, at, out)
        : this.#inside !== undefined
          ? this.#inElement(bytes, at, out)
          : this.#inText(bytes, at, out);
      if (next === undefined) break;
      at = next;
    }
    return out;
  }

  /** What was held back at the end of the page: kept unless inside a dropped element. */
  end(): Buffer[] {
    const rest = this.#pending;
    this.#pending = Buffer.alloc(0);
    if (this.#inside !== undefined && !this.#inside.keep) {
      this.dropped += rest.length;
      return [];
    }
    return rest.length === 0 ? [] : [rest];
  }

  /** Holds `bytes` from `at` for the next chunk; undefined ends this chunk. */
  #hold(bytes: Buffer, at: number): undefined {
    this.#pending = Buffer.from(bytes.subarray(at));
    return undefined;
  }

  #inComment(bytes: Buffer, at: number, out: Buffer[]): number | undefined {
    const end = bytes.indexOf("-->", at, "latin1");
    if (end < 0) {
      const keep = Math.max(at, bytes.length - 2);
      out.push(bytes.subarray(at, keep));
      return this.#hold(bytes, keep);
    }
    out.push(bytes.subarray(at, end + 3));
    this.#comment = false;
    return end + 3;
  }

  #inElement(bytes: Buffer, at: number, out: Buffer[]): number | undefined {
    const inside = this.#inside as { readonly name: string; readonly keep: boolean };
    const marker = inside.name.length + 3;
    let close = bytes.indexOf("</", at, "latin1");
    while (close >= 0 && close + marker <= bytes.length && !closes(bytes, close, inside.name)) {
      close = bytes.indexOf("</", close + 2, "latin1");
    }
    const end = close < 0 ? Math.max(at, bytes.length - 1) : close;
    if (inside.keep) out.push(bytes.subarray(at, end));
    else this.dropped += end - at;
    if (close < 0 || close + marker > bytes.length) return this.#hold(bytes, end);
    this.#inside = undefined;
    return close;
  }

  #inText(bytes: Buffer, at: number, out: Buffer[]): number | undefined {
    const open = markupAt(bytes, at);
    if (open < 0) {
      out.push(bytes.subarray(at));
      return bytes.length;
    }
    out.push(bytes.subarray(at, open));
    if (bytes.length - open < LOOKAHEAD) return this.#hold(bytes, open);
    if (bytes.toString("latin1", open, open + 4) === "<!--") {
      out.push(bytes.subarray(open, open + 4));
      this.#comment = true;
      return open + 4;
    }
    const name = startsElement(bytes, open);
    if (name === undefined) {
      out.push(bytes.subarray(open, open + 1));
      return open + 1;
    }
    const close = bytes.indexOf(">", open, "latin1");
    if (close < 0) {
      if (bytes.length - open <= MAX_TAG_BYTES) return this.#hold(bytes, open);
      out.push(bytes.subarray(open, open + 1));
      return open + 1;
    }
    const tag = bytes.toString("latin1", open, close + 1);
    out.push(bytes.subarray(open, close + 1));
    this.#inside = { name, keep: name === "script" && /\btype\s*=\s*["']?application\/ld\+json/i.test(tag) };
    return close + 1;
  }
}

const BANG = 0x21;
const LOWER_S = 0x73;
const UPPER_S = 0x53;

/**
 * The next `<` that may open a comment, a script or a style (followed by `!` or `s`), or one
 * too near the end to tell; -1 when there is none.
 */
function markupAt(bytes: Buffer, from: number): number {
  for (let open = bytes.indexOf(LT, from); open >= 0; open = bytes.indexOf(LT, open + 1)) {
    const next = bytes[open + 1];
    if (next === undefined || next === BANG || next === LOWER_S || next === UPPER_S) return open;
  }
  return -1;
}

/** `script` or `style` when the tag at `at` opens one (a name then a space, `>` or `/`). */
function startsElement(bytes: Buffer, at: number): string | undefined {
  for (const name of ["script", "style"]) {
    const after = bytes[at + 1 + name.length];
    if (
      bytes.toString("latin1", at + 1, at + 1 + name.length).toLowerCase() === name &&
      after !== undefined &&
      /[\s>/]/.test(String.fromCharCode(after))
    ) {
      return name;
    }
  }
  return undefined;
}

/** Whether the `</` at `at` closes `name` (its name then a space, `>` or `/`). */
function closes(bytes: Buffer, at: number, name: string): boolean {
  const after = bytes[at + 2 + name.length];
  return (
    bytes.toString("latin1", at + 2, at + 2 + name.length).toLowerCase() === name &&
    after !== undefined &&
    /[\s>/]/.test(String.fromCharCode(after))
  );
}
