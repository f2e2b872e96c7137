/**
 * The answers code_search gives, built from a snapshot and the page rendered of it: the empty
 * answer, a summary page with its cursor, a page of matching lines with its cursor, and a whole
 * compact result. Each states its range and how to go on, in text and in data, and each that
 * numbers matches carries a cursor those numbers belong to (`inspectCursor`).
 */
import type { EvidentError } from "../../core/errors.js";
import {
  DETAIL_PAGE_DEFAULT_MATCHES,
  DETAIL_PAGE_MAX_BYTES,
  PAGE_FRAME_RESERVE_CHARS,
} from "../../core/limits.js";
import { hole, type Phrasing } from "../../core/phrasing.js";
import type { NewSearchRequest } from "../request.js";
import type { CodeSearchOutput } from "../schema.js";
import { displayPath, type MatchSequence } from "../snapshots/sequence.js";
import type { CursorState, SnapshotData, SnapshotStore } from "../snapshots/store.js";
import { PageSources } from "../source/page-sources.js";
import {
  baseData,
  describeSearch,
  fileRow,
  frameText,
  isPartial,
  notesText,
  pageData,
  pageNotes,
  rootName,
  shownData,
} from "./answer.js";
import { type ContextBudget, DEFAULT_BUDGET } from "./budget.js";
import { type DetailPage, printablePath, renderDetailPage } from "./detail-page.js";
import { renderSummaryPage } from "./summary-page.js";

export interface CodeSearchResponse {
  readonly text: string;
  readonly data: CodeSearchOutput;
}

/** Where a shown result is kept (its snapshot id), or why it could not be. */
export type KeptOrNot = { readonly id: string } | { readonly error: EvidentError };

/**
 * The cursor a result's match numbers belong to: a summary cursor past its last file page, so it
 * pages nothing by itself, and with `inspect` or `matchIndices` reads the retained revisions.
 */
function inspectCursorOf(store: SnapshotStore, id: string, snapshot: SnapshotData): string {
  return store.encodeCursor({ snapshotId: id, offset: snapshot.files.length, kind: "summary" });
}

/**
 * How the numbers of an answer with no further page are inspected, or why they cannot be: the
 * one place that says it.
 */
function inspectAdvice(kept: KeptOrNot, cursor: string | undefined, phrasing: Phrasing): string {
  if (cursor !== undefined) {
    return (
      `Inspect a match by its number: ${phrasing.call("code_search", { cursor, inspect: hole("n") })} ` +
      `(${phrasing.arg("code_search", "matchIndices")} for up to 5).`
    );
  }
  const why = "error" in kept ? ` (${kept.error.message})` : "";
  const byPlace = phrasing.call("code_search", { path: hole("path"), line: hole("line") });
  return `These matches could not be kept, so their numbers cannot be inspected${why}; inspect one by its path and line instead: ${byPlace}.`;
}

/** A complete result shown whole, after its frame (the policy decided it fits). */
export function wholeResponse(
  store: SnapshotStore,
  snapshot: SnapshotData,
  kept: KeptOrNot,
  frame: string,
  page: DetailPage,
  redact: boolean,
  budget: ContextBudget,
  phrasing: Phrasing,
): CodeSearchResponse {
  const inspectCursor = "id" in kept ? inspectCursorOf(store, kept.id, snapshot) : undefined;
  return {
    text: `${frame}${page.text}${pageNotes(page)}${inspectAdvice(kept, inspectCursor, phrasing)}\n`,
    data: baseData(snapshot, "details", budget, redact, {
      ...(inspectCursor === undefined ? {} : { inspectCursor }),
      shownFrom: 1,
      shownTo: snapshot.matches.length,
      matches: shownData(page),
      ...pageData(page),
    }),
  };
}

export function emptyResponse(
  snapshot: SnapshotData,
  request: Pick<NewSearchRequest, "path" | "scope" | "redact">,
  budget: ContextBudget,
  phrasing: Phrasing,
): CodeSearchResponse {
  const q = describeSearch(snapshot);
  let text: string;
  if (isPartial(snapshot)) {
    // Nothing kept from a search that did not cover everything: no claim of absence.
    const where = snapshot.expanded
      ? `the project root (searched too, same filters, since nothing matched in "${snapshot.requestedRoot}")`
      : snapshot.requestedRoot === "."
        ? rootName(snapshot.effectiveRoot)
        : `"${snapshot.requestedRoot}"`;
    text =
      `No matching line could be kept for ${q} in ${where}: the search stopped early or did not cover ` +
      "everything (see below), so this is not evidence that the pattern is absent.";
  } else if (snapshot.expanded) {
    text = `No matches for ${q} in "${snapshot.requestedRoot}", nor anywhere under the project root (searched too, same filters).`;
  } else if (request.path !== undefined && request.scope === "strict" && snapshot.requestedRoot !== ".") {
    text =
      `No matches for ${q} in "${snapshot.requestedRoot}". scope was strict, so the rest of the project ` +
      "was not searched: this is not evidence that the pattern is absent elsewhere.";
  } else {
    text = `No matches for ${q} in ${rootName(snapshot.effectiveRoot)}.`;
  }
  text += notesText(snapshot, budget, phrasing);
  return { text: `${text}\n`, data: baseData(snapshot, "empty", budget, request.redact, {}) };
}

