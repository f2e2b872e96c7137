/**
 * The code_search policy: one normalized request in, one bounded answer out.
 *
 * A new search observes candidate revisions (or reuses recent observations of the same file
 * scope), runs ripgrep, observes the retained files again and builds a snapshot.
 * A zero-result subpath is retried from the project root unless `scope` is strict, and both
 * roots are recorded. Then, in order: an explicit `summary` gets a ranked file page; an implicit
 * `auto` result that is complete and fits its budget is returned whole, with no cursor; `auto`
 * with an explicit `limit`, and `matches`, get a detail page; any other `auto` result (too big, or
 * partial) gets a summary first. A cursor continues only its stored snapshot: summary cursors
 * page files or start details (optionally for chosen files); match cursors continue their bound
 * selection. Partial retention is said in the text and in the data.
 */
import { cancelledError } from "../core/abort.js";
import { EvidentError } from "../core/errors.js";
import {
  DETAIL_PAGE_DEFAULT_MATCHES,
  DETAIL_PAGE_MAX_BYTES,
  PAGE_FRAME_RESERVE_CHARS,
} from "../core/limits.js";
import type { Logger } from "../core/logger.js";
import {
  baseData,
  describeQuery,
  fileRow,
  frameText,
  notesText,
  pageData,
  pageNotes,
  rootName,
  shownData,
} from "./answer.js";
import { type ContextBudget, type ContextUsage, DEFAULT_BUDGET, resolveBudget } from "./budget.js";
import {
  type DetailPage,
  displayPath,
  type MatchSequence,
  printablePath,
  renderDetailPage,
  wholeSequence,
} from "./format.js";
import { resolveSearchTarget, type SearchTarget } from "./path-policy.js";
import { type PrestartOptions, PrestartSlot } from "./prestart.js";
import {
  type CodeSearchRequest,
  type NewSearchRequest,
  normalizeRequest,
  type PageRequest,
  type SearchQuery,
} from "./request.js";
import { RevisionCache, type RevisionCacheOptions } from "./revision-cache.js";
import { buildFilesArgs } from "./rg-args.js";
import { resolveRgPath } from "./rg-path.js";
import {
  type ContentSearchStart,
  contentSearchKey,
  DEFAULT_RETENTION,
  type RetentionBounds,
  runContentSearch,
  startContentSearch,
} from "./rg-search.js";
import {
  type Revision,
  recheckRevisions,
  type ScanOptions,
  scanRevisions,
  scanSingleFile,
} from "./scan-revisions.js";
import type { CodeSearchInput, CodeSearchOutput } from "./schema.js";
import { buildSnapshot, choosePaths, type Execution, selectionSequence } from "./snapshot-build.js";
import {
  type CursorState,
  MemorySnapshotStore,
  type SnapshotData,
  type SnapshotStore,
  selectionSignature,
} from "./snapshot-store.js";
import { PageSources } from "./source.js";
import { renderSummaryPage } from "./summary.js";

export interface CodeSearchServiceOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  readonly store?: SnapshotStore;
  readonly retention?: RetentionBounds;
  readonly revisionCache?: RevisionCacheOptions;
  /** Observes every ripgrep child started (process-table checks in tests, diagnostics). */
  readonly onProcessSpawn?: (pid: number) => void;
  /**
   * Keep a ripgrep waiting for the next search with the last one's options and file scope (see
   * prestart.ts). For long-lived services; a one-shot process would only start one for nothing.
   */
  readonly prestart?: PrestartOptions;
}

export interface CallContext {
  readonly caller: string;
  readonly signal: AbortSignal;
  readonly contextUsage?: ContextUsage | undefined;
  /** Matches retained so far by the running search (progress reporting). */
  readonly onMatches?: (count: number) => void;
}

/**
 * A call in progress: its context, the stale file scopes to enumerate again after it, and the
 * search whose ripgrep to start ahead for the next one.
 */
interface RunningCall extends CallContext {
  readonly due: Map<string, ScanOptions>;
  next?: { readonly key: string; readonly start: ContentSearchStart };
}

export interface CodeSearchResponse {
  readonly text: string;
  readonly data: CodeSearchOutput;
}

export class CodeSearchService {
  readonly #options: CodeSearchServiceOptions;
  readonly #store: SnapshotStore;
  #rgPath: Promise<string> | undefined;
  readonly #running = new Map<AbortController, Promise<unknown>>();
  readonly #revisions: RevisionCache;
  /** Background enumerations of stale file scopes, one per scope; close() stops and awaits them. */
  readonly #refreshes = new Map<
    string,
    { readonly controller: AbortController; readonly done: Promise<void> }
  >();
  readonly #prestart: PrestartSlot | undefined;
  /** Scheduled or running starts of the next search's ripgrep. */
  readonly #prestarting = new Set<Promise<void>>();
  #closed = false;

