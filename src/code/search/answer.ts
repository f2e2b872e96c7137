/**
 * The answer to a pattern or structure search. A new search observes candidate revisions (or
 * reuses recent observations of the same file scope), runs ripgrep, observes the retained files
 * again and builds a snapshot. A zero-result subpath is retried from the project root unless
 * `scope` is strict, and both roots are recorded. Then, in order: an explicit `summary` gets a
 * ranked file page; an implicit `auto` result that is complete and fits its budget is returned
 * whole; `auto` with an explicit `limit`, and `matches`, get a detail page; any other `auto`
 * result (too big, or partial) gets a summary first. Every answer that numbers matches is kept
 * and carries a cursor its numbers belong to, so [n] works with inspect and matchIndices.
 */
import { throwIfAborted } from "../../core/abort.js";
import { EvidentError } from "../../core/errors.js";
import { DETAIL_PAGE_MAX_BYTES, PAGE_FRAME_RESERVE_CHARS } from "../../core/limits.js";
import type { Phrasing } from "../../core/phrasing.js";
import type { Slots } from "../../core/slots.js";
import type { InChanges } from "../changes/scope.js";
import { type PathRules, resolveSearchTarget, type SearchTarget } from "../path-policy.js";
import { frameText, isPartial } from "../render/answer.js";
import { type ContextBudget, type ContextUsage, DEFAULT_BUDGET, resolveBudget } from "../render/budget.js";
import { renderDetailPage } from "../render/detail-page.js";
import {
  type CodeSearchResponse,
  detailsResponse,
  emptyResponse,
  type KeptOrNot,
  renderDetails,
  summaryResponse,
  wholeResponse,
} from "../render/responses.js";
import type { NewSearchRequest, StructureRequest } from "../request.js";
import { buildSnapshot, snapshotFromLines } from "../snapshots/build.js";
import { wholeSequence } from "../snapshots/sequence.js";
import type { SnapshotData, SnapshotStore } from "../snapshots/store.js";
import { PageSources } from "../source/page-sources.js";
import type { SyntaxLayer } from "../syntax/layer.js";
import type { ExecuteContext, SearchExecutor } from "./executor.js";

/** What a search's answer uses: the service's parts and the call's own context. */
export interface SearchCall extends ExecuteContext {
  readonly cwd: string;
  readonly pathRules: PathRules | undefined;
  readonly store: SnapshotStore;
  readonly syntax: SyntaxLayer;
  readonly executor: SearchExecutor;
  readonly slots: Slots;
  readonly onSpawn: ((pid: number) => void) | undefined;
  readonly inChanges: InChanges;
  readonly phrasing: Phrasing;
  readonly caller: string;
  readonly contextUsage?: ContextUsage | undefined;
}

type Search = NewSearchRequest | StructureRequest;

export async function answerSearch(call: SearchCall, request: Search): Promise<CodeSearchResponse> {
  const snapshot = await searchSnapshot(call, request);
  // Stopped while its last files were re-checked: no answer is built after the stop.
  throwIfAborted(call.signal);
  const budget = request.modeImplicit ? resolveBudget(call.contextUsage) : DEFAULT_BUDGET;
  if (snapshot.matches.length === 0) return emptyResponse(snapshot, request, budget, call.phrasing);
  if (request.mode === "summary") return summaryAnswer(call, snapshot, request.redact, budget);
  if (request.mode === "matches" || request.limit !== undefined) {
    return firstDetails(call, snapshot, request, DEFAULT_BUDGET);
  }
  const whole = isPartial(snapshot) ? undefined : await wholeAnswer(call, snapshot, request, budget);
  return whole ?? summaryAnswer(call, snapshot, request.redact, budget);
}

