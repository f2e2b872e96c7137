/**
 * Revisions of a one-shot search: a process that answers one search and exits (the `evident
 * grep` command) keeps no observations from earlier searches, and enumerating the whole file
 * scope before the search costs more than the search itself. Such a search reads the revision
 * of each file it retained once, after ripgrep ended, and trusts it when the file's change time
 * precedes the search's start: the file has not changed since, so an observation made before the
 * search would have been this same one, and the usual before/after rule holds.
 *
 * The change time is what the kernel stamps on every write and metadata change, from its own
 * clock (a tick behind the wall clock at most), and cannot be set back from user space. A file
 * changed during the search, or just before it (within CHANGE_TIME_MARGIN_MS), is unverified; so
 * is one whose stamp has whole seconds only (a coarse filesystem: a second's margin more). A
 * network filesystem stamps files with another machine's clock: a search rooted on one is
 * observed before and after as a server's are (`remoteFilesystem`), and a retained file on one
 * elsewhere stays unverified.
 */
import { statfsSync } from "node:fs";
import { CHANGE_TIME_MARGIN_MS } from "../../core/limits.js";
import { pathUnder, Recheck } from "./scan.js";

/**
 * Linux filesystems whose change times come from another machine's clock (statfs magic numbers:
 * NFS, SMB, CIFS, SMB2, FUSE, Ceph, 9P, AFS, Coda, GFS2, OCFS2, Lustre, NCP).
 */
const REMOTE_FILESYSTEMS = new Set([
  0x6969, 0x517b, 0xff534d42, 0xfe534d42, 0x65735546, 0x00c36400, 0x01021997, 0x5346414f, 0x73757245,
  0x01161970, 0x7461636f, 0x0bd00bd0, 0x564c,
]);

/** Whether `path` lies on a filesystem whose clock is not this machine's (or cannot be told). */
export function remoteFilesystem(path: string): boolean {
  if (process.platform !== "linux") return false;
  try {
    return REMOTE_FILESYSTEMS.has(statfsSync(path).type);
  } catch {
    return true;
  }
}

/**
 * The recheck of a search that began at `beganAtMs` (`Date.now()` before ripgrep started): it
 * trusts the revisions of files (as ripgrep printed them, under `rgCwd`) that have not changed
 * since before then.
 */
export function settledRecheck(rgCwd: string, beganAtMs: number): Recheck {
  const began = BigInt(beganAtMs - CHANGE_TIME_MARGIN_MS) * 1_000_000n;
  const beganText = String(began);
  // Per device: whether its files' change times are this machine's.
  const local = new Map<string, boolean>();
  return new Recheck(rgCwd, (name, revision) => {
    if (revision === undefined) return undefined;
    // The change time and the device, read from the revision's text where they are (size,
    // mtime, ctime, inode, device): one file of thousands, so no array, object or BigInt each.
    const ctimeStart = revision.indexOf(":", revision.indexOf(":") + 1) + 1;
    const ctime = revision.slice(ctimeStart, revision.indexOf(":", ctimeStart));
    if (!changedBefore(ctime, beganText, began)) return undefined;
    const dev = revision.slice(revision.lastIndexOf(":") + 1);
    let onLocal = local.get(dev);
    if (onLocal === undefined) {
      onLocal = !remoteFilesystem(pathUnder(rgCwd, name));
      local.set(dev, onLocal);
    }
    return onLocal ? revision : undefined;
  });
}

/**
 * Whether the change time `ctime` (decimal nanoseconds) is before `began` (`beganText` in
 * decimal). Decimal numbers without leading zeros compare by length, then by their digits.
 */
function changedBefore(ctime: string, beganText: string, began: bigint): boolean {
  // Whole seconds only: the stamp may be up to a second (two, on FAT) before the change.
  if (ctime.endsWith("000000000")) return BigInt(ctime) + 2_000_000_000n < began;
  return ctime.length < beganText.length || (ctime.length === beganText.length && ctime < beganText);
}