  constructor(options: CodeSearchServiceOptions) {
    this.#options = options;
    this.#store = options.store ?? new MemorySnapshotStore();
    this.#revisions = new RevisionCache(options.revisionCache);
    this.#prestart =
      options.prestart === undefined
        ? undefined
        : new PrestartSlot({
            ...options.prestart,
            onError: (error) => options.logger.debug("ripgrep not started ahead", { error }),
          });
  }

  get store(): SnapshotStore {
    return this.#store;
  }

  async run(input: CodeSearchInput, context: CallContext): Promise<CodeSearchResponse> {
    if (this.#closed) throw new EvidentError("cancelled", "code_search is shutting down.");
    const request: CodeSearchRequest = normalizeRequest(input);
    // Each call gets its own signal so that close() can stop it without touching the caller's.
    const controller = new AbortController();
    const forward = () => controller.abort(context.signal.reason);
    if (context.signal.aborted) forward();
    else context.signal.addEventListener("abort", forward, { once: true });
    const call: RunningCall = { ...context, signal: controller.signal, due: new Map() };
    const running = request.kind === "page" ? this.#page(request, call) : this.#search(request, call);
    this.#running.set(controller, running);
    try {
      const answer = await running;
      // Only now, so that a new enumeration never competes with the search that found it due.
      for (const [scope, scan] of call.due) this.#refresh(scope, scan);
      if (call.next !== undefined) this.#prestartNext(call.next.key, call.next.start);
      return answer;
    } finally {
      this.#running.delete(controller);
      context.signal.removeEventListener("abort", forward);
    }
  }

  /**
   * Stops running searches and background enumerations, awaiting their processes, and drops
   * every snapshot.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const running = [...this.#running];
    for (const [controller] of running) controller.abort(cancelledError());
    for (const { controller } of this.#refreshes.values()) controller.abort(cancelledError());
    await Promise.allSettled(running.map(([, call]) => call));
    await this.idle();
    await this.#prestart?.close();
    this.#revisions.clear();
    await this.#store.close();
  }

  /**
   * Resolves once no background enumeration, and no start of a ripgrep for the next search, is
   * scheduled or running (tests, benchmarks, orderly shutdown).
   */
  async idle(): Promise<void> {
    while (this.#refreshes.size > 0 || this.#prestarting.size > 0) {
      await Promise.all([...this.#refreshes.values()].map((r) => r.done));
      await Promise.all(this.#prestarting);
    }
  }

  #rg(): Promise<string> {
    this.#rgPath ??= resolveRgPath(this.#options.env).then((r) => r.path);
    // A failed resolution is not cached: the operator may fix the installation meanwhile.
    this.#rgPath.catch(() => {
      this.#rgPath = undefined;
    });
    return this.#rgPath;
  }

  // ------------------------------------------------------------------------------------------
  // New searches
  // ------------------------------------------------------------------------------------------

  async #search(request: NewSearchRequest, context: RunningCall): Promise<CodeSearchResponse> {
    const cwd = this.#options.cwd;
    const requestedTarget = await resolveSearchTarget(cwd, request.path);
    let target = requestedTarget;
    let run = await this.#execute(request.query, target, context);
    let expanded = false;
    if (run.run.table.length === 0 && requestedTarget.isSubpath && request.scope === "expand") {
      // An empty subpath is not evidence of absence: search the project root, same filters.
      target = await resolveSearchTarget(cwd, undefined);
      run = await this.#execute(request.query, target, context);
      expanded = true;
    }
    const snapshot = buildSnapshot(request.query, requestedTarget, target, expanded, run, false);
    const budget = request.modeImplicit ? resolveBudget(context.contextUsage) : DEFAULT_BUDGET;

    if (snapshot.matches.length === 0) return this.#empty(snapshot, request, budget);
    if (request.mode === "summary") return this.#summaryAnswer(snapshot, context, request.redact, budget);
    if (request.mode === "matches" || request.limit !== undefined) {
      return this.#firstDetails(snapshot, context, request, DEFAULT_BUDGET);
    }
    if (snapshot.partialReason === undefined) {
      const sources = new PageSources(snapshot.rgCwd, snapshot.trustedRevisions, { justChecked: true });
      const frame = frameText(snapshot, budget);
      const whole = await renderDetailPage({
        snapshot,
        sequence: wholeSequence(snapshot),
        offset: 0,
        maxMatches: Number.POSITIVE_INFINITY,
        maxChars: Math.max(0, budget.targetChars - frame.length - PAGE_FRAME_RESERVE_CHARS),
        maxBytes: DETAIL_PAGE_MAX_BYTES - Buffer.byteLength(frame) - PAGE_FRAME_RESERVE_CHARS,
        context: request.context,
        redact: request.redact,
        sources,
      });
      if (whole.nextOffset === undefined) {
        // Complete and compact: everything is here, so no snapshot outlives this answer.
        const text = `${frame}${whole.text}${pageNotes(whole)}`;
        return {
          text,
          data: baseData(snapshot, "details", budget, request.redact, {
            shownFrom: 1,
            shownTo: snapshot.matches.length,
            matches: shownData(whole),
            ...pageData(whole),
          }),
        };
      }
    }
    return this.#summaryAnswer(snapshot, context, request.redact, budget);
  }

