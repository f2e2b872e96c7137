/**
 * anyOf: several literal terms found at once, every occurrence attributed to its term.
 *
 * Terms are split, in input order, into groups of at most ANYOF_GROUP_TERMS. Each group runs one
 * candidate scan: ripgrep with the alternation of its terms over the ordinary file scope (path
 * policy, ignore files, globs), which returns every line holding some term of the group. Up to
 * ANYOF_CONCURRENT_GROUPS groups scan at once. Each term is then found again, on its own, in the
 * lines of its group (terms.ts), so overlapping occurrences of different terms are all kept.
 * The items are ordered by term (input order), then path, then byte position: one order for
 * every page (G16). Counts are derived later from the items the store admits (store.ts).
 */
import { mapBounded } from "../../core/concurrency.js";
import { ANYOF_CONCURRENT_GROUPS, ANYOF_GROUP_TERMS } from "../../core/limits.js";
import type { Admission } from "../changes/scope.js";
import { printablePath } from "../render/detail-page.js";
import type { AnyOfRequest, SearchQuery } from "../request.js";
import type { Revision } from "../revisions/scan.js";
import type { PartialReason } from "../rg/content-search.js";
import type { ParsedMatch } from "../rg/events.js";
import { keyAt, type MatchTable, matchAt } from "../rg/match-table.js";
import type { AnalysisItem, CoverageFact } from "../snapshots/analysis.js";
import { compareKeys, displayPath } from "../snapshots/sequence.js";
import { TextTable, termItem } from "./store.js";
import { alternation, isAscii, type TermMatcher, termIgnoresCase, termMatcher } from "./terms.js";

/** The lines a candidate scan found, and what it said about them. */
export interface CandidateLines {
  readonly table: MatchTable;
  readonly partialReason: PartialReason | undefined;
  /** The file holding the line over the protocol cap, by path (`protocol_line_limit`). */
  readonly longLineKey?: string | undefined;
  readonly searchErrors: number;
  /** Revisions observed unchanged around the scan, by path. */
  readonly trusted: Readonly<Record<string, Revision>>;
}

/** Why a candidate scan stopped, naming the file whose line was too long to read. */
export function scanStop(lines: CandidateLines): string | undefined {
  if (lines.partialReason === undefined || lines.longLineKey === undefined) return lines.partialReason;
  return `${lines.partialReason} in ${printablePath(displayPath(lines.longLineKey))}`;
}

/** Runs one candidate scan of the request's file scope (or of a change scope's content). */
export type CandidateScan = (query: SearchQuery, signal: AbortSignal) => Promise<CandidateLines>;

/** The admission of occurrences in these files (a change scope fetches their changed lines). */
export type AdmissionFor = (paths: Iterable<string>) => Promise<Admission>;

export interface AnyOfScan {
  readonly items: readonly AnalysisItem[];
  readonly texts: readonly string[];
  readonly termsScanned: readonly boolean[];
  readonly coverage: Readonly<Record<string, CoverageFact>>;
  readonly searchErrors: number;
  readonly unverifiedFiles: number;
}

export async function scanAnyOf(
  request: AnyOfRequest,
  scan: CandidateScan,
  admit: AdmissionFor | undefined,
  signal: AbortSignal,
): Promise<AnyOfScan> {
  const groups: number[][] = [];
  for (let t = 0; t < request.terms.length; t += ANYOF_GROUP_TERMS) {
    groups.push(
      Array.from({ length: Math.min(ANYOF_GROUP_TERMS, request.terms.length - t) }, (_, i) => t + i),
    );
  }
  const table = new TextTable();
  const results = await mapBounded(
    groups,
    ANYOF_CONCURRENT_GROUPS,
    (group, groupSignal) => scanGroup(request, group, (query) => scan(query, groupSignal), admit, table),
    signal,
  );
  const items: AnalysisItem[] = [];
  const termsScanned: boolean[] = [];
  const unverified = new Set<string>();
  let searchErrors = 0;
  const stops: string[] = [];
  for (const [g, result] of results.entries()) {
    // Groups hold consecutive terms, so group order is term order. (A loop: a spread of a
    // group's items, which may be hundreds of thousands, can exceed the argument limit.)
    for (const item of result.items) items.push(item);
    for (const _ of groups[g] ?? []) termsScanned.push(result.complete);
    for (const path of result.unverified) unverified.add(path);
    searchErrors += result.searchErrors;
    if (result.stop !== undefined) stops.push(`terms ${termRange(groups[g] ?? [])}: ${result.stop}`);
  }
  const occurrences: CoverageFact =
    stops.length === 0
      ? { status: "complete" }
      : {
          status: "partial",
          detail: `a candidate scan stopped at its retention bound (${stops.join("; ")}), so those terms may occur in lines not seen`,
        };
  return {
    items,
    texts: table.texts,
    termsScanned,
    coverage: { occurrences },
    searchErrors,
    unverifiedFiles: unverified.size,
  };
}