/** The search's snapshot, from the project root when the requested subpath matched nothing. */
async function searchSnapshot(call: SearchCall, request: Search): Promise<SnapshotData> {
  const requested = await resolveSearchTarget(call.cwd, request.path, call.pathRules);
  const snapshot = await snapshotAt(call, request, requested, requested, false);
  if (
    snapshot.matches.length === 0 &&
    !isPartial(snapshot) &&
    requested.isSubpath &&
    request.scope === "expand"
  ) {
    // An empty subpath is not evidence of absence: search the project root, same filters. One
    // cut before it kept a match is not empty: widening it would claim nothing matched there.
    const root = await resolveSearchTarget(call.cwd, undefined, call.pathRules);
    return snapshotAt(call, request, requested, root, true);
  }
  return snapshot;
}

async function snapshotAt(
  call: SearchCall,
  request: Search,
  requested: SearchTarget,
  target: SearchTarget,
  expanded: boolean,
): Promise<SnapshotData> {
  // Structure and change searches load their modules when first asked for: a process that
  // answers one content search (`evident grep`) loads neither.
  if (request.kind === "structure") {
    const { structureSearch } = await import("../structure/search.js");
    const { structureSnapshot } = await import("../structure/snapshot.js");
    const run = await structureSearch(
      {
        rgPath: await call.executor.rgPath(),
        env: call.executor.env,
        syntax: call.syntax,
        signal: call.signal,
        onSpawn: call.onSpawn,
        slots: call.slots,
      },
      request,
      target,
    );
    return structureSnapshot(request, requested, target, expanded, run);
  }
  if (request.changes === undefined) {
    const run = await call.executor.execute(request.query, target, call);
    return buildSnapshot(request.query, requested, target, expanded, run);
  }
  const { admittedLines } = await import("../changes/scope.js");
  const lines = await call.inChanges(target, request.changes, call.signal, async (scope) => {
    const scanned = await scope.scan(request.query, call.signal);
    const admit = await scope.admission(
      scanned.table.list.map((m) => m.path),
      call.signal,
    );
    return { ...scanned, matches: admittedLines(scanned.table.list, admit), changes: scope.summary() };
  });
  return snapshotFromLines(request.query, requested, target, expanded, lines);
}

/** A complete result answered whole when it fits the budget; undefined when it does not. */
async function wholeAnswer(
  call: SearchCall,
  snapshot: SnapshotData,
  request: Search,
  budget: ContextBudget,
): Promise<CodeSearchResponse | undefined> {
  const sources = new PageSources(snapshot.rgCwd, snapshot.trustedRevisions, { justChecked: true });
  const frame = frameText(snapshot, budget, call.phrasing);
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
  if (whole.nextOffset !== undefined) return undefined;
  // Complete and compact: everything is here, kept only so that its numbers can be inspected.
  const kept = await keep(call, snapshot);
  return wholeResponse(call.store, snapshot, kept, frame, whole, request.redact, budget, call.phrasing);
}

async function summaryAnswer(
  call: SearchCall,
  snapshot: SnapshotData,
  redact: boolean,
  budget: ContextBudget,
): Promise<CodeSearchResponse> {
  const id = await call.store.put(call.caller, snapshot);
  return summaryResponse(call.store, snapshot, id, 0, redact, budget, call.phrasing);
}

/** A store's failures that leave a complete answer without its numbers rather than fail it. */
const NOT_KEPT: ReadonlySet<string> = new Set(["store_unavailable", "configuration_error"]);

/**
 * Keeps a complete result whose every match is in the answer: only inspection by number needs
 * it, so a store that cannot keep it (a shared store down, a cache directory that cannot be
 * written) costs the numbers, said in the answer, not the answer.
 */
async function keep(call: SearchCall, snapshot: SnapshotData): Promise<KeptOrNot> {
  try {
    return { id: await call.store.put(call.caller, snapshot) };
  } catch (error) {
    if (error instanceof EvidentError && NOT_KEPT.has(error.code)) return { error };
    throw error;
  }
}

async function firstDetails(
  call: SearchCall,
  snapshot: SnapshotData,
  request: Search,
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
    call.phrasing,
    true,
  );
  const kept =
    page.nextOffset === undefined
      ? await keep(call, snapshot)
      : { id: await call.store.put(call.caller, snapshot) };
  return detailsResponse(
    call.store,
    snapshot,
    kept,
    page,
    0,
    sequence,
    request.redact,
    budget,
    call.phrasing,
  );
}
