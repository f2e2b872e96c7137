/**
 * The code_search policy: one normalized request in, one bounded answer out.
 *
 * A new search observes candidate revisions (or reuses recent observations of the same file
 * scope), runs ripgrep, observes the retained files again and builds a snapshot.
 * A zero-result subpath is retried from the project root unless `scope` is strict, and both
 * roots are recorded. Then, in order: an explicit `summary` gets a ranked file page; an implicit
 * `auto` result that is complete and fits its budget is returned whole; `auto` with an explicit
 * `limit`, and `matches`, get a detail page; any other `auto` result (too big, or partial) gets a
 * summary first. Every answer that numbers matches is kept and carries a cursor its numbers
 * belong to, so [n] works with inspect and matchIndices. A cursor continues only its stored
 * snapshot: summary cursors page files or start details (optionally for chosen files); match
 * cursors continue their bound selection. Partial retention is said in the text and in the data.
 */
import { setMaxListeners } from "node:events";
import { anySignal, cancelledError, throwIfAborted, withDeadline } from "../core/abort.js";
import { EvidentError } from "../core/errors.js";
import { DETAIL_PAGE_MAX_BYTES, PAGE_FRAME_RESERVE_CHARS } from "../core/limits.js";
import { type Phrasing, phrasingFor } from "../core/phrasing.js";
import { Slots } from "../core/slots.js";
import { analysisPageFromCursor, firstAnalysisAnswer } from "./analysis/answers.js";
import { type AnyOfScan, scanAnyOf } from "./analysis/any-of.js";
import { impactOf } from "./analysis/impact.js";
import { navigate } from "./analysis/navigation.js";
import type { AnalysisScans } from "./analysis/sources.js";
import {
  type AnalysisBounds,
  type AnalysisDraft,
  DEFAULT_ANALYSIS_BOUNDS,
  retain,
} from "./analysis/store.js";
import { MirrorCache } from "./changes/mirrors.js";
import { admittedLines, type ChangeScope, openChangeScope, type ScopeBuild } from "./changes/scope.js";
import { ContentIds } from "./changes/worktree.js";
import { pageFromCursor } from "./cursor-pages.js";
import { Git } from "./git/process.js";
import { continueSource } from "./inspect/answer.js";
import { inspect } from "./inspect/inspection.js";
import { type PathRules, resolveSearchTarget, type SearchTarget } from "./path-policy.js";
import { frameText, isPartial } from "./render/answer.js";
import { type ContextBudget, type ContextUsage, DEFAULT_BUDGET, resolveBudget } from "./render/budget.js";
import { renderDetailPage } from "./render/detail-page.js";
import {
  type CodeSearchResponse,
  detailsResponse,
  emptyResponse,
  type KeptOrNot,
  renderDetails,
  summaryResponse,
  wholeResponse,
} from "./render/responses.js";
import {
  type AnyOfRequest,
  type ChangeSpec,
  type CodeSearchRequest,
  type NewSearchRequest,
  normalizeRequest,
  type PageRequest,
  type StructureRequest,
} from "./request.js";
import type { CodeSearchInput } from "./schema.js";
import {
  type CallFollowUp,
  newFollowUp,
  SearchExecutor,
  type SearchExecutorOptions,
} from "./search/executor.js";
import { type CodeSearchSettings, codeSearchSettings } from "./settings.js";
import type { ChangesSummary } from "./snapshots/analysis.js";
import { buildSnapshot, snapshotFromLines } from "./snapshots/build.js";
import { wholeSequence } from "./snapshots/sequence.js";
import { MemorySnapshotStore, type SnapshotData, type SnapshotStore } from "./snapshots/store.js";
import { PageSources } from "./source/page-sources.js";
import { structureSearch } from "./structure/search.js";
import { structureSnapshot } from "./structure/snapshot.js";
import type { SyntaxCacheOptions } from "./syntax/cache.js";
import { SyntaxLayer } from "./syntax/layer.js";

export type { CodeSearchResponse };

