/**
 * Impact of a JavaScript/TypeScript/TSX symbol: every exact same-spelling occurrence of its name
 * in the tree it lives in, each with how it is written, then the test files related to it.
 *
 * One reliable target first, before any scan: a line chooses the smallest named symbol
 * enclosing it; a name chooses its symbol, an overload set its sole implementation; anything
 * else (no symbol, several, overloads without one body, a symbol the parser had to recover in)
 * is `invalid_arguments` saying why. Anonymous and default-export functions have no name to
 * search and are never targets.
 *
 * Then ripgrep finds every whole-word, case-sensitive occurrence of the name (G17: none is
 * filtered; in scripts a word includes `$`, see `spelled`). Each file that parses cleanly, up to the parse budget, classifies its occurrences
 * by syntax role (roles.ts) from its current bytes, read against the revision the scan observed;
 * any other file's occurrences stay, unclassified, with the reason. Related test files follow:
 * tests that mention the name, and tests named after the symbol's file. Binding is never
 * evaluated, tests are never run and coverage is never measured, and the answer says so.
 */
import { EvidentError } from "../../core/errors.js";
import { IMPACT_ROLE_STEPS } from "../../core/limits.js";
import { keptMatches, matchPlace } from "../inspect/matches.js";
import { resolveSourceFile, type SearchTarget } from "../path-policy.js";
import { historicalMatch, type ImpactRequest, type InspectTarget, invalid } from "../request.js";
import { pathUnder, type Revision } from "../revisions/scan.js";
import type { Occurrence, ParsedMatch } from "../rg/events.js";
import { matchAt } from "../rg/match-table.js";
import type { AnalysisItem, CoverageFact } from "../snapshots/analysis.js";
import { compareKeys, displayPath } from "../snapshots/sequence.js";
import type { SourceDocument } from "../source/document.js";
import { PARSE_BYTES_TEXT, ParseBudget } from "../syntax/budget.js";
import {
  besideOnItsLines,
  enclosingSymbol,
  listCandidates,
  noSymbolNamed,
  pickSymbol,
  type SymbolRange,
  symbolsNamed,
} from "../syntax/symbols.js";
import { type CandidateLines, scanStop } from "./any-of.js";
import { NodeLocator, roleOf } from "./roles.js";
import { type AnalysisCall, isScript, navigationRoot, startingDocument, treeFields } from "./sources.js";
import { type AnalysisDraft, fileItem, occurrenceItem, TextTable } from "./store.js";
import { isTestPath, namedTestsAmong } from "./test-files.js";

/** What the answer says every time: what an occurrence list is not. */
export const IMPACT_NOTES = [
  "Binding is not evaluated: every exact same-spelling occurrence is listed, and a role says how it is written, not that it refers to this symbol.",
  "Related tests are candidates: none was run, and coverage was not evaluated.",
];

/** Why an occurrence past the steps' budget has no role, in its note and in the coverage. */
const ROLE_BUDGET_TEXT = `beyond the budget of ${IMPACT_ROLE_STEPS} syntax steps (deeply nested code)`;

interface Target {
  readonly document: SourceDocument;
  readonly display: string;
  readonly symbol: SymbolRange;
}

export async function impactOf(deps: AnalysisCall, request: ImpactRequest): Promise<AnalysisDraft> {
  const target = await selectTarget(deps, request);
  const name = target.symbol.name;
  const root = await navigationRoot(deps.git, deps.cwd, target.document.path, deps.signal, deps.pathRules);
  const query = {
    ...request.query,
    pattern: name,
    literal: true,
    caseMode: "sensitive" as const,
    wholeWord: true,
  };
  const lines = await deps.scans.scan(query, root, deps.signal);
  const byFile = occurrencesByFile(lines);
  const table = new TextTable();
  const found = await classifyOccurrences(deps, request, root, lines, byFile, table);
  const { items } = found;

  // Related tests, after the occurrences and only with what room the budget leaves.
  const room = deps.analysisBounds.maxItems - items.length;
  const tests = room > 0 ? await relatedTests(deps, request, root, target, byFile, name) : [];
  for (const test of tests.slice(0, Math.max(0, room))) items.push(fileItem("test", test.path, test.why));
  const { symbol } = target;
  return {
    operation: "impact",
    subject: `impact of ${symbol.kind} ${symbol.qualifiedName} (${target.display}:${symbol.startLine}-${symbol.endLine})`,
    ...treeFields(root),
    items,
    texts: table.texts,
    coverage: {
      occurrences:
        lines.partialReason === undefined
          ? { status: "complete" }
          : { status: "partial", detail: `the scan stopped at its retention bound (${scanStop(lines)})` },
      syntax: syntaxFact(found),
      relatedTests: relatedTestsFact(room, tests.length, deps.analysisBounds.maxItems),
      binding: { status: "not-evaluated", detail: "same spelling is not proof of the same symbol" },
      testsRun: { status: "not-run" },
      testCoverage: { status: "not-evaluated" },
    },
    notes: IMPACT_NOTES,
    fileScope: { globs: request.query.globs, excludes: request.query.excludes },
    searchErrors: lines.searchErrors,
    unverifiedFiles: [...byFile.keys()].filter((p) => !Object.hasOwn(lines.trusted, p)).length,
  };
}

