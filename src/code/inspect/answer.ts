/**
 * The inspection answer: one line per input (its outcome), the merged source fragments within
 * the one INSPECT_RESPONSE_MAX_BYTES budget, and what is owed through a `sourceCursor`. The same
 * renderer continues a source cursor, so a continuation reads like the answer it continues.
 */

import { EvidentError } from "../../core/errors.js";
import { INSPECT_RESPONSE_MAX_BYTES } from "../../core/limits.js";
import type { Phrasing } from "../../core/phrasing.js";
import { printablePath } from "../render/detail-page.js";
import type { SourcePageRequest } from "../request.js";
import type { CodeSearchCoverage, CodeSearchOutput, InspectionOutcome } from "../schema.js";
import type { SnapshotStore } from "../snapshots/store.js";
import { readSourceDocument, type SourceDocument } from "../source/document.js";
import { decodeSourceCursor, encodeSourceCursor } from "../source/source-cursor.js";
import { type Placement, placeSpans, type SourceSpan, spanLines } from "./place.js";

export interface InspectionAnswer {
  readonly text: string;
  readonly data: CodeSearchOutput;
}

export interface RenderContext {
  readonly store: SnapshotStore;
  readonly caller: string;
  /** How the continuation's call is written for the surface. */
  readonly phrasing: Phrasing;
}

export interface InspectionItem {
  readonly outcome: InspectionOutcome;
  readonly described: string;
  readonly document: SourceDocument | undefined;
}

export interface InspectionPlan {
  readonly items: readonly InspectionItem[];
  /** Merged ranges, in the order they are owed. */
  readonly spans: readonly SourceSpan[];
  readonly coverage: CodeSearchCoverage;
  readonly redact: boolean;
  /** A continuation keeps its token's issue time, so replaying it gives the same answer. */
  readonly issuedAt?: number;
}

export function renderInspection(context: RenderContext, plan: InspectionPlan): InspectionAnswer {
  const issuedAt = plan.issuedAt ?? Date.now();
  // The header and notes are sized after placement; start from a guess and shrink until it fits.
  let reserve =
    400 + plan.items.reduce((n, i) => n + 200 + Buffer.byteLength(i.outcome.error?.message ?? ""), 0);
  for (let attempt = 0; ; attempt++) {
    const placement = placeSpans(plan.spans, INSPECT_RESPONSE_MAX_BYTES - reserve, plan.redact);
    const answer = compose(context, plan, placement, issuedAt);
    const excess = Buffer.byteLength(answer.text) - INSPECT_RESPONSE_MAX_BYTES;
    if (excess <= 0) return answer;
    if (attempt === 4)
      throw new EvidentError("internal_error", "an inspection answer did not fit its budget");
    reserve += excess + 64;
  }
}

function compose(
  context: RenderContext,
  plan: InspectionPlan,
  placement: Placement,
  issuedAt: number,
): InspectionAnswer {
  const { lines, outcomes } = inputLines(plan, placement);
  const owed = placement.remaining.reduce((n, s) => n + s.range.endByte - s.range.startByte, 0);
  const lossy = placement.lossyOmitted.reduce((n, s) => n + s.range.endByte - s.range.startByte, 0);
  const shown = placement.fragments.reduce((n, f) => n + f.endByte - f.startByte, 0);
  const coverage: CodeSearchCoverage = {
    ...plan.coverage,
    retention: {
      status: owed + lossy === 0 ? "complete" : "partial",
      counts: { bytesShown: shown, bytesOwed: owed, bytesNotShownLossy: lossy },
    },
  };
  const sourceCursor =
    placement.remaining.length === 0
      ? undefined
      : encodeSourceCursor(context.store, context.caller, {
          issuedAt,
          documents: continued(placement.remaining),
        });
  const head =
    plan.items.length === 0
      ? `code_search source continuation: ${plan.spans.length} range(s).`
      : `code_search inspection of ${plan.items.length} target(s): ${placement.fragments.length} source range(s) shown.`;
  const notes = [coverageLine(coverage), ...omissionNotes(context, placement, sourceCursor)];
  const text = `${[head, ...lines].join("\n")}\n${placement.text}${notes.join("\n")}\n`;
  return {
    text,
    data: {
      status: owed + lossy === 0 ? "complete" : "partial",
      view: "inspection",
      redacted: plan.redact,
      coverage,
      ...(plan.items.length === 0 ? {} : { inspections: outcomes }),
      fragments: [...placement.fragments],
      ...(sourceCursor === undefined
        ? {}
        : {
            sourceCursor,
            remaining: placement.remaining.map((s) => ({ path: s.display, ...s.range })),
          }),
    },
  };
}

