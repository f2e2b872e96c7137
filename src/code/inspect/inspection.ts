/**
 * Inspection: whole symbols instead of whole files. Each target (a match of a cursor's result,
 * or a line or symbol of a file) is resolved to a range of lines: the smallest symbol enclosing
 * it as a syntax provider sees it, else an explicit excerpt around the line saying why no symbol
 * range exists. Every document is read once, bound to one revision; for a match that revision
 * must be the one the search retained (G08), and a document whose revision is missing or changed
 * is `source_changed`. Ranges of one document are merged before the one byte budget is spent, so
 * a line is shown once however many targets hold it (G24), and each input gets its own outcome.
 * What does not fit is owed through a sealed, version-bound `sourceCursor`.
 */

import { EvidentError, toEvidentError } from "../../core/errors.js";
import { INSPECT_EXCERPT_RADIUS_LINES, SOURCE_DOCUMENT_MAX_BYTES } from "../../core/limits.js";
import type { Phrasing } from "../../core/phrasing.js";
import { type PathRules, resolveSourceFile } from "../path-policy.js";
import { printablePath } from "../render/detail-page.js";
import { historicalMatch, type InspectRequest, type InspectTarget, invalid } from "../request.js";
import type { Revision } from "../revisions/scan.js";
import type { CodeSearchCoverage, InspectionOutcome } from "../schema.js";
import type { SnapshotData, SnapshotStore } from "../snapshots/store.js";
import { lineCount, type ReadFailure, readSourceDocument, type SourceDocument } from "../source/document.js";
import { bytesOfLines, containsLines, type LineRange, mergeLineRanges } from "../source/ranges.js";
import type { SymbolsOutcome, SyntaxLayer } from "../syntax/layer.js";
import {
  listCandidates,
  noSymbolNamed,
  pickSymbol,
  type SymbolRange,
  symbolAtMatch,
  symbolsNamed,
} from "../syntax/symbols.js";
import { type InspectionAnswer, renderInspection } from "./answer.js";
import { keptMatches, matchPlace } from "./matches.js";
import type { SourceSpan } from "./place.js";

export interface InspectDeps {
  readonly cwd: string;
  /** What the service adds to the path policy (see path-policy.ts). */
  readonly pathRules?: PathRules;
  readonly store: SnapshotStore;
  readonly syntax: SyntaxLayer;
  readonly caller: string;
  readonly signal: AbortSignal;
  /** How advice is written for the surface. */
  readonly phrasing: Phrasing;
}

/** One input on its way to an outcome. */
interface Item {
  readonly input: number;
  readonly target: InspectTarget;
  /** How the target reads in the text ("match [3] src/a.ts:12", "src/a.ts symbol parse"). */
  described: string;
  document?: DocumentWork;
  line?: number;
  /** A match's first occurrence's column (UTF-16 units), when its line is not a lossy view. */
  column?: number;
  range?: LineRange;
  symbol?: SymbolRange;
  syntax?: InspectionOutcome["syntax"];
  error?: EvidentError;
}

interface DocumentWork {
  readonly absolute: string;
  readonly display: string;
  /** For match targets: the revision the search retained; `missing` when it had none. */
  readonly expected: Revision | "missing" | undefined;
  /** For match targets of a change scope read from Git objects: the comparison and side. */
  readonly historical?: string | undefined;
  document?: SourceDocument;
  failure?: EvidentError;
  symbols?: SymbolsOutcome;
}

export async function inspect(deps: InspectDeps, request: InspectRequest): Promise<InspectionAnswer> {
  // Everything about the request is checked before any source is read.
  const snapshot =
    request.cursor === undefined
      ? undefined
      : await keptMatches(
          deps.store,
          deps.caller,
          request.cursor,
          request.targets.flatMap((t) => (t.kind === "match" ? [t.index] : [])),
          request.targets.length === 1 ? "inspect" : "matchIndices",
        );
  const items = request.targets.map(
    (target, i): Item => ({ input: i + 1, target, described: describe(target) }),
  );
  const documents = new Map<string, DocumentWork>();
  for (const item of items) {
    try {
      item.document = resolveDocument(deps, snapshot, item, documents);
    } catch (error) {
      item.error = toEvidentError(error);
    }
  }
  for (const work of documents.values()) await readDocument(work);
  for (const item of items) {
    if (item.error !== undefined || item.document === undefined) continue;
    try {
      await rangeOf(deps, item, item.document);
    } catch (error) {
      if (deps.signal.aborted) throw error;
      item.error = toEvidentError(error);
    }
  }
  const failed = items.filter((item) => item.error !== undefined);
  if (failed.length === items.length) {
    // Nothing to show: the call fails, with every input's reason.
    const first = failed[0]?.error as EvidentError;
    if (items.length === 1) throw first;
    throw new EvidentError(
      first.code,
      `No target could be inspected. ${failed.map((i) => `[${i.input}] ${i.error?.message}`).join(" ")}`,
      {
        details: { ...first.details, outcomes: failed.map((i) => ({ input: i.input, code: i.error?.code })) },
      },
    );
  }
  return renderInspection(deps, {
    items: items.map((item) => ({
      outcome: outcomeOf(item),
      described: item.described,
      document: item.document?.document,
    })),
    spans: spansOf(items),
    coverage: coverageOf(items, snapshot),
    redact: request.redact,
  });
}

