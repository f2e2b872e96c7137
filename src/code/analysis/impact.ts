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
import type { Git } from "../git/process.js";
import { type PathRules, resolveSourceFile, type SearchTarget } from "../path-policy.js";
import { printablePath } from "../render/detail-page.js";
import { historicalMatch, type ImpactRequest, invalid } from "../request.js";
import { pathUnder, type Revision } from "../revisions/scan.js";
import type { Occurrence, ParsedMatch } from "../rg/events.js";
import { loadMatches, matchAt } from "../rg/match-table.js";
import type { AnalysisItem, CoverageFact } from "../snapshots/analysis.js";
import { compareKeys, displayPath } from "../snapshots/sequence.js";
import { type SnapshotStore, searchSnapshot } from "../snapshots/store.js";
import type { SourceDocument } from "../source/document.js";
import { PARSE_BYTES_TEXT, ParseBudget } from "../syntax/budget.js";
import type { SyntaxLayer } from "../syntax/layer.js";
import {
  besideOnItsLines,
  enclosingSymbol,
  pickSymbol,
  type SymbolRange,
  symbolsNamed,
} from "../syntax/symbols.js";
import { scanStop } from "./any-of.js";
import { NodeLocator, roleOf } from "./roles.js";
import { type AnalysisScans, isScript, navigationRoot, startingDocument, treeFields } from "./sources.js";
import { type AnalysisBounds, type AnalysisDraft, TextTable } from "./store.js";
import { isTestPath, namedTests } from "./test-files.js";

export interface ImpactDeps {
  readonly cwd: string;
  /** What the service adds to the path policy (see path-policy.ts). */
  readonly pathRules?: PathRules;
  readonly store: SnapshotStore;
  readonly syntax: SyntaxLayer;
  readonly git: Git;
  readonly scans: AnalysisScans;
  readonly bounds: AnalysisBounds;
  readonly caller: string;
  readonly signal: AbortSignal;
}

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

