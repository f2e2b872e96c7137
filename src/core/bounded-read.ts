/**
 * Reading a small file that someone else may have replaced: opened without blocking, so a FIFO
 * or a device at the path cannot hold the thread, and read only if it is a regular file of at
 * most `maxBytes`, counted again while reading (it may grow after the check).
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

export type BoundedRead =
  | { readonly kind: "bytes"; readonly bytes: Buffer }
  | { readonly kind: "absent" }
  | { readonly kind: "not a regular file" }
  /** `size` is what fstat said, or undefined when the file grew past the bound while read. */
  | { readonly kind: "too large"; readonly size: number | undefined }
  | { readonly kind: "error"; readonly code: string; readonly cause: unknown };

export function readRegularFileSync(path: string, maxBytes: number): BoundedRead {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (thrown) {
    const code = errorCode(thrown);
    return code === "ENOENT" ? { kind: "absent" } : { kind: "error", code, cause: thrown };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { kind: "not a regular file" };
    if (stats.size > maxBytes) return { kind: "too large", size: stats.size };
    // One byte more than announced, to see growth; never more than the bound plus one.
    let buffer = Buffer.alloc(Math.min(stats.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) return { kind: "too large", size: undefined };
        const larger = Buffer.alloc(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(larger);
        buffer = larger;
      }
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) return { kind: "bytes", bytes: buffer.subarray(0, length) };
      length += read;
    }
  } catch (thrown) {
    return { kind: "error", code: errorCode(thrown), cause: thrown };
  } finally {
    closeSync(fd);
  }
}

function errorCode(thrown: unknown): string {
  return (thrown as { code?: string }).code ?? "error";
}