export interface CodeSearchServiceOptions extends SearchExecutorOptions {
  readonly cwd: string;
  readonly store?: SnapshotStore;
  /** What an analysis result may keep (tests make it small). */
  readonly analysisBounds?: AnalysisBounds;
  /** Files a change scope covers at most (tests make it small); CHANGES_MAX_FILES by default. */
  readonly changesMaxFiles?: number;
  readonly syntaxCache?: SyntaxCacheOptions;
  /** Observes every parse the syntax layer runs (tests). */
  readonly onParse?: (path: string) => void;
  /** Overrides of what the environment sets (see settings.ts). */
  readonly settings?: Partial<CodeSearchSettings>;
  /**
   * What the surface adds to the path policy: evident's own files, and confinement to `cwd` for
   * remote callers (see path-policy.ts).
   */
  readonly pathRules?: PathRules;
}

export interface CallContext {
  readonly caller: string;
  readonly signal: AbortSignal;
  /**
   * When the call was received (`Date.now()`): the deadline counts from it, so time spent before
   * the service ran the call (loading the service, say) is part of the call's time.
   */
  readonly receivedAt?: number;
  readonly contextUsage?: ContextUsage | undefined;
  /** Matches retained so far by the running search (progress reporting). */
  readonly onMatches?: (count: number) => void;
}

/** A call in progress: its context and what it leaves for after its answer. */
interface RunningCall extends CallContext {
  readonly followUp: CallFollowUp;
}

export class CodeSearchService {
  readonly #options: CodeSearchServiceOptions;
  readonly #store: SnapshotStore;
  readonly #executor: SearchExecutor;
  readonly #syntax: SyntaxLayer;
  readonly #settings: CodeSearchSettings;
  readonly #slots: Slots;
  readonly #phrasing: Phrasing;
  /** Aborts every running call when the service closes. */
  readonly #closing = new AbortController();
  readonly #running = new Set<Promise<unknown>>();
  #git: Git | undefined;
  readonly #mirrors = new MirrorCache<ScopeBuild>();
  readonly #contentIds = new ContentIds();