function termRange(group: readonly number[]): string {
  const first = (group[0] ?? 0) + 1;
  const last = (group[group.length - 1] ?? 0) + 1;
  return first === last ? `#${first}` : `#${first}-#${last}`;
}

interface GroupResult {
  readonly items: AnalysisItem[];
  readonly complete: boolean;
  readonly stop: string | undefined;
  readonly unverified: readonly string[];
  readonly searchErrors: number;
}

async function scanGroup(
  request: AnyOfRequest,
  group: readonly number[],
  scan: (query: SearchQuery) => Promise<CandidateLines>,
  admitFor: AdmissionFor | undefined,
  table: TextTable,
): Promise<GroupResult> {
  const terms = group.map((t) => request.terms[t] as string);
  const { caseMode, wholeWord } = request.query;
  // One scan finds a superset of every term's lines: it ignores case if any term does.
  const query: SearchQuery = {
    ...request.query,
    pattern: alternation(terms),
    literal: false,
    caseMode: terms.some((term) => termIgnoresCase(term, caseMode)) ? "insensitive" : "sensitive",
  };
  const run = await scan(query);
  const admit = admitFor === undefined ? undefined : await admitFor(filesOf(run.table));
  const found = new GroupOccurrences(
    group.map((t, i) => ({ term: t, matcher: termMatcher(terms[i] as string, caseMode, wholeWord) })),
    table,
    run.trusted,
  );
  readCandidates(run.table, admit, found);
  return {
    items: found.ordered(),
    complete: run.partialReason === undefined,
    stop: scanStop(run),
    unverified: [...found.unverified],
    searchErrors: run.searchErrors,
  };
}

/** The files a candidate scan found lines in. */
function filesOf(lines: MatchTable): Set<string> {
  const paths = new Set<string>();
  for (let position = 0; position < lines.length; position++) paths.add(keyAt(lines, position));
  return paths;
}

/** Reads every candidate line the admission lets through into the group's occurrences. */
function readCandidates(lines: MatchTable, admit: Admission | undefined, found: GroupOccurrences): void {
  for (let position = 0; position < lines.length; position++) {
    const match = matchAt(lines, position);
    if (admit === undefined || admit(match)) found.read(match);
  }
}

interface GroupTerm {
  /** The term's index in the request. */
  readonly term: number;
  readonly matcher: TermMatcher;
}

/**
 * One group's occurrences, per term and file in arrival order: ripgrep reports a file's lines
 * together and in order, and a line's occurrences come in order, so ordering files is all that
 * is left (`ordered`).
 */
class GroupOccurrences {
  readonly unverified = new Set<string>();
  readonly #terms: readonly GroupTerm[];
  readonly #byTerm: Map<string, AnalysisItem[]>[];
  readonly #table: TextTable;
  readonly #trusted: Readonly<Record<string, Revision>>;

  constructor(terms: readonly GroupTerm[], table: TextTable, trusted: Readonly<Record<string, Revision>>) {
    this.#terms = terms;
    this.#byTerm = terms.map(() => new Map());
    this.#table = table;
    this.#trusted = trusted;
  }

  /** Finds each term in one candidate line, filing its occurrences under the term. */
  read(match: ParsedMatch): void {
    const ascii = isAscii(match.text);
    let text = -1;
    for (let i = 0; i < this.#terms.length; i++) {
      const { term, matcher } = this.#terms[i] as GroupTerm;
      const found = matcher.find(match, ascii);
      if (found.length === 0) continue;
      if (text < 0) text = this.#table.add(match.path, match.line, match.text);
      const list = this.#list(i, match.path);
      for (const o of found) list.push(termItem(match.path, match.line, o, text, term));
    }
    if (text >= 0 && !Object.hasOwn(this.#trusted, match.path)) this.unverified.add(match.path);
  }

  /** The items of term `i` in this file, so far. */
  #list(i: number, path: string): AnalysisItem[] {
    const files = this.#byTerm[i] as Map<string, AnalysisItem[]>;
    let list = files.get(path);
    if (list === undefined) {
      list = [];
      files.set(path, list);
    }
    return list;
  }

  /** Every item, by term (input order), then path, then position. */
  ordered(): AnalysisItem[] {
    const items: AnalysisItem[] = [];
    for (const files of this.#byTerm) {
      for (const path of [...files.keys()].sort(compareKeys)) {
        const list = files.get(path) as AnalysisItem[];
        // A file reported in two runs (never seen from ripgrep, but not ruled out) is put in order.
        if (list.some((item, i) => i > 0 && (list[i - 1] as AnalysisItem).line > item.line)) {
          list.sort((a, b) => a.line - b.line || a.startByte - b.startByte);
        }
        for (const item of list) items.push(item);
      }
    }
    return items;
  }
}