  async #execute(query: SearchQuery, target: SearchTarget, context: RunningCall): Promise<Execution> {
    const rgPath = await this.#rg();
    const common = {
      rgPath,
      query,
      target: target.rg,
      signal: context.signal,
      ...(this.#options.onProcessSpawn === undefined ? {} : { onSpawn: this.#options.onProcessSpawn }),
    };
    const scope = JSON.stringify([target.rg.cwd, buildFilesArgs(query, target.rg)]);
    let single: ReadonlyMap<string, Revision> | undefined;
    if (!target.isDirectory) {
      // A single file needs no enumeration: its own metadata is the whole "before" observation.
      single = (await scanSingleFile(target.rg)).revisions;
    } else {
      const state = this.#revisions.state(scope);
      if (state === "missing") this.#revisions.remember(scope, (await scanRevisions(common)).revisions);
      // Older observations still serve as "before"; the new enumeration waits for the answer.
      else if (state === "stale") context.due.set(scope, common);
    }
    const key = this.#prestart === undefined ? undefined : contentSearchKey(common);
    const started = key === undefined ? undefined : await this.#prestart?.take(key, target.rg.cwd);
    if (key !== undefined) context.next = { key, start: common };
    const start = this.#revisions.begin();
    const run = await runContentSearch({
      ...common,
      retention: this.#options.retention ?? DEFAULT_RETENTION,
      ...(context.onMatches === undefined ? {} : { onMatches: context.onMatches }),
      ...(started === undefined ? {} : { started }),
    });
    // A file's matches arrive together: its name once per run, in first-seen order.
    const keys = new Set(run.runs.map((r) => r.key));
    const trusted =
      single === undefined
        ? await recheckRevisions(
            target.rg.cwd,
            keys,
            (name) => this.#revisions.before(scope, name, start),
            (name, revision) => this.#revisions.observe(scope, name, revision),
          )
        : await recheckRevisions(target.rg.cwd, keys, (name) => single.get(name));
    return { run, trusted: Object.fromEntries(trusted) };
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

  /**
   * Starts the next search's ripgrep from a later turn of the event loop, once the surface has
   * sent this call's answer, so the start does not delay it.
   */
  #prestartNext(key: string, start: ContentSearchStart): void {
    const slot = this.#prestart;
    if (slot === undefined) return;
    const work = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => {
        if (!this.#closed) slot.park(key, start.target.cwd, () => startContentSearch(start));
        return slot.settled();
      })
      .finally(() => this.#prestarting.delete(work));
    this.#prestarting.add(work);
  }

  #empty(snapshot: SnapshotData, request: NewSearchRequest, budget: ContextBudget): CodeSearchResponse {
    const q = describeQuery(snapshot.query);
    let text: string;
    if (snapshot.expanded) {
      text = `No matches for ${q} in "${snapshot.requestedRoot}", nor anywhere under the project root (searched too, same filters).`;
    } else if (request.path !== undefined && request.scope === "strict" && snapshot.requestedRoot !== ".") {
      text =
        `No matches for ${q} in "${snapshot.requestedRoot}". scope was strict, so the rest of the project ` +
        "was not searched: this is not evidence that the pattern is absent elsewhere.";
    } else {
      text = `No matches for ${q} in ${rootName(snapshot.effectiveRoot)}.`;
    }
    text += notesText(snapshot, budget);
    return { text: `${text}\n`, data: baseData(snapshot, "empty", budget, request.redact, {}) };
  }