  constructor(options: CodeSearchServiceOptions) {
    this.#options = options;
    this.#settings = { ...codeSearchSettings(options.env), ...options.settings };
    this.#store = options.store ?? new MemorySnapshotStore();
    this.#phrasing = options.phrasing ?? phrasingFor("mcp");
    // Every call in flight listens to it; there may be many more than ten.
    setMaxListeners(0, this.#closing.signal);
    this.#slots = options.slots ?? new Slots(this.#settings.maxProcesses);
    this.#executor = new SearchExecutor({ ...options, slots: this.#slots });
    this.#syntax = new SyntaxLayer({
      env: options.env,
      ...(options.syntaxCache === undefined ? {} : { cache: options.syntaxCache }),
      ...(options.onParse === undefined ? {} : { onParse: options.onParse }),
    });
  }

  get store(): SnapshotStore {
    return this.#store;
  }

  async run(input: CodeSearchInput, context: CallContext): Promise<CodeSearchResponse> {
    if (this.#closing.signal.aborted) throw new EvidentError("cancelled", "code_search is shutting down.");
    const request: CodeSearchRequest = normalizeRequest(input, this.#phrasing);
    const { deadlineMs } = this.#settings;
    const spent = context.receivedAt === undefined ? 0 : Math.max(0, Date.now() - context.receivedAt);
    // A call whose time went before it got here starts nothing.
    if (spent >= deadlineMs) throw overDeadline(deadlineMs);
    // The call's own signal: the caller's, the service closing, or the deadline, whichever first.
    const stopped = anySignal([context.signal, this.#closing.signal]);
    const deadline = withDeadline(stopped.signal, deadlineMs - spent, "code_search");
    const call: RunningCall = { ...context, signal: deadline.signal, followUp: newFollowUp() };
    const running = this.#dispatch(request, call);
    this.#running.add(running);
    try {
      const answer = await running;
      this.#executor.followUp(call.followUp);
      return answer;
    } catch (error) {
      if (deadline.signal.aborted && !stopped.signal.aborted) throw overDeadline(deadlineMs, error);
      throw error;
    } finally {
      this.#running.delete(running);
      deadline.dispose();
      stopped.dispose();
    }
  }

  /**
   * Stops running searches and background enumerations, awaiting their processes, and drops
   * every snapshot.
   */
  async close(): Promise<void> {
    this.#closing.abort(cancelledError());
    await Promise.allSettled([...this.#running]);
    await this.#executor.close();
    await this.#mirrors.close();
    this.#syntax.close();
    await this.#store.close();
  }

  /**
   * Resolves once no background enumeration, and no start of a ripgrep for the next search, is
   * scheduled or running (tests, benchmarks, orderly shutdown).
   */
  idle(): Promise<void> {
    return this.#executor.idle();
  }

  #dispatch(request: CodeSearchRequest, call: RunningCall): Promise<CodeSearchResponse> {
    switch (request.kind) {
      case "page":
        return this.#page(request, call.caller);
      case "anyOf":
        return this.#anyOf(request, call);
      case "inspect":
        return inspect(
          {
            cwd: this.#options.cwd,
            ...(this.#options.pathRules === undefined ? {} : { pathRules: this.#options.pathRules }),
            store: this.#store,
            syntax: this.#syntax,
            caller: call.caller,
            signal: call.signal,
            phrasing: this.#phrasing,
          },
          request,
        );
      case "impact":
        return this.#analysis(request.limit, request.redact, call, () =>
          impactOf(
            {
              cwd: this.#options.cwd,
              ...(this.#options.pathRules === undefined ? {} : { pathRules: this.#options.pathRules }),
              store: this.#store,
              syntax: this.#syntax,
              git: this.#gitRunner(),
              scans: this.#scans(call),
              bounds: this.#analysisBounds(),
              caller: call.caller,
              signal: call.signal,
            },
            request,
          ),
        );
      case "navigate":
        return this.#analysis(request.limit, request.redact, call, () =>
          navigate(
            {
              cwd: this.#options.cwd,
              ...(this.#options.pathRules === undefined ? {} : { pathRules: this.#options.pathRules }),
              syntax: this.#syntax,
              git: this.#gitRunner(),
              scans: this.#scans(call),
              signal: call.signal,
            },
            request,
          ),
        );
      case "source-page":
        return continueSource(
          { store: this.#store, caller: call.caller, phrasing: this.#phrasing },
          request.sourceCursor,
          request.redact,
        );
      case "structure":
      case "search":
        return this.#search(request, call);
    }
  }

  #page(request: PageRequest, caller: string): Promise<CodeSearchResponse> {
    // Decoding first keeps a malformed cursor the first error reported, whatever its kind.
    const state = this.#store.decodeCursor(request.cursor);
    return state.kind === "analysis"
      ? analysisPageFromCursor(this.#store, request, caller, state, this.#phrasing)
      : pageFromCursor(this.#store, this.#options.cwd, request, caller, this.#phrasing);
  }

  async #anyOf(request: AnyOfRequest, context: RunningCall): Promise<CodeSearchResponse> {
    const cwd = this.#options.cwd;
    const requested = await resolveSearchTarget(cwd, request.path, this.#options.pathRules);
    const at = (target: SearchTarget): Promise<AnyOfScan & { changes?: ChangesSummary }> => {
      const changes = request.changes;
      if (changes === undefined) {
        return scanAnyOf(
          request,
          async (query, signal) => {
            const { run, trusted } = await this.#executor.execute(query, target, { ...context, signal });
            return {
              table: run.table,
              partialReason: run.partialReason,
              longLineKey: run.longLineKey,
              searchErrors: run.searchErrors,
              trusted,
            };
          },
          undefined,
          context.signal,
        );
      }
      return this.#inChanges(target, changes, context.signal, async (scope) => ({
        ...(await scanAnyOf(
          request,
          (query, signal) => scope.scan(query, signal),
          (paths) => scope.admission(paths, context.signal),
          context.signal,
        )),
        changes: scope.summary(),
      }));
    };
    let target = requested;
    let scanned = await at(target);
    let expanded = false;
    const covered =
      Object.values(scanned.coverage).every((fact) => fact.status === "complete") &&
      (scanned.changes?.notCovered.length ?? 0) === 0;
    if (scanned.items.length === 0 && covered && requested.isSubpath && request.scope === "expand") {
      // An empty subpath is not evidence of absence: search the project root, same filters (not
      // one whose scan was cut: widening it would claim nothing matched there).
      target = await resolveSearchTarget(cwd, undefined, this.#options.pathRules);
      scanned = await at(target);
      expanded = true;
    }
    const data = retain(
      {
        operation: "anyOf",
        subject: `anyOf ${request.terms.length} terms (exact text, ${caseText(request)})`,
        requestedRoot: requested.requested,
        effectiveRoot: target.requested,
        expanded,
        rgCwd: target.rg.cwd,
        terms: request.terms,
        ...scanned,
        notes: [],
        fileScope: { globs: request.query.globs, excludes: request.query.excludes },
      },
      this.#options.analysisBounds ?? DEFAULT_ANALYSIS_BOUNDS,
    );
    return firstAnalysisAnswer(
      this.#store,
      data,
      context.caller,
      request.limit,
      request.redact,
      this.#phrasing,
    );
  }

  /** An analysis draft admitted by the store's policy and answered with its first page. */
  async #analysis(
    limit: number | undefined,
    redact: boolean,
    call: RunningCall,
    draft: () => Promise<AnalysisDraft>,
  ): Promise<CodeSearchResponse> {
    const data = retain(await draft(), this.#analysisBounds());
    return firstAnalysisAnswer(this.#store, data, call.caller, limit, redact, this.#phrasing);
  }

  #analysisBounds(): AnalysisBounds {
    return this.#options.analysisBounds ?? DEFAULT_ANALYSIS_BOUNDS;
  }

  #gitRunner(): Git {
    this.#git ??= new Git({
      env: this.#options.env,
      onSpawn: this.#options.onProcessSpawn,
      slots: this.#slots,
    });
    return this.#git;
  }

  /** The ordinary scans, as analyses use them. */
  #scans(call: RunningCall): AnalysisScans {
    return {
      scan: async (query, target, signal) => {
        const { run, trusted } = await this.#executor.execute(query, target, { ...call, signal });
        return {
          table: run.table,
          partialReason: run.partialReason,
          longLineKey: run.longLineKey,
          searchErrors: run.searchErrors,
          trusted,
        };
      },
      files: (query, target, signal) => this.#executor.listFiles(query, target, signal),
    };
  }

  /** Runs `work` over the change scope of `target`, removing the scope's files after it. */
  async #inChanges<T>(
    target: SearchTarget,
    spec: ChangeSpec,
    signal: AbortSignal,
    work: (scope: ChangeScope) => Promise<T>,
  ): Promise<T> {
    const scope = await openChangeScope(
      {
        git: this.#gitRunner(),
        mirrors: this.#mirrors,
        contentIds: this.#contentIds,
        rgPath: await this.#executor.rgPath(),
        retention: this.#options.retention,
        onSpawn: this.#options.onProcessSpawn,
        slots: this.#slots,
        phrasing: this.#phrasing,
        maxFiles: this.#options.changesMaxFiles,
      },
      target,
      spec,
      signal,
    );
    try {
      return await work(scope);
    } finally {
      await scope.dispose();
    }
  }

  async #search(
    request: NewSearchRequest | StructureRequest,
    context: RunningCall,
  ): Promise<CodeSearchResponse> {
    const cwd = this.#options.cwd;
    const requestedTarget = await resolveSearchTarget(cwd, request.path, this.#options.pathRules);
    const at = async (target: SearchTarget, expanded: boolean): Promise<SnapshotData> => {
      if (request.kind === "structure") {
        const run = await structureSearch(
          {
            rgPath: await this.#executor.rgPath(),
            syntax: this.#syntax,
            signal: context.signal,
            onSpawn: this.#options.onProcessSpawn,
            slots: this.#slots,
          },
          request,
          target,
        );
        return structureSnapshot(request, requestedTarget, target, expanded, run);
      }
      if (request.changes === undefined) {
        const run = await this.#executor.execute(request.query, target, context);
        return buildSnapshot(request.query, requestedTarget, target, expanded, run);
      }
      const lines = await this.#inChanges(target, request.changes, context.signal, async (scope) => {
        const scanned = await scope.scan(request.query, context.signal);
        const admit = await scope.admission(
          scanned.table.list.map((m) => m.path),
          context.signal,
        );
        return { ...scanned, matches: admittedLines(scanned.table.list, admit), changes: scope.summary() };
      });
      return snapshotFromLines(request.query, requestedTarget, target, expanded, lines);
    };
    let snapshot = await at(requestedTarget, false);
    if (
      snapshot.matches.length === 0 &&
      !isPartial(snapshot) &&
      requestedTarget.isSubpath &&
      request.scope === "expand"
    ) {
      // An empty subpath is not evidence of absence: search the project root, same filters. One
      // cut before it kept a match is not empty: widening it would claim nothing matched there.
      snapshot = await at(await resolveSearchTarget(cwd, undefined, this.#options.pathRules), true);
    }
    // Stopped while its last files were re-checked: no answer is built after the stop.
    throwIfAborted(context.signal);
    const budget = request.modeImplicit ? resolveBudget(context.contextUsage) : DEFAULT_BUDGET;

    if (snapshot.matches.length === 0) return emptyResponse(snapshot, request, budget, this.#phrasing);
    if (request.mode === "summary") return this.#summaryAnswer(snapshot, context, request.redact, budget);
    if (request.mode === "matches" || request.limit !== undefined) {
      return this.#firstDetails(snapshot, context, request, DEFAULT_BUDGET);
    }
    if (!isPartial(snapshot)) {
      const sources = new PageSources(snapshot.rgCwd, snapshot.trustedRevisions, { justChecked: true });
      const frame = frameText(snapshot, budget, this.#phrasing);
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
        // Complete and compact: everything is here, kept only so that its numbers can be inspected.
        const kept = await this.#keep(snapshot, context.caller);
        return wholeResponse(
          this.#store,
          snapshot,
          kept,
          frame,
          whole,
          request.redact,
          budget,
          this.#phrasing,
        );
      }
    }
    return this.#summaryAnswer(snapshot, context, request.redact, budget);
  }

  async #summaryAnswer(
    snapshot: SnapshotData,
    context: CallContext,
    redact: boolean,
    budget: ContextBudget,
  ): Promise<CodeSearchResponse> {
    const id = await this.#store.put(context.caller, snapshot);
    return summaryResponse(this.#store, snapshot, id, 0, redact, budget, this.#phrasing);
  }

  /**
   * Keeps a complete result whose every match is in the answer: only inspection by number needs
   * it, so a store that cannot keep it (a shared store down, a cache directory that cannot be
   * written) costs the numbers, said in the answer, not the answer.
   */
  async #keep(snapshot: SnapshotData, caller: string): Promise<KeptOrNot> {
    try {
      return { id: await this.#store.put(caller, snapshot) };
    } catch (error) {
      if (error instanceof EvidentError && NOT_KEPT.has(error.code)) return { error };
      throw error;
    }
  }

  async #firstDetails(
    snapshot: SnapshotData,
    context: CallContext,
    request: NewSearchRequest | StructureRequest,
    budget: ContextBudget,
  ): Promise<CodeSearchResponse> {
    const sequence = wholeSequence(snapshot);
    const page = await renderDetails(
      snapshot,
      sequence,
      0,
      request.limit,
      request.context,
      request.redact,
      this.#phrasing,
      true,
    );
    const kept =
      page.nextOffset === undefined
        ? await this.#keep(snapshot, context.caller)
        : { id: await this.#store.put(context.caller, snapshot) };
    return detailsResponse(
      this.#store,
      snapshot,
      kept,
      page,
      0,
      sequence,
      request.redact,
      budget,
      this.#phrasing,
    );
  }
}

/** A store's failures that leave a complete answer without its numbers rather than fail it. */
const NOT_KEPT: ReadonlySet<string> = new Set(["store_unavailable", "configuration_error"]);

function caseText(request: AnyOfRequest): string {
  const { caseMode, wholeWord } = request.query;
  const mode =
    caseMode === "smart"
      ? "smart case per term"
      : caseMode === "insensitive"
        ? "ignoring case"
        : "exact case";
  return wholeWord ? `${mode}, whole words` : mode;
}

function overDeadline(deadlineMs: number, cause?: unknown): EvidentError {
  return new EvidentError(
    "deadline_exceeded",
    `code_search did not finish within ${deadlineMs} ms; narrow it with path, glob or exclude, or simplify the pattern.`,
    { details: { deadline_ms: deadlineMs }, ...(cause === undefined ? {} : { cause }) },
  );
}
