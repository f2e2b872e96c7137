/**
 * Verified source reads: one file's bytes as one bounded document, bound to the revision they
 * were read at. The revision is observed before and after reading; a file that changed meanwhile,
 * or that differs from the revision a caller expects (a search's retained one, a continuation's),
 * is never handed out as that version. Lines and bytes are mapped here once, so every consumer
 * (inspection, parsing, continuations) agrees on what line N and byte B are.
 */
import { createHash } from "node:crypto";
import { type BigIntStats, constants, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { SOURCE_DOCUMENT_MAX_BYTES } from "../../core/limits.js";
import {
  type Revision,
  readRevisionSync,
  revisionOf,
  revisionSize,
  sameRevision,
} from "../revisions/scan.js";

export interface SourceDocument {
  /** Absolute path as opened. */
  readonly path: string;
  readonly bytes: Buffer;
  readonly revision: Revision;
  /** SHA-256 of the bytes, hex: the content's identity (syntax cache key, continuation binding). */
  readonly hash: string;
  /** The bytes are valid UTF-8; otherwise `text` is a lossy view (U+FFFD for bad sequences). */
  readonly utf8: boolean;
  readonly text: string;
  /** Byte offset of each line's start; lines end at LF, which belongs to the line it ends. */
  readonly lineStarts: Uint32Array;
}

/** Why a document could not be read; each reads differently to the agent. */
export type ReadFailure =
  | { readonly reason: "missing" }
  | { readonly reason: "not_a_file" }
  | { readonly reason: "unreadable"; readonly detail: string }
  | { readonly reason: "too_large"; readonly size: number }
  | { readonly reason: "changed" };

export type ReadOutcome =
  | { readonly ok: true; readonly document: SourceDocument }
  | ({ readonly ok: false } & ReadFailure);

export interface ReadOptions {
  /** The revision the caller holds: anything else is `changed`. */
  readonly expected?: Revision | undefined;
  readonly maxBytes?: number;
}

export async function readSourceDocument(path: string, options: ReadOptions = {}): Promise<ReadOutcome> {
  const maxBytes = options.maxBytes ?? SOURCE_DOCUMENT_MAX_BYTES;
  const before = observe(path);
  if ("reason" in before) return { ok: false, ...before };
  const { revision } = before;
  if (options.expected !== undefined && !sameRevision(options.expected, revision))
    return { ok: false, reason: "changed" };
  const size = Number(revisionSize(revision));
  if (size > maxBytes) return { ok: false, reason: "too_large", size };
  const bytes = await readVersion(path, revision);
  if (!Buffer.isBuffer(bytes)) return { ok: false, ...bytes };
  return { ok: true, document: makeDocument(path, bytes, revision) };
}

/** A document from bytes already held (tests, and providers that received the bytes). */
export function makeDocument(path: string, bytes: Buffer, revision: Revision): SourceDocument {
  const text = bytes.toString("utf8");
  return {
    path,
    bytes,
    revision,
    hash: createHash("sha256").update(bytes).digest("hex"),
    // Decoding replaces every invalid sequence; a round trip is exact only for valid UTF-8.
    utf8: !text.includes("\uFFFD") || Buffer.from(text, "utf8").equals(bytes),
    text,
    lineStarts: lineStartsOf(bytes),
  };
}

/** The file's revision, read on the calling thread (see readRevisionSync), or why there is none. */
function observe(path: string): { revision: Revision } | ReadFailure {
  let stats: BigIntStats | undefined;
  try {
    stats = statSync(path, { bigint: true, throwIfNoEntry: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR") return { reason: "missing" };
    return { reason: "unreadable", detail: code ?? "error" };
  }
  if (stats === undefined) return { reason: "missing" };
  if (!stats.isFile()) return { reason: "not_a_file" };
  return { revision: revisionOf(stats) };
}

/**
 * A regular file's bytes if its revision is `expected` before and after they are read, and they
 * are exactly as many as it says; else why not. The read stops one byte past that size, so a file
 * that grew can neither exhaust memory nor cost more than the read it needs. Opened without
 * blocking and checked: a FIFO put in the file's place would otherwise hold the open until a
 * writer came, which may be never. `noFollow`: a symbolic link in its place is not followed.
 */
export async function readVersion(
  path: string,
  expected: Revision,
  noFollow = false,
): Promise<Buffer | Exclude<ReadFailure, { reason: "missing" | "too_large" }>> {
  const limit = Number(revisionSize(expected)) + 1;
  const flags =
    constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (noFollow ? (constants.O_NOFOLLOW ?? 0) : 0);
  let bytes: Buffer;
  try {
    const handle = await open(path, flags);
    try {
      if (!(await handle.stat()).isFile()) return { reason: "not_a_file" };
      // Unpooled: a document keeps these bytes, and must not keep a shared pool slab with them.
      const buffer = Buffer.allocUnsafeSlow(limit);
      let total = 0;
      while (total < limit) {
        const { bytesRead } = await handle.read(buffer, total, limit - total, total);
        if (bytesRead === 0) break;
        total += bytesRead;
      }
      bytes = buffer.subarray(0, total);
    } finally {
      await handle.close();
    }
  } catch (error) {
    return { reason: "unreadable", detail: (error as NodeJS.ErrnoException).code ?? "error" };
  }
  // Read between two equal observations, and exactly as long as both said: that version.
  if (bytes.length !== limit - 1 || !sameRevision(expected, readRevisionSync(path)))
    return { reason: "changed" };
  return bytes;
}

function lineStartsOf(bytes: Buffer): Uint32Array {
  const starts = [0];
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) {
    if (i + 1 < bytes.length) starts.push(i + 1);
  }
  return Uint32Array.from(starts);
}

/** Number of lines (a final line feed ends the last line; it does not start another). */
export function lineCount(document: SourceDocument): number {
  return document.bytes.length === 0 ? 0 : document.lineStarts.length;
}

/** Byte offset where 1-based `line` starts. */
export function lineStart(document: SourceDocument, line: number): number {
  return document.lineStarts[line - 1] ?? document.bytes.length;
}

/** Byte offset just past 1-based `line`, its line feed included. */
export function lineEnd(document: SourceDocument, line: number): number {
  return document.lineStarts[line] ?? document.bytes.length;
}

/** The 1-based line holding byte `offset` (the last line for the end of the document). */
export function lineAt(document: SourceDocument, offset: number): number {
  const starts = document.lineStarts;
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >>> 1;
    if ((starts[mid] as number) <= offset) low = mid;
    else high = mid - 1;
  }
  return low + 1;
}