/** One line per input, and its outcome as placed: complete, or partial when not all was shown. */
function inputLines(
  plan: InspectionPlan,
  placement: Placement,
): { lines: string[]; outcomes: InspectionOutcome[] } {
  const spanOf = (item: InspectionItem): number =>
    plan.spans.findIndex(
      (s) =>
        s.document === item.document &&
        item.outcome.range !== undefined &&
        s.range.startByte <= item.outcome.range.startByte &&
        item.outcome.range.endByte <= s.range.endByte,
    );
  const firstInput = new Map<number, number>();
  const lines: string[] = [];
  const outcomes: InspectionOutcome[] = [];
  for (const item of plan.items) {
    const { outcome } = item;
    if (outcome.status === "error" || outcome.range === undefined) {
      lines.push(`[${outcome.input}] ${item.described}: ${outcome.error?.code}: ${outcome.error?.message}`);
      outcomes.push(outcome);
      continue;
    }
    const span = spanOf(item);
    const complete = (placement.shownEnd[span] ?? 0) >= outcome.range.endByte;
    const fragment = placement.spanFragment[span];
    outcomes.push({
      ...outcome,
      status: complete ? "complete" : "partial",
      ...(fragment === undefined ? {} : { fragment }),
    });
    const earlier = firstInput.get(span);
    const shared = earlier === undefined ? "" : `; shown once, with [${earlier}]`;
    if (earlier === undefined) firstInput.set(span, outcome.input);
    // Only UTF-8 files are continued: the rest of another file has no cursor to point at.
    const continues = plan.spans[span]?.document.utf8 !== false;
    const partial = complete
      ? ""
      : continues
        ? "; not all shown (see sourceCursor below)"
        : "; not all shown, and not continued (not valid UTF-8)";
    lines.push(
      `[${outcome.input}] ${item.described}: ${rangeText(outcome, outcome.range)}${shared}${partial}`,
    );
  }
  return { lines, outcomes };
}

/** What an input's range is: its symbol (with any caveat), or an excerpt and why. */
function rangeText(outcome: InspectionOutcome, lines: { startLine: number; endLine: number }): string {
  const range = `lines ${lines.startLine}-${lines.endLine}`;
  const what =
    outcome.symbol !== undefined
      ? `${outcome.symbol.kind} ${outcome.symbol.qualifiedName}, ${range} (${outcome.syntax?.provider})`
      : `${range}, an excerpt: no symbol range (${outcome.syntax?.status}: ${outcome.syntax?.reason})`;
  const caveat =
    outcome.syntax?.status === "parse_error" && outcome.symbol !== undefined
      ? `; ${outcome.syntax.reason}`
      : "";
  return `${what}${caveat}`;
}

/** What was left out: owed through the cursor, or not continued because it is not UTF-8. */
function omissionNotes(
  context: RenderContext,
  placement: Placement,
  sourceCursor: string | undefined,
): string[] {
  const notes: string[] = [];
  if (placement.remaining.length > 0) {
    notes.push(
      `Not shown yet: ${placement.remaining.map((s) => `${printablePath(s.display)} ${spanLines(s)} (bytes ${s.range.startByte}-${s.range.endByte})`).join(", ")}. ` +
        `Continue: ${context.phrasing.call("code_search", { sourceCursor })}.`,
    );
  }
  if (placement.lossyOmitted.length > 0) {
    notes.push(
      `Not shown, and not continued because the file is not valid UTF-8: ${placement.lossyOmitted.map((s) => `${printablePath(s.display)} ${spanLines(s)}`).join(", ")}.`,
    );
  }
  return notes;
}

function coverageLine(coverage: CodeSearchCoverage): string {
  const parts: string[] = [];
  const { occurrences, syntax, retention } = coverage;
  if (occurrences !== undefined) {
    parts.push(`the result's matches ${occurrences.status} (${occurrences.counts.matches} retained)`);
  }
  const syntaxCounts = Object.entries(syntax?.counts ?? {})
    .map(([status, n]) => `${n} ${status.replace("_", " ")}`)
    .join(", ");
  if (syntax !== undefined && syntaxCounts !== "") parts.push(`syntax ${syntax.status} (${syntaxCounts})`);
  parts.push(
    `source ${retention.status} (${retention.counts.bytesShown} bytes shown${retention.counts.bytesOwed ? `, ${retention.counts.bytesOwed} owed` : ""}${retention.counts.bytesNotShownLossy ? `, ${retention.counts.bytesNotShownLossy} not shown` : ""})`,
  );
  return `Coverage: ${parts.join("; ")}.`;
}

/** Remaining spans grouped by document, in order. */
function continued(spans: readonly SourceSpan[]) {
  const documents: {
    path: string;
    display: string;
    revision: SourceDocument["revision"];
    hash: string;
    ranges: { startByte: number; endByte: number }[];
  }[] = [];
  for (const span of spans) {
    const last = documents[documents.length - 1];
    if (last !== undefined && last.path === span.document.path) last.ranges.push({ ...span.range });
    else
      documents.push({
        path: span.document.path,
        display: span.display,
        revision: span.document.revision,
        hash: span.document.hash,
        ranges: [{ ...span.range }],
      });
  }
  return documents;
}

/**
 * Continues a `sourceCursor`: exactly its byte ranges, from documents that must still be the
 * version it was issued for (revision and content hash), else `source_changed`.
 */
export async function continueSource(
  context: RenderContext,
  request: SourcePageRequest,
): Promise<InspectionAnswer> {
  const { redact } = request;
  const state = decodeSourceCursor(context.store, context.caller, request.sourceCursor);
  const spans: SourceSpan[] = [];
  for (const continued of state.documents) {
    const read = await readSourceDocument(continued.path, { expected: continued.revision });
    if (!read.ok || read.document.hash !== continued.hash) {
      throw new EvidentError(
        "source_changed",
        `${printablePath(continued.display)} is no longer the version this sourceCursor continues (${read.ok ? "its content differs" : read.reason}); inspect it again.`,
        { details: { field: "sourceCursor", path: continued.display } },
      );
    }
    const size = read.document.bytes.length;
    for (const range of continued.ranges) {
      if (range.endByte > size)
        throw new EvidentError("internal_error", "a sealed range lies outside its document");
      spans.push({ document: read.document, display: continued.display, range });
    }
  }
  return renderInspection(context, {
    items: [],
    spans,
    coverage: { retention: { status: "complete", counts: {} } },
    redact,
    issuedAt: state.issuedAt,
  });
}
