/**
 * Running ripgrep for new searches, with the state that outlives one call: candidate revisions
 * observed before a search (or recent observations of the same file scope, refreshed in the
 * background once the call has its answer), the content search itself, the re-check of the
 * retained files after it.
 */

import { resolve } from "node:path";
import { cancelledError } from "../../core/abort.js";
import type { Logger } from "../../core/logger.js";
import type { Phrasing } from "../../core/phrasing.js";
import type { Slots } from "../../core/slots.js";
import type { SearchTarget } from "../path-policy.js";
import type { SearchQuery } from "../request.js";
import { RevisionCache, type RevisionCacheOptions } from "../revisions/cache.js";
import {
  againstBefore,
  Recheck,
  type Revision,
  type ScanOptions,
  scanRevisions,
  scanSingleFile,
} from "../revisions/scan.js";
import { remoteFilesystem, settledRecheck } from "../revisions/settled.js";
import { buildFilesArgs } from "../rg/args.js";
import { resolveRgPath } from "../rg/binary.js";
import { DEFAULT_RETENTION, type RetentionBounds, runContentSearch } from "../rg/content-search.js";
import { listNames } from "../rg/names.js";
import type { Execution } from "../snapshots/build.js";

export interface SearchExecutorOptions {
  /** The environment ripgrep is looked up in (PATH) and runs in, as the adapter handed it (config/). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The operator's ripgrep binary (EVIDENT_RG_PATH), if set. */
  readonly rgPath?: string | undefined;
  readonly logger: Logger;
  readonly retention?: RetentionBounds;
  readonly revisionCache?: RevisionCacheOptions;
  /** Observes every ripgrep child started (process-table checks in tests, diagnostics). */
  readonly onProcessSpawn?: (pid: number) => void;
  /** Bounds the ripgreps running at once (see core/slots.ts); unbounded without. */
  readonly slots?: Slots;
  /** How advice in answers and errors is written for the surface (default: MCP's). */
  readonly phrasing?: Phrasing;
  /**
   * The process answers one call and exits (the `evident grep` command): no observation would
   * serve a later search, so none is made before the search; the retained files' change times
   * say whether they were settled before it began (revisions/settled.ts).
   */
  readonly oneShot?: boolean;
}

/** What one call leaves for after its answer: the stale file scopes to enumerate again. */
export interface CallFollowUp {
  readonly due: Map<string, ScanOptions>;
}

export function newFollowUp(): CallFollowUp {
  return { due: new Map() };
}

export interface ExecuteContext {
  readonly signal: AbortSignal;
  readonly onMatches?: ((count: number) => void) | undefined;
  readonly followUp: CallFollowUp;
  /** A snapshot will keep the matches (default true): cut compact records as they arrive. */
  readonly records?: boolean;
}

export class SearchExecutor {
  readonly #options: SearchExecutorOptions;
  #rgPath: Promise<string> | undefined;
  readonly #revisions: RevisionCache;
  /** Background enumerations of stale file scopes, one per scope; close() stops and awaits them. */
  readonly #refreshes = new Map<
    string,
    { readonly controller: AbortController; readonly done: Promise<void> }
  >();
  /** First enumerations of file scopes, shared by searches of the same scope that run at once. */
  readonly #enumerating = new Map<string, Promise<void>>();
  #closed = false;

  constructor(options: SearchExecutorOptions) {
    this.#options = options;
    this.#revisions = new RevisionCache(options.revisionCache);
  }