/** The scan's positions holding the name, by file: files in path order, each file's lines in order. */
function occurrencesByFile(lines: CandidateLines): Map<string, number[]> {
  // ripgrep reports a file's lines together.
  const byFile = new Map<string, number[]>();
  for (let position = 0; position < lines.table.length; position++) {
    const match = matchAt(lines.table, position);
    if (spelled(match).length === 0) continue;
    let positions = byFile.get(match.path);
    if (positions === undefined) {
      positions = [];
      byFile.set(match.path, positions);
    }
    positions.push(position);
  }
  return byFile;
}

/** The occurrences as items with their roles, and what their classification covered. */
interface Classified {
  readonly items: AnalysisItem[];
  /** Files by outcome: "classified", or "unclassified: <why>". */
  readonly files: Record<string, number>;
  /** Occurrences in parsed files left unclassified by the steps' budget. */
  overBudget: number;
}

/** What the call's files share while they are parsed: the parse budget and the steps' budget. */
interface ParseState {
  parsed: number;
  readonly budget: ParseBudget;
  /** Steps down the syntax trees to place occurrences, shared by the call's files. */
  readonly steps: { steps: number };
}

async function classifyOccurrences(
  deps: AnalysisCall,
  request: ImpactRequest,
  root: SearchTarget,
  lines: CandidateLines,
  byFile: ReadonlyMap<string, readonly number[]>,
  table: TextTable,
): Promise<Classified> {
  const found: Classified = { items: [], files: {}, overBudget: 0 };
  const state: ParseState = { parsed: 0, budget: new ParseBudget(), steps: { steps: IMPACT_ROLE_STEPS } };
  for (const path of [...byFile.keys()].sort(compareKeys)) {
    const trusted = Object.hasOwn(lines.trusted, path) ? lines.trusted[path] : undefined;
    const { why, locator } = await fileSyntax(deps, request, root, path, trusted, state);
    const key = why === undefined ? "classified" : `unclassified: ${why}`;
    found.files[key] = (found.files[key] ?? 0) + 1;
    for (const position of byFile.get(path) as readonly number[]) {
      const match = matchAt(lines.table, position);
      const text = table.add(path, match.line, match.text);
      for (const o of spelled(match)) {
        const way = locator?.pathTo(match.line - 1, o.startColumn, o.endColumn);
        if (locator !== undefined && way === undefined) found.overBudget++;
        const role = way === undefined ? "unclassified" : roleOf(way);
        const note = why ?? (way === undefined ? ROLE_BUDGET_TEXT : undefined);
        found.items.push(occurrenceItem(path, match.line, o, text, { role, note }));
      }
    }
  }
  return found;
}

/** A file's syntax tree to place its occurrences in, or why they stay unclassified. */
async function fileSyntax(
  deps: AnalysisCall,
  request: ImpactRequest,
  root: SearchTarget,
  path: string,
  trusted: Revision | undefined,
  state: ParseState,
): Promise<{ why?: string; locator?: NodeLocator }> {
  if (!isScript(path)) return { why: "not JavaScript or TypeScript" };
  if (state.parsed >= request.maxParseFiles)
    return { why: `beyond the parse budget of ${request.maxParseFiles} files` };
  if (trusted === undefined) return { why: "its revision was not observed unchanged during the scan" };
  state.parsed++;
  const read = await state.budget.read(pathUnder(root.rg.cwd, path), { expected: trusted });
  if (!read.ok) {
    if (read.reason === "over_budget") return { why: `beyond the parse budget of ${PARSE_BYTES_TEXT}` };
    return { why: read.reason === "changed" ? "changed since the scan" : `not readable (${read.reason})` };
  }
  const tree = await deps.syntax.tree(read.document, deps.signal);
  if (tree.status !== "ok") return { why: tree.reason };
  if (tree.facts.syntaxErrors > 0) return { why: "it does not parse cleanly (syntax errors)" };
  return { locator: new NodeLocator(tree.root.root(), state.steps) };
}

