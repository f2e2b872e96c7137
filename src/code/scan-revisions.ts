/**
 * File revisions observed around a search. Before the content search, a names-only ripgrep
 * enumeration (same file scope, NUL-framed so names with newlines survive) feeds metadata reads:
 * at most MAX_SOURCE_REVISION_FILES files, at most MAX_CONCURRENT_STATS at once, with ripgrep's
 * output left unread while reads are behind (backpressure). After the search the retained files
 * are read again; only a file whose two observations agree is trusted. Everything else still
 * counts, and is reported as unverified.
 */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { MAX_CONCURRENT_STATS, MAX_SOURCE_REVISION_FILES, SCAN_PENDING_NAMES_MAX } from "../core/limits.js";
import { runOwnedProcess } from "./owned-process.js";
import type { SearchQuery } from "./request.js";
import { buildFilesArgs, type RgTarget } from "./rg-args.js";
import { LineSplitter } from "./rg-json.js";

/** What identifies one version of a file's bytes (nanosecond times, as decimal strings). */
export interface Revision {
  readonly size: string;
  readonly mtimeNs: string;
  readonly ctimeNs: string;
  readonly ino: string;
  readonly dev: string;
}

export function sameRevision(a: Revision | undefined, b: Revision | undefined): boolean {
  return (
    a !== undefined &&
    b !== undefined &&
    a.size === b.size &&
    a.mtimeNs === b.mtimeNs &&
    a.ctimeNs === b.ctimeNs &&
    a.ino === b.ino &&
    a.dev === b.dev
  );
}

/** Reads one file's revision, or undefined when it cannot be read (it then stays unverified). */
export async function readRevision(absolutePath: string): Promise<Revision | undefined> {
  try {
    const s = await stat(absolutePath, { bigint: true });
    if (!s.isFile()) return undefined;
    return {
      size: s.size.toString(),
      mtimeNs: s.mtimeNs.toString(),
      ctimeNs: s.ctimeNs.toString(),
      ino: s.ino.toString(),
      dev: s.dev.toString(),
    };
  } catch {
    return undefined;
  }
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
  readonly query: SearchQuery;
  readonly target: RgTarget;
  readonly signal?: AbortSignal;
  readonly onSpawn?: (pid: number) => void;
  readonly maxFiles?: number;
}

export async function scanRevisions(options: ScanOptions): Promise<RevisionScan> {
  const maxFiles = options.maxFiles ?? MAX_SOURCE_REVISION_FILES;
  const revisions = new Map<string, Revision>();
  const pool = new StatPool(MAX_CONCURRENT_STATS);
  let enumerated = 0;
  let capped = false;
  await runOwnedProcess(
    {
      command: options.rgPath,
      args: buildFilesArgs(options.query, options.target),
      cwd: options.target.cwd,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.onSpawn === undefined ? {} : { onSpawn: options.onSpawn }),
    },
    async (stdout) => {
      const splitter = new LineSplitter(0);
      const names: string[] = [];
      for await (const chunk of stdout) {
        splitter.push(chunk, (raw) => {
          names.push(raw.toString("utf8"));
        });
        for (const name of names.splice(0)) {
          enumerated++;
          if (revisions.size + pool.size >= maxFiles) {
            capped = true;
            continue;
          }
          // A lossy name cannot be opened under its decoded spelling; it stays unverified.
          if (name.includes("\uFFFD")) continue;
          pool.add(async () => {
            const revision = await readRevision(resolve(options.target.cwd, name));
            if (revision !== undefined) revisions.set(name, revision);
          });
        }
        if (capped) return "stop";
        // Backpressure: ripgrep waits on a full pipe while metadata reads catch up.
        if (pool.size > SCAN_PENDING_NAMES_MAX) await pool.drainTo(MAX_CONCURRENT_STATS);
      }
      return "done";
    },
  ).finally(() => pool.drainTo(0));
  return { revisions, enumerated, capped };
}

/** Reads revisions again for `names` (bounded concurrency) and returns the trusted ones. */
export async function recheckRevisions(
  rgCwd: string,
  names: Iterable<string>,
  before: ReadonlyMap<string, Revision>,
): Promise<Map<string, Revision>> {
  const trusted = new Map<string, Revision>();
  const pool = new StatPool(MAX_CONCURRENT_STATS);
  for (const name of names) {
    const first = before.get(name);
    if (first === undefined) continue;
    await pool.drainTo(MAX_CONCURRENT_STATS - 1);
    pool.add(async () => {
      const second = await readRevision(resolve(rgCwd, name));
      if (sameRevision(first, second)) trusted.set(name, first);
    });
  }
  await pool.drainTo(0);
  return trusted;
}

/** Runs tasks with at most `concurrency` in flight; `size` counts running and queued tasks. */
class StatPool {
  #running = 0;
  #queue: (() => Promise<void>)[] = [];
  #waiters: (() => void)[] = [];

  constructor(private readonly concurrency: number) {}

  get size(): number {
    return this.#running + this.#queue.length;
  }

  add(task: () => Promise<void>): void {
    this.#queue.push(task);
    this.#pump();
  }

  /** Resolves once at most `limit` tasks remain. */
  async drainTo(limit: number): Promise<void> {
    while (this.size > limit) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  #pump(): void {
    while (this.#running < this.concurrency && this.#queue.length > 0) {
      const task = this.#queue.shift() as () => Promise<void>;
      this.#running++;
      void task()
        .catch(() => {})
        .finally(() => {
          this.#running--;
          this.#pump();
          for (const wake of this.#waiters.splice(0)) wake();
        });
    }
  }
}