function describe(target: InspectTarget): string {
  if (target.kind === "match") return `match [${target.index}]`;
  if (target.kind === "line") return `${printablePath(target.path)}:${target.line}`;
  return `${printablePath(target.path)} symbol ${target.symbol}`;
}

function resolveDocument(
  deps: InspectDeps,
  snapshot: SnapshotData | undefined,
  item: Item,
  documents: Map<string, DocumentWork>,
): DocumentWork {
  const { target } = item;
  let absolute: string;
  let display: string;
  let expected: DocumentWork["expected"];
  let historical: string | undefined;
  if (target.kind === "match") {
    if (snapshot === undefined) throw new EvidentError("internal_error", "a match target without its result");
    const place = matchPlace(snapshot, target.index, "; its line is in the result as searched");
    absolute = place.absolute;
    display = place.display;
    expected = place.expected ?? "missing";
    historical = place.historical;
    item.line = place.line;
    if (place.column !== undefined) item.column = place.column;
    item.described = `match [${target.index}] ${printablePath(display)}:${place.line}`;
  } else {
    const file = resolveSourceFile(deps.cwd, target.path, deps.pathRules);
    absolute = file.absolute;
    display = file.display;
    expected = undefined;
    if (target.kind === "line") item.line = target.line;
  }
  let work = documents.get(absolute);
  if (work === undefined) {
    work = { absolute, display, expected, historical };
    documents.set(absolute, work);
  }
  return work;
}

async function readDocument(work: DocumentWork): Promise<void> {
  if (work.expected === "missing") return;
  const read = await readSourceDocument(work.absolute, { expected: work.expected });
  if (read.ok) work.document = read.document;
  else work.failure = failureError(work, read);
}

function failureError(work: DocumentWork, failure: ReadFailure): EvidentError {
  const scoped = work.expected !== undefined;
  switch (failure.reason) {
    case "changed":
      return sourceChanged(
        scoped
          ? `${printablePath(work.display)} changed since the search; its current lines are not the matched ones. Run the search again.`
          : `${printablePath(work.display)} changed while it was read; inspect it again.`,
      );
    case "missing":
      return scoped
        ? sourceChanged(`${printablePath(work.display)} no longer exists; run the search again.`)
        : invalid("path", `"${work.display}" does not exist.`);
    case "not_a_file":
      return invalid("path", `"${work.display}" is not a file; inspect a file.`);
    case "unreadable":
      return invalid("path", `"${work.display}" cannot be read (${failure.detail}).`);
    case "too_large":
      return new EvidentError(
        "source_too_large",
        `${printablePath(work.display)} has ${failure.size} bytes, more than the ${SOURCE_DOCUMENT_MAX_BYTES / (1024 * 1024)} MiB a document may have; search it with a pattern instead.`,
        { details: { field: "path" } },
      );
  }
}

function sourceChanged(message: string): EvidentError {
  return new EvidentError("source_changed", message, { details: { field: "cursor" } });
}

async function rangeOf(deps: InspectDeps, item: Item, work: DocumentWork): Promise<void> {
  // Content read from Git objects is no file's current lines, whenever the search ran.
  if (work.historical !== undefined) throw historicalMatch(item.described, work.historical);
  if (work.expected === "missing") {
    throw sourceChanged(
      `${printablePath(work.display)} was not verified unchanged during the search, so its current lines cannot be tied to ${item.described}. Run the search again, or inspect it by path and line.`,
    );
  }
  if (work.failure !== undefined) throw work.failure;
  work.symbols ??= await deps.syntax.symbols(work.document as SourceDocument, deps.signal);
  if (item.target.kind === "symbol") symbolRange(item, item.target.symbol, work, work.symbols);
  else lineRange(item, work, work.symbols);
}

/** A symbol target's range: the one symbol its name picks, or why there is none. */
function symbolRange(item: Item, name: string, work: DocumentWork, symbols: SymbolsOutcome): void {
  if (symbols.status !== "ok") {
    throw new EvidentError(
      "syntax_unavailable",
      `Symbols of ${printablePath(work.display)} are not available (${symbols.reason}); inspect it by line instead.`,
      { details: { field: "symbol", status: symbols.status } },
    );
  }
  const picked = pickSymbol(symbolsNamed(symbols.symbols, name));
  if (picked === undefined)
    throw invalid("symbol", noSymbolNamed(name, printablePath(work.display), symbols.symbols));
  if ("ambiguous" in picked) {
    throw invalid(
      "symbol",
      `"${name}" names ${picked.ambiguous.length} symbols in ${printablePath(work.display)}: ${listCandidates(picked.ambiguous)}. Name one by its qualified name, or by line.`,
    );
  }
  setSymbol(item, picked.symbol, symbols);
  if (picked.symbol.hasSyntaxError) {
    item.syntax = {
      status: "parse_error",
      provider: providerOf(symbols),
      reason: "the parser recovered from a syntax error in this range, so its bounds may be wrong",
    };
  }
}

