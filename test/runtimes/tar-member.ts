/**
 * One file out of a gzipped tar archive (an npm package's tarball), with Node's zlib alone: the
 * runtime smoke tests need one binary of a package whose other thousands of files cost most of
 * an install.
 */
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { createGunzip } from "node:zlib";

/**
 * Writes one regular file of a gzipped tar archive to `to`, reading the archive only as far as
 * the end of that member. Knows ustar headers and the pax and GNU records that can rename the
 * member after them.
 */
export async function unpackMember(archive: string, member: string, to: string): Promise<void> {
  // Large chunks: with the 16 KiB default, zlib and this loop cost far more per byte.
  const gunzip = createReadStream(archive, { highWaterMark: 1 << 20 }).pipe(
    createGunzip({ chunkSize: 1 << 18 }),
  );
  const out = await open(to, "w");
  let pending: Buffer = Buffer.alloc(0);
  let skip = 0; // what is left of a member that is not wanted, with its padding
  let write = -1; // what is left of the member, once its header is found
  let renamed: string | undefined;
  try {
    for await (const chunk of gunzip) {
      let data: Buffer = pending.length === 0 ? (chunk as Buffer) : Buffer.concat([pending, chunk as Buffer]);
      pending = Buffer.alloc(0);
      while (data.length > 0) {
        if (write >= 0) {
          const part = data.subarray(0, write);
          await out.write(part);
          write -= part.length;
          if (write === 0) return;
          data = data.subarray(part.length);
          continue;
        }
        if (skip > 0) {
          const part = Math.min(skip, data.length);
          skip -= part;
          data = data.subarray(part);
          continue;
        }
        if (data.length < 512) {
          pending = data;
          break;
        }
        const header = data.subarray(0, 512);
        if (header.every((byte) => byte === 0)) throw new Error(`${member} is not in ${archive}`);
        const field = (start: number, length: number) =>
          header
            .subarray(start, start + length)
            .toString("utf8")
            .replace(/\0[\s\S]*$/, "");
        const size = Number.parseInt(field(124, 12).trim() || "0", 8);
        const type = field(156, 1);
        const padded = Math.ceil(size / 512) * 512;
        if (type === "x" || type === "L") {
          // The record's body names the next member: held until it is all here.
          if (data.length < 512 + padded) {
            pending = data;
            break;
          }
          const body = data.subarray(512, 512 + size).toString("utf8");
          renamed =
            type === "L"
              ? body.replace(/\0[\s\S]*$/, "")
              : (/(?:^|\n)\d+ path=([^\n]*)\n/.exec(body)?.[1] ?? renamed);
          data = data.subarray(512 + padded);
          continue;
        }
        // Only a POSIX ustar header has a prefix there (GNU's keeps other fields in its place).
        const prefix = header.subarray(257, 263).toString("latin1") === "ustar\0" ? field(345, 155) : "";
        const name = renamed ?? (prefix === "" ? field(0, 100) : `${prefix}/${field(0, 100)}`);
        renamed = undefined;
        data = data.subarray(512);
        if (name === member && (type === "0" || type === "")) {
          if (size === 0) return;
          write = size;
        } else skip = padded;
      }
    }
    throw new Error(write >= 0 ? `${archive} ends inside ${member}` : `${member} is not in ${archive}`);
  } finally {
    gunzip.destroy();
    await out.close();
  }
}