function syntaxFact(found: Classified): CoverageFact {
  const unclassified = Object.entries(found.files)
    .filter(([k]) => k !== "classified")
    .map(([k, n]) => `${n} file(s) ${k}`);
  if (found.overBudget > 0) {
    unclassified.push(`${found.overBudget} occurrence(s) unclassified: ${ROLE_BUDGET_TEXT}`);
  }
  if (unclassified.length === 0) return { status: "complete" };
  return {
    status: (found.files.classified ?? 0) === 0 ? "none" : "partial",
    detail: unclassified.join("; "),
  };
}

function relatedTestsFact(room: number, candidates: number, maxItems: number): CoverageFact {
  if (room <= 0) {
    return {
      status: "partial",
      detail: `not looked for: the exact occurrences used the whole budget of ${maxItems} items`,
    };
  }
  return candidates > room
    ? { status: "partial", detail: `${candidates - room} candidates beyond the budget` }
    : { status: "complete" };
}

/**
 * A match's occurrences that are the name itself. ripgrep's word boundary takes `$` for a
 * boundary, but in a script `$` is part of a name: `el` inside `$el` or `$$el` is another name.
 */
function spelled(match: ParsedMatch): readonly Occurrence[] {
  if (!isScript(match.path)) return match.occurrences;
  return match.occurrences.filter(
    (o) => match.text[o.startColumn - 1] !== "$" && match.text[o.endColumn] !== "$",
  );
}

/** Where the target's symbol is looked for: its file, and a line (with a column) or a name. */
interface TargetSource {
  readonly absolute: string;
  readonly display: string;
  /** For a match: the revision the search observed. */
  readonly expected?: Revision | undefined;
  readonly line?: number | undefined;
  /** A match's first occurrence's column: it tells apart symbols sharing the line. */
  readonly column?: number | undefined;
}

/** The one symbol the request names, or why none can be chosen reliably. */
async function selectTarget(deps: AnalysisCall, request: ImpactRequest): Promise<Target> {
  const { target } = request;
  const source =
    target.kind === "match"
      ? await matchSource(deps, request.cursor as string, target.index)
      : pathSource(deps, target);
  const field = target.kind === "match" ? "inspect" : target.kind;
  const { absolute: file, display } = source;
  if (!isScript(file)) {
    throw invalid(
      "path",
      `impact reads JavaScript and TypeScript (.js, .jsx, .mjs, .cjs, .ts, .tsx, .mts, .cts); ${display} is not.`,
    );
  }
  const document = await startingDocument(file, display, source.expected, field);
  const facts = await deps.syntax.facts(document, deps.signal);
  if (facts.status !== "ok") {
    throw new EvidentError(
      "syntax_unavailable",
      `The symbols of ${display} are not available (${facts.reason}), so no target can be chosen.`,
      { details: { field, status: facts.status } },
    );
  }
  const symbols = facts.facts.symbols;
  const named =
    source.line !== undefined
      ? symbolAtLine(symbols, source, source.line, field)
      : symbolByName(symbols, (target as { symbol: string }).symbol, display);
  const symbol = implementationOf(named, symbols, display, field);
  if (symbol.hasSyntaxError) {
    throw invalid(
      field,
      `the parser recovered from a syntax error in ${symbol.qualifiedName} (${display}:${symbol.startLine}-${symbol.endLine}), so it is not a reliable target; fix the file or name another symbol.`,
    );
  }
  return { document, display, symbol };
}

/** A match of a cursor's result, as a file to read at the revision the search observed. */
async function matchSource(deps: AnalysisCall, cursor: string, index: number): Promise<TargetSource> {
  const snapshot = await keptMatches(deps.store, deps.caller, cursor, [index], "inspect");
  const place = matchPlace(snapshot, index);
  if (place.historical !== undefined) {
    throw historicalMatch(`match [${index}] ${place.display}:${place.line}`, place.historical);
  }
  if (place.expected === undefined) {
    throw new EvidentError(
      "source_changed",
      `${place.display} was not verified unchanged during the search, so match [${index}] cannot be tied to its current lines. Run the search again, or name the symbol by path and line.`,
      { details: { field: "cursor" } },
    );
  }
  return place;
}

