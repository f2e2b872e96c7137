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
import {
  type CursorState,
  type SnapshotData,
  type SnapshotStore,
  searchSnapshot,
  selectionSignature,
} from "./snapshots/store.js";

/** What a page needs: the store its cursor's result is kept in, and the call's caller. */
interface PageCall {
  readonly store: SnapshotStore;
  readonly cwd: string;
  readonly caller: string;
  readonly phrasing: Phrasing;
}

/** The files `paths` chose for matching lines, and the signature a match cursor keeps of them. */
interface Chosen {
  readonly keys: readonly string[];
  readonly signature: string;
}

/** The page form's handler: a search cursor pages its snapshot, an analysis cursor its items. */
export async function continueCursor(call: PageCall, request: PageRequest): Promise<CodeSearchResponse> {
  // Decoding first keeps a malformed cursor the first error reported, whatever its kind.
  const state = call.store.decodeCursor(request.cursor);
  if (state.kind === "analysis") {
    return analysisPageFromCursor(call.store, request, call.caller, state, call.phrasing);
  }
  // The seed's order: malformed, missing, expired, wrong kind, option conflict, offset.
  const snapshot = await searchSnapshot(call.store, call.caller, state.snapshotId);
  const chosen = checkOptions(call.cwd, snapshot, request, state);
  if (state.kind === "summary" && request.mode === "summary") {
    if (state.offset >= snapshot.files.length) {
      throw offsetInvalid(
        `there is no file page at ${state.offset + 1}; the result has ${snapshot.files.length} files.`,
      );
    }
    const { store, phrasing } = call;
    return summaryResponse(
      store,
      snapshot,
      state.snapshotId,
      state.offset,
      request.redact,
      DEFAULT_BUDGET,
      phrasing,
    );
  }
  return detailsPage(call, request, state, snapshot, chosen);
}

/** Refuses the options a search cursor cannot take, in the seed's order; the files `paths` chose. */
function checkOptions(
  cwd: string,
  snapshot: SnapshotData,
  request: PageRequest,
  state: CursorState,
): Chosen | undefined {
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
  if (request.paths === undefined) return undefined;
  const keys = choosePaths(snapshot, cwd, request.paths);
  const signature = selectionSignature(keys);
  if (state.kind === "matches" && signature !== state.selection) {
    throw new EvidentError(
      "cursor_option_conflict",
      "This cursor continues a fixed selection of files; omit paths, or start from the summary cursor to choose others.",
      { details: { field: "paths" } },
    );
  }
  return { keys, signature };
}

/** A page of matching lines: a match cursor's next one, or a summary cursor's first. */
async function detailsPage(
  call: PageCall,
  request: PageRequest,
  state: CursorState,
  snapshot: SnapshotData,
  chosen: Chosen | undefined,
): Promise<CodeSearchResponse> {
  const { store, caller, phrasing } = call;
  let keys: readonly string[] | undefined;
  let offset = 0;
  if (state.kind === "matches") {
    offset = state.offset;
    if (state.selection !== undefined) {
      keys = await store.selection(caller, state.snapshotId, state.selection);
      if (keys === undefined)
        throw offsetInvalid("its file selection is no longer known; start from the summary cursor.");
    }
  } else if (chosen !== undefined) {
    keys = chosen.keys;
    await store.rememberSelection(caller, state.snapshotId, chosen.signature, chosen.keys);
  }
  const sequence = keys === undefined ? wholeSequence(snapshot) : selectionSequence(snapshot, keys);
  if (offset >= sequence.length) {
    throw offsetInvalid(
      `offset ${offset + 1} is past the ${sequence.length} matching lines of this selection.`,
    );
  }
  const { limit, context, redact } = request;
  const page = await renderDetails(snapshot, sequence, offset, limit, context, redact, phrasing);
  const selection = keys === undefined ? undefined : (chosen?.signature ?? state.selection);
  const kept = { id: state.snapshotId };
  return detailsResponse(
    store,
    snapshot,
    kept,
    page,
    offset,
    sequence,
    redact,
    DEFAULT_BUDGET,
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
