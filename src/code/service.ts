/**
 * The code_search service: one normalized request in, one bounded answer out. request.ts turns
 * the input into one form of a closed union; the service bounds the call (deadline, caller's
 * signal, closing) and hands it to the form's handler in HANDLERS, each in the subsystem that
 * owns the form. Handlers get the service's parts and the call's context as one object.
 */
import { setMaxListeners } from "node:events";
import { anySignal, cancelledError, withDeadline } from "../core/abort.js";
import { EvidentError } from "../core/errors.js";
import { CODE_SEARCH_DEADLINE_MS, CODE_SEARCH_MAX_PROCESSES } from "../core/limits.js";
import { type Phrasing, phrasingFor } from "../core/phrasing.js";
import { Slots } from "../core/slots.js";
import type { AnalysisCall, AnalysisScans } from "./analysis/sources.js";
import { type AnalysisBounds, DEFAULT_ANALYSIS_BOUNDS } from "./analysis/store.js";
import { MirrorCache } from "./changes/mirrors.js";
import type { InChanges, ScopeBuild } from "./changes/scope.js";
import { ContentIds } from "./changes/worktree.js";
import { Git } from "./git/process.js";
import type { PathRules } from "./path-policy.js";
import type { ContextUsage } from "./render/budget.js";
import type { CodeSearchResponse } from "./render/responses.js";
import { type CodeSearchRequest, normalizeRequest } from "./request.js";
import type { CodeSearchInput } from "./schema.js";
import { answerSearch, type SearchCall } from "./search/answer.js";
import {
  type CallFollowUp,
  newFollowUp,
  SearchExecutor,
  type SearchExecutorOptions,
} from "./search/executor.js";
import { memorySnapshotStore, type SnapshotStore } from "./snapshots/store.js";
import { SyntaxLayer } from "./syntax/layer.js";

export type { CodeSearchResponse };

export interface CodeSearchServiceOptions extends SearchExecutorOptions {
  readonly cwd: string;
  readonly store?: SnapshotStore;
  /** What an analysis result may keep (tests make it small). */
  readonly analysisBounds?: AnalysisBounds;
  /** Files a change scope covers at most (tests make it small); CHANGES_MAX_FILES by default. */
  readonly changesMaxFiles?: number;
  /** Observes every parse the syntax layer runs (tests). */
  readonly onParse?: (path: string) => void;
  /** The operator's settings (config/ resolves them); the defaults of limits.ts otherwise. */
  readonly settings?: { readonly deadlineMs?: number; readonly maxProcesses?: number };
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

/** A call as its handler sees it: the service's parts and the call's own context. */
type Call = SearchCall & AnalysisCall & RunningCall;

type Handlers = {
  readonly [K in CodeSearchRequest["kind"]]: (
    call: Call,
    request: Extract<CodeSearchRequest, { kind: K }>,
  ) => Promise<CodeSearchResponse>;
};

/**
 * One handler per request form, each in the subsystem that owns it. A new form adds its shape to
 * the schema, its case to request.ts's union and its handler here. Only searches' modules load
 * with the service; the others' load on their form's first call, so a process that answers one
 * search (`evident grep`) loads none of them.
 */
const HANDLERS: Handlers = {
  search: answerSearch,
  structure: answerSearch,
  page: async (call, request) => (await import("./cursor-pages.js")).continueCursor(call, request),
  anyOf: async (call, request) => (await import("./analysis/answers.js")).answerAnyOf(call, request),
  impact: async (call, request) => (await import("./analysis/answers.js")).answerImpact(call, request),
  navigate: async (call, request) => (await import("./analysis/answers.js")).answerNavigation(call, request),
  inspect: async (call, request) => (await import("./inspect/inspection.js")).inspect(call, request),
  "source-page": async (call, request) => (await import("./inspect/answer.js")).continueSource(call, request),
};

export class CodeSearchService {
  readonly #options: CodeSearchServiceOptions;
  readonly #store: SnapshotStore;
  readonly #executor: SearchExecutor;
  readonly #syntax: SyntaxLayer;
  /** Overall deadline of one call. */
  readonly #deadlineMs: number;
  readonly #slots: Slots;
  readonly #phrasing: Phrasing;
  /** Aborts every running call when the service closes. */
  readonly #closing = new AbortController();
  readonly #running = new Set<Promise<unknown>>();
  readonly #git: Git;
  readonly #mirrors = new MirrorCache<ScopeBuild>();
  readonly #contentIds = new ContentIds();
  /** What every call's handler may use besides the call's own context. */
  readonly #parts: Omit<Call, keyof RunningCall | "scans">;