/** A line or match target's range: the symbol enclosing it, else an excerpt saying why. */
function lineRange(item: Item, work: DocumentWork, symbols: SymbolsOutcome): void {
  const line = item.line as number;
  const total = lineCount(work.document as SourceDocument);
  if (line > total) {
    throw invalid(
      item.target.kind === "match" ? "inspect" : "line",
      `line ${line} is past the end of ${printablePath(work.display)} (${total} lines).`,
    );
  }
  if (symbols.status === "ok") {
    const symbol = symbolAtMatch(symbols.symbols, line, item.column);
    if (symbol !== undefined && !symbol.hasSyntaxError) {
      setSymbol(item, symbol, symbols);
      return;
    }
    item.syntax =
      symbol === undefined
        ? {
            status: "no_symbol",
            provider: providerOf(symbols),
            reason: "no function, class or other symbol encloses this line",
          }
        : {
            status: "parse_error",
            provider: providerOf(symbols),
            reason: "the parser recovered from a syntax error around this line",
          };
  } else {
    item.syntax = { status: symbols.status, reason: symbols.reason };
  }
  item.range = {
    startLine: Math.max(1, line - INSPECT_EXCERPT_RADIUS_LINES),
    endLine: Math.min(total, line + INSPECT_EXCERPT_RADIUS_LINES),
  };
}

function providerOf(symbols: SymbolsOutcome): "ast-grep" | "ctags" | undefined {
  return symbols.status === "ok" ? symbols.provider : undefined;
}

function setSymbol(item: Item, symbol: SymbolRange, symbols: SymbolsOutcome): void {
  item.symbol = symbol;
  item.range = { startLine: symbol.startLine, endLine: symbol.endLine };
  item.syntax = { status: "symbol", provider: providerOf(symbols) };
}

/** Merged ranges per document, ordered by the first input that asks for each. */
function spansOf(items: readonly Item[]): SourceSpan[] {
  const byDocument = new Map<DocumentWork, LineRange[]>();
  for (const item of items) {
    if (item.error !== undefined || item.range === undefined || item.document === undefined) continue;
    const list = byDocument.get(item.document) ?? [];
    list.push(item.range);
    byDocument.set(item.document, list);
  }
  const spans: { span: SourceSpan; lines: LineRange; first: number }[] = [];
  for (const [work, ranges] of byDocument) {
    const document = work.document as SourceDocument;
    for (const lines of mergeLineRanges(ranges)) {
      const first = items.findIndex(
        (i) => i.document === work && i.range !== undefined && containsLines(lines, i.range),
      );
      spans.push({
        span: { document, display: work.display, range: bytesOfLines(document, lines) },
        lines,
        first,
      });
    }
  }
  spans.sort((a, b) => a.first - b.first || a.lines.startLine - b.lines.startLine);
  return spans.map((s) => s.span);
}

function outcomeOf(item: Item): InspectionOutcome {
  const { target } = item;
  const base: InspectionOutcome = {
    input: item.input,
    target:
      target.kind === "match"
        ? { match: target.index }
        : target.kind === "line"
          ? { path: target.path, line: target.line }
          : { path: target.path, symbol: target.symbol },
    status: item.error === undefined ? "complete" : "error",
    ...(item.document === undefined ? {} : { path: item.document.display }),
  };
  if (item.error !== undefined)
    return { ...base, error: { code: item.error.code, message: item.error.message } };
  const document = item.document?.document as SourceDocument;
  const range = item.range as LineRange;
  const bytes = bytesOfLines(document, range);
  return {
    ...base,
    range: { ...range, ...bytes },
    ...(item.symbol === undefined
      ? {}
      : {
          symbol: {
            name: item.symbol.name,
            qualifiedName: item.symbol.qualifiedName,
            kind: item.symbol.kind,
          },
        }),
    ...(item.syntax === undefined ? {} : { syntax: item.syntax }),
  };
}

/** Syntax and source coverage of the inputs, and the result's own when they are its matches (G05). */
function coverageOf(items: readonly Item[], snapshot: SnapshotData | undefined): CodeSearchCoverage {
  const counts: Record<string, number> = {};
  for (const item of items) {
    const key = item.error !== undefined ? "error" : (item.syntax?.status ?? "symbol");
    counts[key] = (counts[key] ?? 0) + 1;
  }
  const bySymbol = counts.symbol ?? 0;
  const ranged = items.length - (counts.error ?? 0);
  return {
    ...(snapshot === undefined
      ? {}
      : {
          occurrences: {
            status: snapshot.partialReason === undefined ? "complete" : "partial",
            counts: { matches: snapshot.matches.length, files: snapshot.files.length },
          },
        }),
    syntax: { status: bySymbol === ranged ? "complete" : bySymbol === 0 ? "none" : "partial", counts },
    // Filled in once the budget has been spent.
    retention: { status: "complete", counts: {} },
  };
}