export async function impactOf(deps: ImpactDeps, request: ImpactRequest): Promise<AnalysisDraft> {
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

  // Files in path order, each file's lines in order (ripgrep reports a file's lines together).
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
  const table = new TextTable();
  const items: AnalysisItem[] = [];
  const classified: Record<string, number> = {};
  let parsed = 0;
  const budget = new ParseBudget();
  /** Steps down the syntax trees to place occurrences, shared by the call's files. */
  const steps = { steps: IMPACT_ROLE_STEPS };
  let overBudget = 0;
  for (const path of [...byFile.keys()].sort(compareKeys)) {
    const positions = byFile.get(path) as number[];
    const trusted: Revision | undefined = Object.hasOwn(lines.trusted, path)
      ? lines.trusted[path]
      : undefined;
    let why: string | undefined;
    let tree: Awaited<ReturnType<SyntaxLayer["tree"]>> | undefined;
    if (!isScript(path)) why = "not JavaScript or TypeScript";
    else if (parsed >= request.maxParseFiles)
      why = `beyond the parse budget of ${request.maxParseFiles} files`;
    else if (trusted === undefined) why = "its revision was not observed unchanged during the scan";
    else {
      parsed++;
      const read = await budget.read(pathUnder(root.rg.cwd, path), { expected: trusted });
      if (!read.ok)
        why =
          read.reason === "over_budget"
            ? `beyond the parse budget of ${PARSE_BYTES_TEXT}`
            : read.reason === "changed"
              ? "changed since the scan"
              : `not readable (${read.reason})`;
      else {
        tree = await deps.syntax.tree(read.document, deps.signal);
        if (tree.status !== "ok") why = tree.reason;
        else if (tree.facts.syntaxErrors > 0) why = "it does not parse cleanly (syntax errors)";
      }
    }
    const key = why === undefined ? "classified" : `unclassified: ${why}`;
    classified[key] = (classified[key] ?? 0) + 1;
    const locator =
      tree !== undefined && tree.status === "ok" && why === undefined
        ? new NodeLocator(tree.root.root(), steps)
        : undefined;
    for (const position of positions) {
      const match = matchAt(lines.table, position);
      const text = table.add(path, match.line, match.text);
      for (const o of spelled(match)) {
        const way = locator?.pathTo(match.line - 1, o.startColumn, o.endColumn);
        const role = way === undefined ? "unclassified" : roleOf(way);
        if (locator !== undefined && way === undefined) overBudget++;
        items.push({
          kind: "occurrence",
          path,
          line: match.line,
          startByte: o.startByte,
          endByte: o.endByte,
          startColumn: o.startColumn,
          endColumn: o.endColumn,
          text,
          role,
          ...(why !== undefined ? { note: why } : way === undefined ? { note: ROLE_BUDGET_TEXT } : {}),
        });
      }
    }
  }

  // Related tests, after the occurrences and only with what room the budget leaves.
  const room = deps.bounds.maxItems - items.length;
  const tests = room > 0 ? await relatedTests(deps, request, root, target, byFile, name) : [];
  for (const test of tests.slice(0, Math.max(0, room))) {
    items.push({
      kind: "test",
      path: test.path,
      line: 0,
      startByte: -1,
      endByte: -1,
      startColumn: -1,
      endColumn: -1,
      text: -1,
      note: test.why,
    });
  }
  const relatedTestsFact: CoverageFact =
    room <= 0
      ? {
          status: "partial",
          detail: `not looked for: the exact occurrences used the whole budget of ${deps.bounds.maxItems} items`,
        }
      : tests.length > room
        ? { status: "partial", detail: `${tests.length - room} candidates beyond the budget` }
        : { status: "complete" };
  const unclassified = Object.entries(classified)
    .filter(([k]) => k !== "classified")
    .map(([k, n]) => `${n} file(s) ${k}`);
  if (overBudget > 0) {
    unclassified.push(`${overBudget} occurrence(s) unclassified: ${ROLE_BUDGET_TEXT}`);
  }
  const syntax: CoverageFact =
    unclassified.length === 0
      ? { status: "complete" }
      : {
          status: (classified.classified ?? 0) === 0 ? "none" : "partial",
          detail: unclassified.join("; "),
        };
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
      syntax,
      relatedTests: relatedTestsFact,
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

/** The one symbol the request names, or why none can be chosen reliably. */
async function selectTarget(deps: ImpactDeps, request: ImpactRequest): Promise<Target> {
  const { target } = request;
  let file: string;
  let display: string;
  let expected: Revision | undefined;
  let line: number | undefined;
  /** A match's first occurrence's column: it tells apart symbols sharing the line. */
  let column: number | undefined;
  if (target.kind === "match") {
    const state = deps.store.decodeCursor(request.cursor as string);
    const snapshot = await searchSnapshot(deps.store, deps.caller, state.snapshotId);
    if (target.index > snapshot.matches.length) {
      throw invalid(
        "inspect",
        `there is no match [${target.index}]; this result has ${snapshot.matches.length}.`,
      );
    }
    await loadMatches(snapshot.matches, [target.index - 1]);
    const match = matchAt(snapshot.matches, target.index - 1);
    if (match.pathLossy) {
      throw invalid(
        "inspect",
        `match [${target.index}] is in ${printablePath(displayPath(match.path))}, whose name is not valid UTF-8 (shown with U+FFFD), so the file cannot be read again by that name.`,
      );
    }
    const changes = snapshot.changes;
    if (changes?.source === "objects") {
      throw historicalMatch(
        `match [${target.index}] ${displayPath(match.path)}:${match.line}`,
        `the ${changes.side} side of ${changes.comparison}`,
      );
    }
    if (!Object.hasOwn(snapshot.trustedRevisions, match.path)) {
      throw new EvidentError(
        "source_changed",
        `${displayPath(match.path)} was not verified unchanged during the search, so match [${target.index}] cannot be tied to its current lines. Run the search again, or name the symbol by path and line.`,
        { details: { field: "cursor" } },
      );
    }
    file = pathUnder(snapshot.rgCwd, match.path);
    display = displayPath(match.path);
    expected = snapshot.trustedRevisions[match.path];
    line = match.line;
    const first = match.occurrences[0];
    if (first !== undefined && !match.textLossy) column = first.startColumn;
  } else {
    const resolved = resolveSourceFile(deps.cwd, target.path, deps.pathRules);
    file = resolved.absolute;
    display = resolved.display;
    if (target.kind === "line") line = target.line;
  }
  const field = target.kind === "match" ? "inspect" : target.kind;
  if (!isScript(file)) {
    throw invalid(
      "path",
      `impact reads JavaScript and TypeScript (.js, .jsx, .mjs, .cjs, .ts, .tsx, .mts, .cts); ${display} is not.`,
    );
  }
  const document = await startingDocument(file, display, expected, field);
  const facts = await deps.syntax.facts(document, deps.signal);
  if (facts.status !== "ok") {
    throw new EvidentError(
      "syntax_unavailable",
      `The symbols of ${display} are not available (${facts.reason}), so no target can be chosen.`,
      { details: { field, status: facts.status } },
    );
  }
  const symbols = facts.facts.symbols;
  let symbol: SymbolRange;
  if (line !== undefined) {
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
    symbol = enclosing;
  } else {
    const name = (target as { symbol: string }).symbol;
    const picked = pickSymbol(symbolsNamed(symbols, name));
    if (picked === undefined) {
      const known = symbols.slice(0, 20).map((s) => s.qualifiedName);
      throw invalid(
        "symbol",
        `no symbol named "${name}" in ${display}${known.length > 0 ? ` (it has ${known.join(", ")}${symbols.length > known.length ? ", ..." : ""})` : ""}.`,
      );
    }
    if ("ambiguous" in picked) throw ambiguity(name, picked.ambiguous, display, "symbol");
    symbol = picked.symbol;
  }
  // An overload signature stands for its set: the set's one implementation, or none reliably.
  if (symbol.kind.endsWith("signature")) {
    const set = symbols.filter((s) => s.qualifiedName === symbol.qualifiedName);
    const picked = pickSymbol(set);
    if (picked === undefined || "ambiguous" in picked) {
      throw ambiguity(symbol.qualifiedName, set, display, field);
    }
    symbol = picked.symbol;
  }
  if (symbol.hasSyntaxError) {
    throw invalid(
      field,
      `the parser recovered from a syntax error in ${symbol.qualifiedName} (${display}:${symbol.startLine}-${symbol.endLine}), so it is not a reliable target; fix the file or name another symbol.`,
    );
  }
  return { document, display, symbol };
}

function ambiguity(
  name: string,
  candidates: readonly SymbolRange[],
  display: string,
  field: string,
): EvidentError {
  const listed = candidates
    .slice(0, 10)
    .map((s) => `${s.qualifiedName} (${s.kind}, lines ${s.startLine}-${s.endLine})`)
    .join("; ");
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
  deps: ImpactDeps,
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
    const byDisplay = new Map(files.map((f) => [displayPath(f), f]));
    for (const candidate of namedTests(displayPath(own), [...byDisplay.keys()])) {
      const key = byDisplay.get(candidate.path) as string;
      if (seen.has(key)) continue;
      seen.add(key);
      tests.push({ path: key, why: `${candidate.why} (${displayPath(own)})` });
    }
  }
  return tests;
}