export async function summaryResponse(
  store: SnapshotStore,
  snapshot: SnapshotData,
  id: string,
  fileOffset: number,
  redact: boolean,
  budget: ContextBudget,
  phrasing: Phrasing,
): Promise<CodeSearchResponse> {
  const frame = frameText(snapshot, budget, phrasing);
  const page = await renderSummaryPage({
    snapshot,
    fileOffset,
    maxChars: Math.max(0, budget.targetChars - frame.length - PAGE_FRAME_RESERVE_CHARS),
    redact,
  });
  // One summary cursor serves both ways on: its offset is where the next file page starts.
  const nextFileOffset = page.nextFileOffset ?? snapshot.files.length;
  const cursor = store.encodeCursor({ snapshotId: id, offset: nextFileOffset, kind: "summary" });
  const arg = (name: string) => phrasing.arg("code_search", name);
  const next = [
    `Matching lines: ${phrasing.call("code_search", { cursor })} (add ${arg("paths")} for chosen files, ${arg("limit")} for page size, ${arg("context")} for surrounding lines).`,
  ];
  if (page.nextFileOffset !== undefined) {
    const last = Math.min(snapshot.files.length, page.nextFileOffset + page.rows.length);
    next.push(
      `Files ${page.nextFileOffset + 1}-${last}: ${phrasing.call("code_search", { cursor, mode: "summary" })}.`,
    );
  }
  if (page.previewsOmitted > 0) next.push(`${page.previewsOmitted} sample(s) left out to fit the budget.`);
  return {
    text: `${frame}${page.text}${next.join("\n")}\n`,
    data: baseData(snapshot, "summary", budget, redact, {
      cursor,
      cursorKind: "summary",
      inspectCursor: cursor,
      files: page.rows.map(fileRow),
      filesFrom: fileOffset + 1,
      filesTo: fileOffset + page.rows.length,
      summaryPreviewsShown: page.previewsShown,
      summaryPreviewsOmitted: page.previewsOmitted,
    }),
  };
}

export function renderDetails(
  snapshot: SnapshotData,
  sequence: MatchSequence,
  offset: number,
  limit: number | undefined,
  context: number,
  redact: boolean,
  phrasing: Phrasing,
  /** The first page of a new search, rendered right after its re-check (see PageSources). */
  justChecked = false,
): Promise<DetailPage> {
  const frame = frameText(snapshot, DEFAULT_BUDGET, phrasing);
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

export function detailsResponse(
  store: SnapshotStore,
  snapshot: SnapshotData,
  kept: KeptOrNot,
  page: DetailPage,
  offset: number,
  sequence: MatchSequence,
  redact: boolean,
  budget: ContextBudget,
  phrasing: Phrasing,
  selection?: string,
  keys?: readonly string[],
): CodeSearchResponse {
  const id = "id" in kept ? kept.id : undefined;
  const cursorState: CursorState | undefined =
    id === undefined || page.nextOffset === undefined
      ? undefined
      : { snapshotId: id, offset: page.nextOffset, kind: "matches", selection };
  const cursor = cursorState === undefined ? undefined : store.encodeCursor(cursorState);
  const inspectCursor = id === undefined ? undefined : inspectCursorOf(store, id, snapshot);
  const from = offset + 1;
  const to = offset + page.shown.length;
  const scope = keys === undefined ? "" : ` of ${keys.map((k) => printablePath(displayPath(k))).join(", ")}`;
  const lines = [`Matching lines ${from}-${to} of ${sequence.length}${scope}:`, page.text.trimEnd()];
  const notes = pageNotes(page);
  if (notes !== "") lines.push(notes.trimEnd());
  if (cursor !== undefined) {
    // Page options are not part of a cursor, so say how to keep them.
    const arg = (name: string) => phrasing.arg("code_search", name);
    lines.push(
      `Next page: ${phrasing.call("code_search", { cursor })} (matching lines ${to + 1}-${sequence.length}; ` +
        `repeat ${arg("limit")}, ${arg("context")} or ${arg("redact")} to keep them).`,
    );
  } else lines.push(inspectAdvice(kept, inspectCursor, phrasing));
  return {
    text: `${frameText(snapshot, budget, phrasing)}${lines.join("\n")}\n`,
    data: baseData(snapshot, "details", budget, redact, {
      ...(cursor === undefined ? {} : { cursor, cursorKind: "matches" as const }),
      ...(inspectCursor === undefined ? {} : { inspectCursor }),
      shownFrom: from,
      shownTo: to,
      matches: shownData(page),
      ...(keys === undefined ? {} : { selection: keys.map(displayPath) }),
      ...pageData(page),
    }),
  };
}