  constructor(options: CodeSearchServiceOptions) {
    this.#options = options;
    this.#deadlineMs = options.settings?.deadlineMs ?? CODE_SEARCH_DEADLINE_MS;
    this.#store = options.store ?? memorySnapshotStore();
    this.#phrasing = options.phrasing ?? phrasingFor("mcp");
    // Every call in flight listens to it; there may be many more than ten.
    setMaxListeners(0, this.#closing.signal);
    this.#slots = options.slots ?? new Slots(options.settings?.maxProcesses ?? CODE_SEARCH_MAX_PROCESSES);
    this.#executor = new SearchExecutor({ ...options, slots: this.#slots });
    this.#syntax = new SyntaxLayer({
      env: options.env,
      ...(options.onParse === undefined ? {} : { onParse: options.onParse }),
    });
    this.#git = new Git({ env: options.env, onSpawn: options.onProcessSpawn, slots: this.#slots });
    this.#parts = {
      cwd: options.cwd,
      pathRules: options.pathRules,
      store: this.#store,
      syntax: this.#syntax,
      executor: this.#executor,
      slots: this.#slots,
      onSpawn: options.onProcessSpawn,
      git: this.#git,
      analysisBounds: options.analysisBounds ?? DEFAULT_ANALYSIS_BOUNDS,
      inChanges: (target, spec, signal, work) => this.#inChanges(target, spec, signal, work),
      phrasing: this.#phrasing,
    };
  }

  get store(): SnapshotStore {
    return this.#store;
  }

  async run(input: CodeSearchInput, context: CallContext): Promise<CodeSearchResponse> {
    if (this.#closing.signal.aborted) throw new EvidentError("cancelled", "code_search is shutting down.");
    const request: CodeSearchRequest = normalizeRequest(input, this.#phrasing);
    const deadlineMs = this.#deadlineMs;
    const spent = context.receivedAt === undefined ? 0 : Math.max(0, Date.now() - context.receivedAt);
    // A call whose time went before it got here starts nothing.
    if (spent >= deadlineMs) throw overDeadline(deadlineMs);
    // The call's own signal: the caller's, the service closing, or the deadline, whichever first.
    const stopped = anySignal([context.signal, this.#closing.signal]);
    const deadline = withDeadline(stopped.signal, deadlineMs - spent, "code_search");
    const running: RunningCall = { ...context, signal: deadline.signal, followUp: newFollowUp() };
    const call: Call = { ...this.#parts, ...running, scans: this.#scans(running) };
    // The union's kinds and HANDLERS' keys are the same; TypeScript cannot pair them by itself.
    const handler = HANDLERS[request.kind] as (
      call: Call,
      request: CodeSearchRequest,
    ) => Promise<CodeSearchResponse>;
    const answer = handler(call, request);
    this.#running.add(answer);
    try {
      const result = await answer;
      this.#executor.followUp(running.followUp);
      return result;
    } catch (error) {
      if (deadline.signal.aborted && !stopped.signal.aborted) throw overDeadline(deadlineMs, error);
      throw error;
    } finally {
      this.#running.delete(answer);
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

  /** Resolves once no background enumeration is scheduled or running (tests, benchmarks, shutdown). */
  idle(): Promise<void> {
    return this.#executor.idle();
  }

  /** The ordinary scans, as analyses use them. */
  #scans(call: RunningCall): AnalysisScans {
    return {
      scan: async (query, target, signal) => {
        // Analyses read the scan's matches and keep items of their own: no snapshot records.
        const { run, trusted } = await this.#executor.execute(query, target, {
          ...call,
          signal,
          records: false,
        });
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
  readonly #inChanges: InChanges = async (target, spec, signal, work) => {
    const { openChangeScope } = await import("./changes/scope.js");
    const scope = await openChangeScope(
      {
        git: this.#git,
        mirrors: this.#mirrors,
        contentIds: this.#contentIds,
        rgPath: await this.#executor.rgPath(),
        env: this.#options.env,
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
  };
}

function overDeadline(deadlineMs: number, cause?: unknown): EvidentError {
  return new EvidentError(
    "deadline_exceeded",
    `code_search did not finish within ${deadlineMs} ms; narrow it with path, glob or exclude, or simplify the pattern.`,
    { details: { deadline_ms: deadlineMs }, ...(cause === undefined ? {} : { cause }) },
  );
}
