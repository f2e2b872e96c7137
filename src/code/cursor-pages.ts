/**
 * Cursor pages: a cursor continues only its stored snapshot, never a new search. Summary
 * cursors page files or start matching lines (optionally for chosen files); match cursors
 * continue their bound selection. Cursor errors come in the seed's order: malformed, missing,
 * expired, wrong kind, option conflict, offset.
 */
import { EvidentError } from "../core/errors.js";
import type { Phrasing } from "../core/phrasing.js";
import { analysisPageFromCursor } from "./analysis/answers.js";
import { DEFAULT_BUDGET } from "./render/budget.js";
import {
  type CodeSearchResponse,
  detailsResponse,
  renderDetails,
  summaryResponse,
} from "./render/responses.js";
import type { PageRequest } from "./request.js";
import { choosePaths, selectionSequence } from "./snapshots/build.js";
import { wholeSequence } from "./snapshots/sequence.js";
import { type SnapshotStore, searchSnapshot, selectionSignature } from "./snapshots/store.js";

/** The page form's handler: a search cursor pages its snapshot, an analysis cursor its items. */
export async function continueCursor(
  call: {
    readonly store: SnapshotStore;
    readonly cwd: string;
    readonly caller: string;
    readonly phrasing: Phrasing;
  },
  request: PageRequest,
): Promise<CodeSearchResponse> {
  const { store, cwd, caller, phrasing } = call;
  // Decoding first keeps a malformed cursor the first error reported, whatever its kind.
  const state = store.decodeCursor(request.cursor);
  return state.kind === "analysis"
    ? analysisPageFromCursor(store, request, caller, state, phrasing)
    : pageFromCursor(store, cwd, request, caller, phrasing);
}

async function pageFromCursor(
  store: SnapshotStore,
  cwd: string,
  request: PageRequest,
  caller: string,
  phrasing: Phrasing,
): Promise<CodeSearchResponse> {
  // The seed's order: malformed, missing, expired, wrong kind, option conflict, offset.
  const state = store.decodeCursor(request.cursor);
  const snapshot = await searchSnapshot(store, caller, state.snapshotId);
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
  const chosen = request.paths === undefined ? undefined : choosePaths(snapshot, cwd, request.paths);
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
    return summaryResponse(store, snapshot, state.snapshotId, state.offset, request.redact, budget, phrasing);
  }

  let keys: readonly string[] | undefined;
  let offset = 0;
  if (state.kind === "matches") {
    offset = state.offset;
    if (state.selection !== undefined) {
      keys = await store.selection(caller, state.snapshotId, state.selection);
      if (keys === undefined)
        throw offsetInvalid("its file selection is no longer known; start from the summary cursor.");
    }
  } else if (chosen !== undefined && chosenSignature !== undefined) {
    keys = chosen;
    await store.rememberSelection(caller, state.snapshotId, chosenSignature, chosen);
  }
  const sequence = keys === undefined ? wholeSequence(snapshot) : selectionSequence(snapshot, keys);
  if (offset >= sequence.length) {
    throw offsetInvalid(
      `offset ${offset + 1} is past the ${sequence.length} matching lines of this selection.`,
    );
  }
  const page = await renderDetails(
    snapshot,
    sequence,
    offset,
    request.limit,
    request.context,
    request.redact,
    phrasing,
  );
  const selection = keys === undefined ? undefined : (chosenSignature ?? state.selection);
  return detailsResponse(
    store,
    snapshot,
    { id: state.snapshotId },
    page,
    offset,
    sequence,
    request.redact,
    budget,
    phrasing,
    selection,
    keys,
  );
}

function offsetInvalid(why: string): EvidentError {
  return new EvidentError("cursor_offset_invalid", `This cursor cannot be used: ${why}`, {
    details: { field: "cursor" },
  });
}
