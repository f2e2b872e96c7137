/**
 * File revisions observed around a search. Before the content search, a names-only ripgrep
 * enumeration (same file scope, NUL-framed so names with newlines survive) feeds metadata reads:
 * at most MAX_SOURCE_REVISION_FILES files, at most MAX_CONCURRENT_STATS at once, with ripgrep's
 * output left unread while reads are behind (backpressure). After the search the retained files
 * are read again; only a file whose two observations agree is trusted. Everything else still
 * counts, and is reported as unverified.
 */
import { type BigIntStats, statSync } from "node:fs";
import { resolve } from "node:path";
import {
  MAX_CONCURRENT_STATS,
  MAX_SOURCE_REVISION_FILES,
  SCAN_PENDING_NAMES_MAX,
  STAT_SLICE_FILES,
  STAT_SLICE_MS,
} from "../../core/limits.js";
import type { Slots } from "../../core/slots.js";
import { protectedDescendant, type RgTarget } from "../path-policy.js";
import { runOwnedProcess } from "../process/owned-process.js";
import type { SearchQuery } from "../request.js";
import { buildFilesArgs } from "../rg/args.js";
import { LineSplitter } from "../rg/events.js";

/**
 * What identifies one version of a file's bytes: its size, nanosecond modification and change
 * times, inode and device, as one string of five decimal numbers (`revisionOf`). Snapshots keep
 * one per file they retained: one flat string is a fraction of an object of five strings
 * (bench/hardening/RESULTS.md, seventh pass).
 */
export type Revision = string & { readonly [revisionBrand]: true };
declare const revisionBrand: unique symbol;

/** The five numbers a revision is made of, as decimal strings. */
export interface RevisionParts {
  readonly size: string;
  readonly mtimeNs: string;
  readonly ctimeNs: string;
  readonly ino: string;
  readonly dev: string;
}

const PART_NAMES = ["size", "mtimeNs", "ctimeNs", "ino", "dev"] as const;
/** Five numbers of at most 20 digits and their separators. */
const scratch = Buffer.allocUnsafeSlow(5 * 21);

/**
 * The revision of these parts, or undefined unless each is a decimal number (a stored or sealed
 * form read back). Written out through a buffer: a string built by concatenation is a tree of
 * its pieces in V8, larger than the object it replaces.
 */
export function revisionOf(parts: Readonly<Record<keyof RevisionParts, string | bigint>>): Revision;
export function revisionOf(parts: Readonly<Record<keyof RevisionParts, unknown>>): Revision | undefined;
export function revisionOf(parts: Readonly<Record<keyof RevisionParts, unknown>>): Revision | undefined {
  let at = 0;
  for (const name of PART_NAMES) {
    const part = parts[name];
    let text: string;
    // A stat's numbers are 64-bit, so a non-negative one is 1 to 20 digits.
    if (typeof part === "bigint" && part >= 0n) text = part.toString();
    else if (typeof part === "string" && /^[0-9]{1,20}$/.test(part)) text = part;
    else return undefined;
    if (at > 0) scratch[at++] = 0x3a; // ":"
    at += scratch.write(text, at, "latin1");
  }
  return scratch.toString("latin1", 0, at) as Revision;
}

export function revisionParts(revision: Revision): RevisionParts {
  const [size, mtimeNs, ctimeNs, ino, dev] = revision.split(":") as [string, string, string, string, string];
  return { size, mtimeNs, ctimeNs, ino, dev };
}

/** The file's size in bytes when the revision was observed, as a decimal string. */
export function revisionSize(revision: Revision): string {
  return revision.slice(0, revision.indexOf(":"));
}

export function sameRevision(a: Revision | undefined, b: Revision | undefined): boolean {
  return a !== undefined && a === b;
}

/**
 * Reads one file's revision, or undefined when it cannot be read (it then stays unverified). On
 * the calling thread: for one file a synchronous stat costs a few microseconds where a
 * thread-pool round trip costs tens to hundreds, which is most of the per-call cost of a small
 * search.
 */