  async execute(query: SearchQuery, target: SearchTarget, context: ExecuteContext): Promise<Execution> {
    const rgPath = await this.rgPath();
    const common = {
      rgPath,
      env: this.#options.env,
      query,
      target: target.rg,
      signal: context.signal,
      ...(this.#options.slots === undefined ? {} : { slots: this.#options.slots }),
      ...(this.#options.onProcessSpawn === undefined ? {} : { onSpawn: this.#options.onProcessSpawn }),
    };
    const scope = JSON.stringify([target.rg.cwd, buildFilesArgs(query, target.rg)]);
    let single: ReadonlyMap<string, Revision> | undefined;
    let settled = false;
    if (!target.isDirectory) {
      // A single file needs no enumeration: its own metadata is the whole "before" observation.
      single = (await scanSingleFile(target.rg)).revisions;
    } else if (this.#options.oneShot === true && !remoteFilesystem(resolve(target.rg.cwd, target.rg.root))) {
      settled = true;
    } else {
      const state = this.#revisions.state(scope);
      if (state === "missing") await this.#enumerate(scope, common);
      // Older observations still serve as "before"; the new enumeration waits for the answer.
      else if (state === "stale") context.followUp.due.set(scope, common);
    }
    const start = this.#revisions.begin();
    const began = Date.now();
    // The files' second observations are read as ripgrep reports each one done.
    const recheck = settled
      ? settledRecheck(target.rg.cwd, began)
      : new Recheck(
          target.rg.cwd,
          single === undefined
            ? againstBefore(
                (name) => this.#revisions.before(scope, name, start),
                (name, revision) => this.#revisions.observe(scope, name, revision),
              )
            : againstBefore((name) => single.get(name)),
        );
    const run = await runContentSearch({
      ...common,
      retention: this.#options.retention ?? DEFAULT_RETENTION,
      onFile: (key) => recheck.add(key),
      ...(context.records === undefined ? {} : { records: context.records }),
      ...(context.onMatches === undefined ? {} : { onMatches: context.onMatches }),
      ...(this.#options.phrasing === undefined ? {} : { phrasing: this.#options.phrasing }),
    });
    const trusted = await recheck.done();
    return { run, trusted: Object.fromEntries(trusted) };
  }

  /**
   * Every file of a target's scope, as ripgrep prints them (NUL-framed, so names with line
   * breaks survive), protected areas dropped: the names-only listing, without its metadata.
   */
  async listFiles(query: SearchQuery, target: SearchTarget, signal: AbortSignal): Promise<string[]> {
    return listNames({
      rgPath: await this.rgPath(),
      env: this.#options.env,
      args: buildFilesArgs(query, target.rg),
      target: target.rg,
      signal,
      onSpawn: this.#options.onProcessSpawn,
      slots: this.#options.slots,
    });
  }

  /** What a call left for after its answer; only then, so it never competes with the search. */
  followUp(call: CallFollowUp): void {
    for (const [scope, scan] of call.due) this.#refresh(scope, scan);
  }

  /** Stops background enumerations and awaits them. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const { controller } of this.#refreshes.values()) controller.abort(cancelledError());
    await this.idle();
    this.#revisions.clear();
  }

  /** Resolves once no background enumeration is scheduled or running (tests, benchmarks, shutdown). */
  async idle(): Promise<void> {
    while (this.#refreshes.size > 0) await Promise.all([...this.#refreshes.values()].map((r) => r.done));
  }

  /**
   * Enumerates a scope no search has seen, once for every search of it that starts meanwhile
   * (the candidate scans of an anyOf run together). A search whose own signal still runs
   * enumerates again if the shared one failed (another caller's cancellation, for instance).
   */
  async #enumerate(scope: string, scan: ScanOptions): Promise<void> {
    let running = this.#enumerating.get(scope);
    if (running === undefined) {
      running = scanRevisions(scan)
        .then((result) => this.#revisions.remember(scope, result.revisions))
        .finally(() => this.#enumerating.delete(scope));
      this.#enumerating.set(scope, running);
      return running;
    }
    try {
      await running;
    } catch (error) {
      if (scan.signal?.aborted === true) throw error;
      if (this.#revisions.state(scope) === "missing") await this.#enumerate(scope, scan);
    }
  }

  /** The environment ripgrep runs in (the caller's, as handed down). */
  get env(): Readonly<Record<string, string | undefined>> {
    return this.#options.env;
  }

  /** The ripgrep executable (resolved once; a failure is tried again next time). */
  rgPath(): Promise<string> {
    this.#rgPath ??= resolveRgPath(this.#options.rgPath, this.#options.env).then((r) => r.path);
    // A failed resolution is not cached: the operator may fix the installation meanwhile.
    this.#rgPath.catch(() => {
      this.#rgPath = undefined;
    });
    return this.#rgPath;
  }

  /**
   * Enumerates a stale scope again once the call that found it stale has its answer: from a
   * later turn of the event loop, so that the surface sends that answer first (it does so
   * without further I/O), and on its own signal, since the call ends first. A failed attempt
   * leaves the scope stale, so the next search of it tries again.
   */
  #refresh(scope: string, scan: ScanOptions): void {
    if (this.#closed || this.#refreshes.has(scope)) return;
    const controller = new AbortController();
    const done = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => scanRevisions({ ...scan, signal: controller.signal }))
      .then((result) => {
        if (!controller.signal.aborted) this.#revisions.remember(scope, result.revisions);
      })
      .catch((error: unknown) => {
        if (!controller.signal.aborted)
          this.#options.logger.debug("file scope not enumerated again", { error });
      })
      .finally(() => this.#refreshes.delete(scope));
    this.#refreshes.set(scope, { controller, done });
  }
}
