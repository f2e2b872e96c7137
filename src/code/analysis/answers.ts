/**
 * Analysis results as answers: the first page of a new analysis, and the pages an analysis
 * cursor continues. A result that fits one page is answered whole and never stored; otherwise it
 * is stored for its caller and pages continue forward from it, the last one releasing it. Cursor
 * errors come in the same order as search cursors': malformed (decoded by the caller), missing or
 * expired, wrong kind, option conflict, offset.
 */
import { EvidentError } from "../../core/errors.js";
import type { Phrasing } from "../../core/phrasing.js";
import { DEFAULT_BUDGET } from "../render/budget.js";
import type { CodeSearchResponse } from "../render/responses.js";
import type { PageRequest } from "../request.js";
import type { AnalysisData } from "../snapshots/analysis.js";
import { analysisResult, type CursorState, type SnapshotStore } from "../snapshots/store.js";
import { analysisFrame, analysisResponse, renderAnalysisPage } from "./pages.js";

export async function firstAnalysisAnswer(
  store: SnapshotStore,
  data: AnalysisData,
  caller: string,
  limit: number | undefined,
  redact: boolean,
  phrasing: Phrasing,
): Promise<CodeSearchResponse> {
  const budget = DEFAULT_BUDGET;
  const frameText = analysisFrame(data, budget, phrasing);
  const page = renderAnalysisPage(data, { offset: 0, limit, redact, frameText, budget });
  const id = page.nextOffset === undefined ? undefined : await store.put(caller, data);
  return analysisResponse(store, data, id, page, 0, redact, frameText, budget, phrasing);
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
  const budget = DEFAULT_BUDGET;
  const frameText = analysisFrame(data, budget, phrasing);
  const page = renderAnalysisPage(data, {
    offset: state.offset,
    limit: request.limit,
    redact: request.redact,
    frameText,
    budget,
  });
  // The last forward page: nothing can reach this result any more.
  if (page.nextOffset === undefined) await store.release(caller, state.snapshotId);
  return analysisResponse(
    store,
    data,
    state.snapshotId,
    page,
    state.offset,
    request.redact,
    frameText,
    budget,
    phrasing,
  );
}
