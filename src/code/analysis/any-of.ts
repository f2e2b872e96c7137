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
import { keyAt, type MatchTable, matchAt } from "../rg/match-table.js";
import type { AnalysisItem, CoverageFact } from "../snapshots/analysis.js";
import { compareKeys, displayPath } from "../snapshots/sequence.js";
import { occurrenceItem, TextTable } from "./store.js";
import {
  alternation,
  isAscii,
  type TermMatcher,
  type TermOccurrence,
  termIgnoresCase,
  termMatcher,
} from "./terms.js";

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
  const matchers = terms.map((term) => termMatcher(term, caseMode, wholeWord));
  // One scan finds a superset of every term's lines: it ignores case if any term does.
  const query: SearchQuery = {
    ...request.query,
    pattern: alternation(terms),
    literal: false,
    caseMode: terms.some((term) => termIgnoresCase(term, caseMode)) ? "insensitive" : "sensitive",
  };
  const run = await scan(query);
  const { trusted } = run;
  // Per term, each file's items in arrival order: ripgrep reports a file's lines together and
  // in order, and a line's occurrences come in order, so ordering files is all that is left.
  const byTerm = terms.map(() => new Map<string, AnalysisItem[]>());
  const unverified = new Set<string>();
  let admit: Admission | undefined;
  if (admitFor !== undefined) {
    const paths = new Set<string>();
    for (let position = 0; position < run.table.length; position++) paths.add(keyAt(run.table, position));
    admit = await admitFor(paths);
  }
  for (let position = 0; position < run.table.length; position++) {
    const match = matchAt(run.table, position);
    if (admit !== undefined && !admit(match)) continue;
    const ascii = isAscii(match.text);
    let text = -1;
    for (let i = 0; i < matchers.length; i++) {
      const found = (matchers[i] as TermMatcher).find(match, ascii);
      for (let k = 0; k < found.length; k++) {
        const o = found[k] as TermOccurrence;
        if (text < 0) text = table.add(match.path, match.line, match.text);
        const files = byTerm[i] as Map<string, AnalysisItem[]>;
        let list = files.get(match.path);
        if (list === undefined) {
          list = [];
          files.set(match.path, list);
        }
        list.push(occurrenceItem(match.path, match.line, o, text, { term: group[i] as number }));
      }
    }
    if (text >= 0 && !Object.hasOwn(trusted, match.path)) unverified.add(match.path);
  }
  const items: AnalysisItem[] = [];
  for (const files of byTerm) {
    for (const path of [...files.keys()].sort(compareKeys)) {
      const list = files.get(path) as AnalysisItem[];
      // A file reported in two runs (never seen from ripgrep, but not ruled out) is put in order.
      if (list.some((item, i) => i > 0 && (list[i - 1] as AnalysisItem).line > item.line)) {
        list.sort((a, b) => a.line - b.line || a.startByte - b.startByte);
      }
      for (const item of list) items.push(item);
    }
  }
  return {
    items,
    complete: run.partialReason === undefined,
    stop: scanStop(run),
    unverified: [...unverified],
    searchErrors: run.searchErrors,
  };
}
