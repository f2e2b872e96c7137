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
import { type Git, gitMessage } from "./process.js";
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

/** `<id> <type> <size>\n<content>\n` per object, or `<id> missing\n`. */
export function readBatch(
  stdout: Readable,
  wanted: readonly string[],
  bounds: { readonly maxBytes: number; readonly maxTotalBytes: number },
  blobs: Map<string, Blob>,
): Promise<ConsumeResult> {
  return new Promise((resolve, reject) => {
    let buffered: Buffer = Buffer.alloc(0);
    let next = 0;
    let kept = 0;
    /** The object whose content is being read: its id, size, and what has arrived. */
    let body: { id: string; size: number; parts: Buffer[]; got: number; keep: boolean } | undefined;
    let stopped = false;
    const step = (): boolean => {
      if (body !== undefined) {
        const need = body.size + 1 - body.got;
        const piece = buffered.subarray(0, need);
        if (body.keep) body.parts.push(piece);
        body.got += piece.length;
        buffered = buffered.subarray(piece.length);
        if (body.got < body.size + 1) return false;
        blobs.set(
          body.id,
          body.keep
            ? { kind: "bytes", bytes: Buffer.concat(body.parts).subarray(0, body.size) }
            : { kind: "too-large", size: body.size },
        );
        body = undefined;
        return true;
      }
      const newline = buffered.indexOf(0x0a);
      if (newline === -1) return false;
      const header = buffered.subarray(0, newline).toString("latin1");
      buffered = buffered.subarray(newline + 1);
      const id = wanted[next++];
      const fields = header.split(" ");
      if (id === undefined)
        throw new EvidentError("internal_error", "git cat-file answered more objects than asked.");
      if (fields[1] === "missing" || fields[1] === "ambiguous") {
        blobs.set(id, { kind: "missing" });
        return true;
      }
      const size = Number(fields[2]);
      if (!Number.isSafeInteger(size) || size < 0) {
        throw new EvidentError(
          "internal_error",
          `git cat-file answered an unexpected header: ${header.slice(0, 120)}`,
        );
      }
      if (size <= bounds.maxBytes && kept + size > bounds.maxTotalBytes) {
        // Everything from here is past the total: stop Git rather than read it all past.
        for (const rest of wanted.slice(next - 1))
          if (!blobs.has(rest)) blobs.set(rest, { kind: "over-total" });
        stopped = true;
        resolve("stop");
        return false;
      }
      const keep = size <= bounds.maxBytes;
      if (keep) kept += size;
      body = { id, size, parts: [], got: 0, keep };
      return true;
    };
    const closed = () => reject(new Error("Git's output closed before it ended"));
    const ended = () => {
      if (stopped) return;
      if (body !== undefined || next < wanted.length) {
        reject(new EvidentError("internal_error", "git cat-file ended before answering every object."));
      } else resolve("done");
    };
    // Over before this was called: no event would come again.
    if (stdout.readableEnded) return ended();
    if (stdout.destroyed) return closed();
    stdout.on("data", (chunk: Buffer) => {
      if (stopped) return;
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      try {
        while (buffered.length > 0 && step()) {
          // Each step consumes one header or finishes one body.
        }
      } catch (error) {
        stdout.destroy();
        reject(error);
      }
    });
    stdout.once("end", ended);
    stdout.once("error", reject);
    // Destroyed before its end (cancellation, the deadline): without this the call would wait
    // forever (after "end", the promise is settled and this does nothing).
    stdout.once("close", closed);
  });
}