export function readRevisionSync(absolutePath: string): Revision | undefined {
  let stats: BigIntStats | undefined;
  try {
    stats = statSync(absolutePath, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  return stats === undefined ? undefined : toRevision(stats);
}

/**
 * The file a name as ripgrep prints it refers to: `./a/b` under a relative root, an absolute
 * path under an absolute one, never `..`. Joining reaches the same file as `resolve` (the
 * fallback for anything else) and saves about 7 of the 70 ms a re-check of 11,000 files takes.
 */
export function pathUnder(cwd: string, name: string): string {
  if (name.startsWith("/")) return name;
  if (name.startsWith("./") && !name.includes("/../") && !name.endsWith("/.."))
    return `${cwd}/${name.slice(2)}`;
  return resolve(cwd, name);
}

function toRevision(s: BigIntStats): Revision | undefined {
  if (!s.isFile()) return undefined;
  return revisionOf(s);
}

export interface RevisionScan {
  /** Keyed by the name as ripgrep printed it (the same form as in its match events). */
  readonly revisions: ReadonlyMap<string, Revision>;
  readonly enumerated: number;
  /** More candidates existed than metadata was read for. */
  readonly capped: boolean;
}

export interface ScanOptions {
  readonly rgPath: string;
  /** ripgrep's whole environment: what the caller handed down (config/ settings' childEnvironment). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly query: SearchQuery;
  readonly target: RgTarget;
  readonly signal?: AbortSignal;
  readonly onSpawn?: (pid: number) => void;
  readonly slots?: Slots | undefined;
  readonly maxFiles?: number;
}

export async function scanRevisions(options: ScanOptions): Promise<RevisionScan> {
  const maxFiles = options.maxFiles ?? MAX_SOURCE_REVISION_FILES;
  const revisions = new Map<string, Revision>();
  const reader = new RevisionReader(options.target.cwd, (name, revision) => {
    if (revision !== undefined) revisions.set(name, revision);
  });
  const isProtected = protectedDescendant(options.target);
  let enumerated = 0;
  let requested = 0;
  let capped = false;
  await runOwnedProcess(
    {
      command: options.rgPath,
      args: buildFilesArgs(options.query, options.target),
      cwd: options.target.cwd,
      env: options.env,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.slots === undefined ? {} : { slots: options.slots }),
      ...(options.onSpawn === undefined ? {} : { onSpawn: options.onSpawn }),
    },
    async (stdout) => {
      const splitter = new LineSplitter(0);
      for await (const chunk of stdout) {
        splitter.push(chunk, (raw) => {
          enumerated++;
          if (requested >= maxFiles) {
            capped = true;
            return;
          }
          const name = raw.toString("utf8");
          // A lossy name cannot be opened under its decoded spelling; it stays unverified.
          if (name.includes("\uFFFD")) return;
          // A protected area that ripgrep's globs let through (another spelling, or a store the
          // globs name only where such stores live): not listed.
          if (isProtected(name)) return;
          requested++;
          reader.add(name);
        });
        if (capped) return "stop";
        // Backpressure: ripgrep waits on a full pipe while metadata reads catch up.
        if (reader.size > SCAN_PENDING_NAMES_MAX) await reader.drainTo(MAX_CONCURRENT_STATS);
      }
      return "done";
    },
  ).finally(() => reader.drainTo(0));
  return { revisions, enumerated, capped };
}

/** The "before" observation of a search whose root is one file. */
export async function scanSingleFile(target: RgTarget): Promise<RevisionScan> {
  const revision = readRevisionSync(resolve(target.cwd, target.root));
  const revisions = new Map<string, Revision>();
  if (revision !== undefined) revisions.set(target.root, revision);
  return { revisions, enumerated: 1, capped: false };
}

/**
 * The usual rule: trusted when the earlier observation (`before`) equals the new one. Every new
 * observation is also handed to `observed`, so it can serve as the earlier observation of a
 * later search.
 */
export function againstBefore(
  before: (name: string) => Revision | undefined,
  observed?: (name: string, revision: Revision | undefined) => void,
): (name: string, second: Revision | undefined) => Revision | undefined {
  return (name, second) => {
    const first = before(name);
    observed?.(name, second);
    return first !== undefined && sameRevision(first, second) ? first : undefined;
  };
}

/**
 * Revisions read again as a search reports its files done: each file's second observation is read
 * while ripgrep still searches the others (it has ended reading that file when it reports it),
 * and `done` reads what is left once the search has ended. `trust` says which revision, if
 * any, a file's new observation lets the search trust.
 */
export class Recheck {
  readonly #trusted = new Map<string, Revision>();
  readonly #added = new Set<string>();
  readonly #reader: RevisionReader;

  constructor(rgCwd: string, trust: (name: string, second: Revision | undefined) => Revision | undefined) {
    this.#reader = new RevisionReader(rgCwd, (name, second) => {
      const trusted = trust(name, second);
      if (trusted !== undefined) this.#trusted.set(name, trusted);
    });
  }

  /** Reads `name` again, once, soon. */
  add(name: string): void {
    if (this.#added.has(name)) return;
    this.#added.add(name);
    this.#reader.add(name);
  }

  /** The trusted revisions, once every name added has been read again. */
  async done(): Promise<Map<string, Revision>> {
    // One slice's worth is read at once: waiting for a turn of the event loop first cost a
    // small search more than the reads themselves.
    if (this.#reader.size <= STAT_SLICE_FILES) this.#reader.readAll();
    await this.#reader.drainTo(0);
    return this.#trusted;
  }
}

/**
 * Metadata reads, one at a time (well within MAX_CONCURRENT_STATS) in slices of
 * STAT_SLICE_FILES between turns of the event loop. A synchronous stat of a cached inode costs a
 * few microseconds while a thread-pool round trip costs several times that; on 50,000 files
 * this is the difference between the revision scan hiding behind ripgrep's own traversal and
 * doubling it. A slice blocks the loop for about a millisecond, so cancellation stays prompt.
 */
class RevisionReader {
  readonly #queue: string[] = [];
  #head = 0;
  #scheduled = false;
  #waiters: (() => void)[] = [];

  constructor(
    private readonly cwd: string,
    private readonly onRevision: (name: string, revision: Revision | undefined) => void,
  ) {}

  /** Names not yet read. */
  get size(): number {
    return this.#queue.length - this.#head;
  }

  add(name: string): void {
    this.#queue.push(name);
    this.#schedule();
  }

  /** Resolves once at most `limit` names remain unread. */
  async drainTo(limit: number): Promise<void> {
    while (this.size > limit) await new Promise<void>((wake) => this.#waiters.push(wake));
  }

  /** Reads every name not yet read, now. */
  readAll(): void {
    while (this.#head < this.#queue.length) {
      const name = this.#queue[this.#head++] as string;
      this.onRevision(name, readRevisionSync(pathUnder(this.cwd, name)));
    }
    this.#queue.length = 0;
    this.#head = 0;
    for (const wake of this.#waiters.splice(0)) wake();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#slice());
  }

  #slice(): void {
    this.#scheduled = false;
    const end = Math.min(this.#queue.length, this.#head + STAT_SLICE_FILES);
    // Uncached inodes on a busy machine cost far more than a few microseconds each: the slice
    // also ends after STAT_SLICE_MS, so a cancel notice waits for no more than that.
    const until = performance.now() + STAT_SLICE_MS;
    while (this.#head < end) {
      const name = this.#queue[this.#head++] as string;
      this.onRevision(name, readRevisionSync(pathUnder(this.cwd, name)));
      if ((this.#head & 15) === 0 && performance.now() > until) break;
    }
    if (this.#head > 4096 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
    for (const wake of this.#waiters.splice(0)) wake();
    if (this.size > 0) this.#schedule();
  }
}