  async #summaryAnswer(
    snapshot: SnapshotData,
    context: CallContext,
    redact: boolean,
    budget: ContextBudget,
  ): Promise<CodeSearchResponse> {
    const stored = { ...snapshot, reusable: true };
    const id = await this.#store.put(context.caller, stored);
    return this.#summaryPage(stored, id, 0, redact, budget);
  }

  #summaryPage(
    snapshot: SnapshotData,
    id: string,
    fileOffset: number,
    redact: boolean,
    budget: ContextBudget,
  ): CodeSearchResponse {
    const frame = frameText(snapshot, budget);
    const page = renderSummaryPage({
      snapshot,
      fileOffset,
      maxChars: Math.max(0, budget.targetChars - frame.length - PAGE_FRAME_RESERVE_CHARS),
      redact,
    });
    // One summary cursor serves both ways on: its offset is where the next file page starts.
    const nextFileOffset = page.nextFileOffset ?? snapshot.files.length;
    const cursor = this.#store.encodeCursor({ snapshotId: id, offset: nextFileOffset, kind: "summary" });
    const next = [
      `Matching lines: call code_search with {"cursor":"${cursor}"} (add "paths": [...] for chosen files, "limit" for page size, "context" for surrounding lines).`,
    ];
    if (page.nextFileOffset !== undefined) {
      const last = Math.min(snapshot.files.length, page.nextFileOffset + page.rows.length);
      next.push(`Files ${page.nextFileOffset + 1}-${last}: {"cursor":"${cursor}","mode":"summary"}.`);
    }
    if (page.previewsOmitted > 0) next.push(`${page.previewsOmitted} sample(s) left out to fit the budget.`);
    return {
      text: `${frame}${page.text}${next.join("\n")}\n`,
      data: baseData(snapshot, "summary", budget, redact, {
        cursor,
        cursorKind: "summary",
        files: page.rows.map(fileRow),
        filesFrom: fileOffset + 1,
        filesTo: fileOffset + page.rows.length,
        summaryPreviewsShown: page.previewsShown,
        summaryPreviewsOmitted: page.previewsOmitted,
      }),
    };
  }

  async #firstDetails(
    snapshot: SnapshotData,
    context: CallContext,
    request: NewSearchRequest,
    budget: ContextBudget,
  ): Promise<CodeSearchResponse> {
    const sequence = wholeSequence(snapshot);
    const page = await this.#renderDetails(
      snapshot,
      sequence,
      0,
      request.limit,
      request.context,
      request.redact,
      true,
    );
    if (page.nextOffset === undefined)
      return this.#detailsAnswer(snapshot, undefined, page, 0, sequence, request.redact, budget);
    const id = await this.#store.put(context.caller, snapshot);
    return this.#detailsAnswer(snapshot, id, page, 0, sequence, request.redact, budget);
  }

  // ------------------------------------------------------------------------------------------
  // Cursor pages
  // ------------------------------------------------------------------------------------------

  async #page(request: PageRequest, context: CallContext): Promise<CodeSearchResponse> {
    // The seed's order: malformed, missing, expired, wrong kind, option conflict, offset.
    const state = this.#store.decodeCursor(request.cursor);
    const snapshot = await this.#store.get(context.caller, state.snapshotId);
    if (state.kind === "matches" && request.mode === "summary") {
      throw new EvidentError(
        "cursor_wrong_kind",
        'This cursor continues matching lines; mode "summary" needs a summary cursor (omit mode).',
        { details: { field: "mode" } },
      );
    }
    if (request.conflicts.length > 0) {
      throw new EvidentError(
        "cursor_option_conflict",
        `${request.conflicts.join(", ")} cannot change a cursor's search; omit them, or start a new search without a cursor.`,
        { details: { field: request.conflicts[0] } },
      );
    }
    if (state.kind === "summary" && request.mode === "summary" && request.paths !== undefined) {
      throw new EvidentError(
        "cursor_option_conflict",
        'paths chooses files for matching lines; omit mode "summary" to read them.',
        { details: { field: "paths" } },
      );
    }
    const chosen =
      request.paths === undefined ? undefined : choosePaths(snapshot, this.#options.cwd, request.paths);
    const chosenSignature = chosen === undefined ? undefined : selectionSignature(chosen);
    if (state.kind === "matches" && chosenSignature !== undefined && chosenSignature !== state.selection) {
      throw new EvidentError(
        "cursor_option_conflict",
        "This cursor continues a fixed selection of files; omit paths, or start from the summary cursor to choose others.",
        { details: { field: "paths" } },
      );
    }
    const budget = DEFAULT_BUDGET;

    if (state.kind === "summary" && request.mode === "summary") {
      if (state.offset >= snapshot.files.length) {
        throw offsetInvalid(
          `there is no file page at ${state.offset + 1}; the result has ${snapshot.files.length} files.`,
        );
      }
      return this.#summaryPage(snapshot, state.snapshotId, state.offset, request.redact, budget);
    }

    let keys: readonly string[] | undefined;
    let offset = 0;
    if (state.kind === "matches") {
      offset = state.offset;
      if (state.selection !== undefined) {
        keys = await this.#store.selection(context.caller, state.snapshotId, state.selection);
        if (keys === undefined)
          throw offsetInvalid("its file selection is no longer known; start from the summary cursor.");
      }
    } else if (chosen !== undefined && chosenSignature !== undefined) {
      keys = chosen;
      await this.#store.rememberSelection(context.caller, state.snapshotId, chosenSignature, chosen);
    }
    const sequence = keys === undefined ? wholeSequence(snapshot) : selectionSequence(snapshot, keys);
    if (offset >= sequence.length) {
      throw offsetInvalid(
        `offset ${offset + 1} is past the ${sequence.length} matching lines of this selection.`,
      );
    }
    const page = await this.#renderDetails(
      snapshot,
      sequence,
      offset,
      request.limit,
      request.context,
      request.redact,
    );
    const selection = keys === undefined ? undefined : (chosenSignature ?? state.selection);
    if (page.nextOffset === undefined && !snapshot.reusable) {
      // The last forward page: nothing can reach this snapshot any more.
      await this.#store.release(context.caller, state.snapshotId);
    }
    return this.#detailsAnswer(
      snapshot,
      state.snapshotId,
      page,
      offset,
      sequence,
      request.redact,
      budget,
      selection,
      keys,
    );
  }

  #renderDetails(
    snapshot: SnapshotData,
    sequence: MatchSequence,
    offset: number,
    limit: number | undefined,
    context: number,
    redact: boolean,
    /** The first page of a new search, rendered right after its re-check (see PageSources). */
    justChecked = false,
  ): Promise<DetailPage> {
    const frame = frameText(snapshot, DEFAULT_BUDGET);
    return renderDetailPage({
      snapshot,
      sequence,
      offset,
      maxMatches: limit ?? DETAIL_PAGE_DEFAULT_MATCHES,
      maxChars: Math.max(0, DEFAULT_BUDGET.targetChars - frame.length - PAGE_FRAME_RESERVE_CHARS),
      maxBytes: DETAIL_PAGE_MAX_BYTES - Buffer.byteLength(frame) - PAGE_FRAME_RESERVE_CHARS,
      context,
      redact,
      sources: new PageSources(snapshot.rgCwd, snapshot.trustedRevisions, { justChecked }),
    });
  }

  #detailsAnswer(
    snapshot: SnapshotData,
    id: string | undefined,
    page: DetailPage,
    offset: number,
    sequence: MatchSequence,
    redact: boolean,
    budget: ContextBudget,
    selection?: string,
    keys?: readonly string[],
  ): CodeSearchResponse {
    const cursorState: CursorState | undefined =
      id === undefined || page.nextOffset === undefined
        ? undefined
        : { snapshotId: id, offset: page.nextOffset, kind: "matches", selection };
    const cursor = cursorState === undefined ? undefined : this.#store.encodeCursor(cursorState);
    const from = offset + 1;
    const to = offset + page.shown.length;
    const scope =
      keys === undefined ? "" : ` of ${keys.map((k) => printablePath(displayPath(k))).join(", ")}`;
    const lines = [`Matching lines ${from}-${to} of ${sequence.length}${scope}:`, page.text.trimEnd()];
    const notes = pageNotes(page);
    if (notes !== "") lines.push(notes.trimEnd());
    if (cursor !== undefined) {
      // Page options are not part of a cursor, so say how to keep them.
      lines.push(
        `Next page: call code_search with {"cursor":"${cursor}"} (matching lines ${to + 1}-${sequence.length}; ` +
          'repeat "limit", "context" or "redact" to keep them).',
      );
    }
    return {
      text: `${frameText(snapshot, budget)}${lines.join("\n")}\n`,
      data: baseData(snapshot, "details", budget, redact, {
        ...(cursor === undefined ? {} : { cursor, cursorKind: "matches" as const }),
        shownFrom: from,
        shownTo: to,
        matches: shownData(page),
        ...(keys === undefined ? {} : { selection: keys.map(displayPath) }),
        ...pageData(page),
      }),
    };
  }
}

function offsetInvalid(why: string): EvidentError {
  return new EvidentError("cursor_offset_invalid", `This cursor cannot be used: ${why}`, {
    details: { field: "cursor" },
  });
}