function pathSource(deps: AnalysisCall, target: Exclude<InspectTarget, { kind: "match" }>): TargetSource {
  const resolved = resolveSourceFile(deps.cwd, target.path, deps.pathRules);
  return {
    absolute: resolved.absolute,
    display: resolved.display,
    line: target.kind === "line" ? target.line : undefined,
  };
}

/** The smallest named symbol enclosing the line (at the match's column when known), if it is alone there. */
function symbolAtLine(
  symbols: readonly SymbolRange[],
  { display, column }: TargetSource,
  line: number,
  field: string,
): SymbolRange {
  const byColumn =
    column === undefined ? undefined : enclosingSymbol(symbols, line, line, { start: column, end: column });
  const enclosing = byColumn ?? enclosingSymbol(symbols, line);
  if (enclosing === undefined) {
    throw invalid(
      field,
      `no named function, class, method, type or variable encloses line ${line} of ${display}; anonymous and default-export functions have no name to search. Give the line of a named symbol, or its name.`,
    );
  }
  const beside = byColumn === undefined ? besideOnItsLines(symbols, enclosing) : [];
  if (beside.length > 0) {
    const listed = [enclosing, ...beside]
      .sort((a, b) => (a.startColumn ?? 0) - (b.startColumn ?? 0))
      .slice(0, 10)
      .map((s) => `${s.qualifiedName} (${s.kind})`)
      .join("; ");
    throw invalid(
      field,
      `line ${line} of ${display} holds ${beside.length + 1} symbols side by side (${listed}), so a line does not name one. Name it by its symbol.`,
    );
  }
  return enclosing;
}

function symbolByName(symbols: readonly SymbolRange[], name: string, display: string): SymbolRange {
  const picked = pickSymbol(symbolsNamed(symbols, name));
  if (picked === undefined) throw invalid("symbol", noSymbolNamed(name, display, symbols));
  if ("ambiguous" in picked) throw ambiguity(name, picked.ambiguous, display, "symbol");
  return picked.symbol;
}

/** An overload signature stands for its set: the set's one implementation, or none reliably. */
function implementationOf(
  symbol: SymbolRange,
  symbols: readonly SymbolRange[],
  display: string,
  field: string,
): SymbolRange {
  if (!symbol.kind.endsWith("signature")) return symbol;
  const set = symbols.filter((s) => s.qualifiedName === symbol.qualifiedName);
  const picked = pickSymbol(set);
  if (picked === undefined || "ambiguous" in picked)
    throw ambiguity(symbol.qualifiedName, set, display, field);
  return picked.symbol;
}

function ambiguity(
  name: string,
  candidates: readonly SymbolRange[],
  display: string,
  field: string,
): EvidentError {
  const listed = listCandidates(candidates);
  const bodies = candidates.filter((s) => !s.kind.endsWith("signature")).length;
  const why =
    bodies === 0
      ? "an overload set with no implementation to choose"
      : bodies > 1
        ? `${bodies} implementations`
        : `${candidates.length} symbols`;
  return invalid(
    field,
    `"${name}" is ambiguous in ${display}: ${why} (${listed}). Name one by its qualified name or by the line of its body.`,
  );
}

/** Tests that mention the name, then tests named after the symbol's file; each once. */
async function relatedTests(
  deps: AnalysisCall,
  request: ImpactRequest,
  root: SearchTarget,
  target: Target,
  occurrenceFiles: ReadonlyMap<string, unknown>,
  name: string,
): Promise<{ path: string; why: string }[]> {
  const seen = new Set<string>();
  const tests: { path: string; why: string }[] = [];
  for (const path of [...occurrenceFiles.keys()].sort(compareKeys)) {
    if (isTestPath(displayPath(path)) && !seen.has(path)) {
      seen.add(path);
      tests.push({ path, why: `mentions ${name}` });
    }
  }
  const files = await deps.scans.files(request.query, root, deps.signal);
  const own = files.find((f) => pathUnder(root.rg.cwd, f) === target.document.path);
  if (own !== undefined) {
    for (const { path, why } of namedTestsAmong(own, files)) {
      if (seen.has(path)) continue;
      seen.add(path);
      tests.push({ path, why: `${why} (${displayPath(own)})` });
    }
  }
  return tests;
}
