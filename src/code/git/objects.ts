/**
 * Blob contents from Git's object database (`cat-file --batch`: no filters, no textconv), one
 * process for all of them. A blob over the size bound is read past, not kept; the first that
 * would pass the bound on all kept together stops the read, it and the rest unread (a few
 * kilobytes of compressed objects can hold gigabytes); a missing one is reported as missing (in
 * a partial clone under Git 2.45+, lazy fetching is off).
 */
import type { Readable } from "node:stream";
import { EvidentError } from "../../core/errors.js";
import type { ConsumeResult } from "../process/owned-process.js";
import { feed, type Git, gitFailure, gitMessage } from "./process.js";
import type { Repository } from "./repository.js";

export type Blob =
  | { readonly kind: "bytes"; readonly bytes: Buffer }
  | { readonly kind: "too-large"; readonly size: number }
  | { readonly kind: "over-total" }
  | { readonly kind: "missing" };

export async function readBlobs(
  git: Git,
  repository: Repository,
  ids: readonly string[],
  maxBytes: number,
  maxTotalBytes: number,
  signal?: AbortSignal,
): Promise<Map<string, Blob>> {
  const wanted = [...new Set(ids)];
  const blobs = new Map<string, Blob>();
  if (wanted.length === 0) return blobs;
  const outcome = await git.stream(
    {
      cwd: repository.root,
      args: ["cat-file", "--batch"],
      input: `${wanted.join("\n")}\n`,
      config: repository.config,
      signal,
    },
    (stdout) => readBatch(stdout, wanted, { maxBytes, maxTotalBytes }, blobs),
  );
  if (outcome.exitCode !== 0 && !outcome.stopped)
    throw new EvidentError("internal_error", `git cat-file failed: ${gitMessage(outcome.stderr)}`);
  return blobs;
}

/**
 * The objects of `ids` the repository lacks (`cat-file --batch-check`: one line per object,
 * `<id> missing` for an absent one). Only for a Git that fetches nothing on demand (2.45+, see
 * process.ts): an older one would try to fetch each missing object instead of naming it.
 */
export async function missingObjects(
  git: Git,
  repository: Repository,
  ids: readonly string[],
  signal?: AbortSignal,
): Promise<Set<string>> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return new Set();
  const out = await git.run({
    cwd: repository.root,
    args: ["cat-file", "--batch-check=%(objectname)"],
    input: `${wanted.join("\n")}\n`,
    config: repository.config,
    signal,
  });
  if (out.exitCode !== 0) throw gitFailure("cat-file", out.stderr);
  const missing = new Set<string>();
  for (const line of out.stdout.toString("latin1").split("\n")) {
    const [id, status] = line.split(" ");
    if (status === "missing" && id !== undefined) missing.add(id);
  }
  return missing;
}

/** `<id> <type> <size>\n<content>\n` per object, or `<id> missing\n`. */
export function readBatch(
  stdout: Readable,
  wanted: readonly string[],
  bounds: BatchBounds,
  blobs: Map<string, Blob>,
): Promise<ConsumeResult> {
  const parser = new BatchParser(wanted, bounds, blobs);
  return feed(
    stdout,
    (chunk) => parser.push(chunk),
    () => {
      if (!parser.complete) {
        throw new EvidentError("internal_error", "git cat-file ended before answering every object.");
      }
    },
  );
}

interface BatchBounds {
  readonly maxBytes: number;
  readonly maxTotalBytes: number;
}

/** The object whose content is being read: its id, size, and what has arrived. */
interface BatchBody {
  readonly id: string;
  readonly size: number;
  readonly parts: Buffer[];
  got: number;
  /** Within the size bound: its bytes are kept, else read past. */
  readonly keep: boolean;
}

/** The batch output read as it arrives: one header, then that object's body, in turn. */
class BatchParser {
  #buffered: Buffer = Buffer.alloc(0);
  /** Index in `wanted` of the next header's object. */
  #next = 0;
  /** Bytes of the blobs kept so far. */
  #kept = 0;
  #body: BatchBody | undefined;

  constructor(
    private readonly wanted: readonly string[],
    private readonly bounds: BatchBounds,
    private readonly blobs: Map<string, Blob>,
  ) {}

  /** Whether every object asked for was answered in whole. */
  get complete(): boolean {
    return this.#body === undefined && this.#next >= this.wanted.length;
  }

  /** Reads what `chunk` completes; "stop" once the rest is past the total bound. */
  push(chunk: Buffer): "stop" | undefined {
    this.#buffered = this.#buffered.length === 0 ? chunk : Buffer.concat([this.#buffered, chunk]);
    while (this.#buffered.length > 0) {
      // Each step consumes one header or finishes one body.
      const step = this.#body === undefined ? this.#header() : this.#content(this.#body);
      if (step === "stop") return "stop";
      if (step === "wait") return undefined;
    }
    return undefined;
  }

  #content(body: BatchBody): "next" | "wait" {
    const need = body.size + 1 - body.got;
    const piece = this.#buffered.subarray(0, need);
    if (body.keep) body.parts.push(piece);
    body.got += piece.length;
    this.#buffered = this.#buffered.subarray(piece.length);
    if (body.got < body.size + 1) return "wait";
    this.blobs.set(
      body.id,
      body.keep
        ? { kind: "bytes", bytes: Buffer.concat(body.parts).subarray(0, body.size) }
        : { kind: "too-large", size: body.size },
    );
    this.#body = undefined;
    return "next";
  }

  #header(): "next" | "wait" | "stop" {
    const newline = this.#buffered.indexOf(0x0a);
    if (newline === -1) return "wait";
    const header = this.#buffered.subarray(0, newline).toString("latin1");
    this.#buffered = this.#buffered.subarray(newline + 1);
    const id = this.wanted[this.#next++];
    const fields = header.split(" ");
    if (id === undefined)
      throw new EvidentError("internal_error", "git cat-file answered more objects than asked.");
    if (fields[1] === "missing" || fields[1] === "ambiguous") {
      this.blobs.set(id, { kind: "missing" });
      return "next";
    }
    const size = Number(fields[2]);
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new EvidentError(
        "internal_error",
        `git cat-file answered an unexpected header: ${header.slice(0, 120)}`,
      );
    }
    const keep = size <= this.bounds.maxBytes;
    if (keep && this.#kept + size > this.bounds.maxTotalBytes) {
      // Everything from here is past the total: stop Git rather than read it all past.
      for (const rest of this.wanted.slice(this.#next - 1))
        if (!this.blobs.has(rest)) this.blobs.set(rest, { kind: "over-total" });
      return "stop";
    }
    if (keep) this.#kept += size;
    this.#body = { id, size, parts: [], got: 0, keep };
    return "next";
  }
}
