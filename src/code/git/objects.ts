/**
 * Blob contents from Git's object database (`cat-file --batch`: no filters, no textconv), one
 * process for all of them. A blob over the size bound is read past, not kept; a missing one is
 * reported as missing (in a partial clone under Git 2.45+, lazy fetching is off).
 */
import type { Readable } from "node:stream";
import { EvidentError } from "../../core/errors.js";
import { type Git, gitMessage } from "./process.js";
import type { Repository } from "./repository.js";

export type Blob =
  | { readonly kind: "bytes"; readonly bytes: Buffer }
  | { readonly kind: "too-large"; readonly size: number }
  | { readonly kind: "missing" };

export async function readBlobs(
  git: Git,
  repository: Repository,
  ids: readonly string[],
  maxBytes: number,
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
    (stdout) => readBatch(stdout, wanted, maxBytes, blobs),
  );
  if (outcome.exitCode !== 0)
    throw new EvidentError("internal_error", `git cat-file failed: ${gitMessage(outcome.stderr)}`);
  return blobs;
}

/** `<id> <type> <size>\n<content>\n` per object, or `<id> missing\n`. */
function readBatch(
  stdout: Readable,
  wanted: readonly string[],
  maxBytes: number,
  blobs: Map<string, Blob>,
): Promise<"done"> {
  return new Promise((resolve, reject) => {
    let buffered: Buffer = Buffer.alloc(0);
    let next = 0;
    /** The object whose content is being read: its id, size, and what has arrived. */
    let body: { id: string; size: number; parts: Buffer[]; got: number; keep: boolean } | undefined;
    const step = (): boolean => {
      if (body !== undefined) {
        const need = body.size + 1 - body.got;
        const piece = buffered.subarray(0, need);
        if (body.keep) body.parts.push(piece);
        body.got += piece.length;
        buffered = buffered.subarray(piece.length);
        if (body.got < body.size + 1) return false;
        const content = body.keep ? Buffer.concat(body.parts).subarray(0, body.size) : undefined;
        blobs.set(
          body.id,
          content === undefined ? { kind: "too-large", size: body.size } : { kind: "bytes", bytes: content },
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
      body = { id, size, parts: [], got: 0, keep: size <= maxBytes };
      return true;
    };
    stdout.on("data", (chunk: Buffer) => {
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
    stdout.once("end", () => {
      if (body !== undefined || next < wanted.length) {
        reject(new EvidentError("internal_error", "git cat-file ended before answering every object."));
      } else resolve("done");
    });
    stdout.once("error", reject);
  });
}
