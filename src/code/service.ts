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
import { DETAIL_PAGE_MAX_BYTES, PAGE_FRAME_RESERVE_CHARS } from "../core/limits.js";
import { pageFromCursor } from "./cursor-pages.js";
import { resolveSearchTarget } from "./path-policy.js";
import { baseData, frameText, pageData, pageNotes, shownData } from "./render/answer.js";
import { type ContextBudget, type ContextUsage, DEFAULT_BUDGET, resolveBudget } from "./render/budget.js";
import { renderDetailPage } from "./render/detail-page.js";
import {
  type CodeSearchResponse,
  detailsResponse,
  emptyResponse,
  renderDetails,
  summaryResponse,
} from "./render/responses.js";
import { type CodeSearchRequest, type NewSearchRequest, normalizeRequest } from "./request.js";
import type { CodeSearchInput } from "./schema.js";
import {
  type CallFollowUp,
  newFollowUp,
  SearchExecutor,
  type SearchExecutorOptions,
} from "./search/executor.js";
import { buildSnapshot } from "./snapshots/build.js";
import { wholeSequence } from "./snapshots/sequence.js";
import { MemorySnapshotStore, type SnapshotData, type SnapshotStore } from "./snapshots/store.js";
import { PageSources } from "./source/page-sources.js";

export type { CodeSearchResponse };

/**
 * `prestart` (see search/executor.ts) is for long-lived services; a one-shot process would only
 * start a ripgrep for nothing.
 */
export interface CodeSearchServiceOptions extends SearchExecutorOptions {
  readonly cwd: string;
  readonly store?: SnapshotStore;
}

export interface CallContext {
  readonly caller: string;
  readonly signal: AbortSignal;
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
  readonly #running = new Map<AbortController, Promise<unknown>>();
  #closed = false;

  constructor(options: CodeSearchServiceOptions) {
    this.#options = options;
    this.#store = options.store ?? new MemorySnapshotStore();
    this.#executor = new SearchExecutor(options);
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
    const call: RunningCall = { ...context, signal: controller.signal, followUp: newFollowUp() };
    const running =
      request.kind === "page"
        ? pageFromCursor(this.#store, this.#options.cwd, request, call.caller)
        : this.#search(request, call);
    this.#running.set(controller, running);
    try {
      const answer = await running;
      this.#executor.followUp(call.followUp);
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
    await Promise.allSettled(running.map(([, call]) => call));
    await this.#executor.close();
    await this.#store.close();
  }

  /**
   * Resolves once no background enumeration, and no start of a ripgrep for the next search, is
   * scheduled or running (tests, benchmarks, orderly shutdown).
   */
  idle(): Promise<void> {
    return this.#executor.idle();
  }

  async #search(request: NewSearchRequest, context: RunningCall): Promise<CodeSearchResponse> {
    const cwd = this.#options.cwd;
    const requestedTarget = await resolveSearchTarget(cwd, request.path);
    let target = requestedTarget;
    let run = await this.#executor.execute(request.query, target, context);
    let expanded = false;
    if (run.run.table.length === 0 && requestedTarget.isSubpath && request.scope === "expand") {
      // An empty subpath is not evidence of absence: search the project root, same filters.
      target = await resolveSearchTarget(cwd, undefined);
      run = await this.#executor.execute(request.query, target, context);
      expanded = true;
    }
    const snapshot = buildSnapshot(request.query, requestedTarget, target, expanded, run, false);
    const budget = request.modeImplicit ? resolveBudget(context.contextUsage) : DEFAULT_BUDGET;

    if (snapshot.matches.length === 0) return emptyResponse(snapshot, request, budget);
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

  async #summaryAnswer(
    snapshot: SnapshotData,
    context: CallContext,
    redact: boolean,
    budget: ContextBudget,
  ): Promise<CodeSearchResponse> {
    const stored = { ...snapshot, reusable: true };
    const id = await this.#store.put(context.caller, stored);
    return summaryResponse(this.#store, stored, id, 0, redact, budget);
  }

  async #firstDetails(
    snapshot: SnapshotData,
    context: CallContext,
    request: NewSearchRequest,
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
      true,
    );
    if (page.nextOffset === undefined)
      return detailsResponse(this.#store, snapshot, undefined, page, 0, sequence, request.redact, budget);
    const id = await this.#store.put(context.caller, snapshot);
    return detailsResponse(this.#store, snapshot, id, page, 0, sequence, request.redact, budget);
  }
}
