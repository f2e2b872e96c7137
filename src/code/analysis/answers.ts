/**
 * Analysis results as answers: the handlers of the anyOf, impact and navigate forms, the first
 * page of a new analysis, and the pages an analysis cursor continues. A result that fits one page
 * is answered whole and never stored; otherwise it is stored for its caller and pages continue
 * forward from it, the last one releasing it. Cursor errors come in the same order as search
 * cursors': malformed (decoded by the caller), missing or expired, wrong kind, option conflict,
 * offset.
 */
import { EvidentError } from "../../core/errors.js";
import type { Phrasing } from "../../core/phrasing.js";
import { resolveSearchTarget, type SearchTarget } from "../path-policy.js";
import { DEFAULT_BUDGET } from "../render/budget.js";
import type { CodeSearchResponse } from "../render/responses.js";
import type { AnyOfRequest, ImpactRequest, NavigateRequest, PageRequest } from "../request.js";
import type { AnalysisData, ChangesSummary } from "../snapshots/analysis.js";
import { analysisResult, type CursorState, type SnapshotStore } from "../snapshots/store.js";
import { type AnyOfScan, scanAnyOf } from "./any-of.js";
import { impactOf } from "./impact.js";
import { navigate } from "./navigation.js";
import { analysisFrame, analysisResponse, renderAnalysisPage } from "./pages.js";
import type { AnalysisCall } from "./sources.js";
import { type AnalysisDraft, retain } from "./store.js";

export function answerImpact(call: AnalysisCall, request: ImpactRequest): Promise<CodeSearchResponse> {
  return answerDraft(call, request, impactOf(call, request));
}

export function answerNavigation(call: AnalysisCall, request: NavigateRequest): Promise<CodeSearchResponse> {
  return answerDraft(call, request, navigate(call, request));
}

/** An analysis draft admitted by the store's policy and answered with its first page. */
async function answerDraft(
  call: AnalysisCall,
  request: { readonly limit: number | undefined; readonly redact: boolean },
  draft: Promise<AnalysisDraft>,
): Promise<CodeSearchResponse> {
  const data = retain(await draft, call.analysisBounds);
  return analysisPage(call.store, call.caller, data, undefined, 0, request, call.phrasing);
}

export async function answerAnyOf(call: AnalysisCall, request: AnyOfRequest): Promise<CodeSearchResponse> {
  const requested = await resolveSearchTarget(call.cwd, request.path, call.pathRules);
  let target = requested;
  let scanned = await anyOfAt(call, request, target);
  let expanded = false;
  const covered =
    Object.values(scanned.coverage).every((fact) => fact.status === "complete") &&
    (scanned.changes?.notCovered.length ?? 0) === 0;
  if (scanned.items.length === 0 && covered && requested.isSubpath && request.scope === "expand") {
    // An empty subpath is not evidence of absence: search the project root, same filters (not
    // one whose scan was cut: widening it would claim nothing matched there).
    target = await resolveSearchTarget(call.cwd, undefined, call.pathRules);
    scanned = await anyOfAt(call, request, target);
    expanded = true;
  }
  const draft: AnalysisDraft = {
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
  };
  return answerDraft(call, request, Promise.resolve(draft));
}

/** The terms' occurrences under one target, in the Git changes when the request names some. */
function anyOfAt(
  call: AnalysisCall,
  request: AnyOfRequest,
  target: SearchTarget,
): Promise<AnyOfScan & { changes?: ChangesSummary }> {
  const { signal } = call;
  if (request.changes === undefined) {
    return scanAnyOf(request, (query, scan) => call.scans.scan(query, target, scan), undefined, signal);
  }
  return call.inChanges(target, request.changes, signal, async (scope) => ({
    ...(await scanAnyOf(
      request,
      (query, scan) => scope.scan(query, scan),
      (paths) => scope.admission(paths, signal),
      signal,
    )),
    changes: scope.summary(),
  }));
}

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

/**
 * The page of an analysis result from `offset`. A new result (`id` undefined) is stored only when
 * a cursor must follow; the last forward page of a stored one releases it, since nothing can
 * reach it any more.
 */
export async function analysisPage(
  store: SnapshotStore,
  caller: string,
  data: AnalysisData,
  id: string | undefined,
  offset: number,
  { limit, redact }: { readonly limit: number | undefined; readonly redact: boolean },
  phrasing: Phrasing,
): Promise<CodeSearchResponse> {
  const budget = DEFAULT_BUDGET;
  const frameText = analysisFrame(data, budget, phrasing);
  const page = renderAnalysisPage(data, { offset, limit, redact, frameText, budget });
  let kept = id;
  if (id === undefined && page.nextOffset !== undefined) kept = await store.put(caller, data);
  if (id !== undefined && page.nextOffset === undefined) await store.release(caller, id);
  return analysisResponse(store, data, kept, page, offset, redact, frameText, budget, phrasing);
}

export async function analysisPageFromCursor(
  store: SnapshotStore,
  request: PageRequest,
  caller: string,
  state: CursorState,
  phrasing: Phrasing,
): Promise<CodeSearchResponse> {
  const data = await analysisResult(store, caller, state.snapshotId);
  if (request.mode !== undefined) {
    throw new EvidentError(
      "cursor_wrong_kind",
      `This cursor continues the items of an analysis; mode "${request.mode}" belongs to search cursors (omit it).`,
      { details: { field: "mode" } },
    );
  }
  const conflicts = [...request.conflicts, ...(request.paths === undefined ? [] : ["paths"])];
  if (conflicts.length > 0) {
    throw new EvidentError(
      "cursor_option_conflict",
      `${conflicts.join(", ")} cannot change an analysis cursor's result; omit them, or start a new request without a cursor.`,
      { details: { field: conflicts[0] } },
    );
  }
  if (state.offset >= data.items.length) {
    throw new EvidentError(
      "cursor_offset_invalid",
      `This cursor cannot be used: item ${state.offset + 1} is past the ${data.items.length} items of this result.`,
      { details: { field: "cursor" } },
    );
  }
  return analysisPage(store, caller, data, state.snapshotId, state.offset, request, phrasing);
}
