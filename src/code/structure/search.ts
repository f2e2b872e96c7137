/**
 * Structure search: an ast-grep pattern (`console.log($A)`) over the same file scope and path
 * policy as a pattern search. ripgrep lists the candidates first: files in scope containing the
 * pattern's longest literal word (every match must contain it), or every file in scope when the
 * pattern has none; only files of a language ast-grep parses here are candidates. At most
 * `maxParseFiles` of them, and of those as many as fit in PARSE_BYTES_MAX, are parsed, in path
 * order; each is read as a verified document, so its matches are tied to the revision that was
 * parsed. Every candidate that was not searched is
 * counted by why (no provider, oversized, unreadable, changed, over the parse budget), apart
 * from the matches and from what the snapshot retained (G05).
 */
import { isUtf8 } from "node:buffer";
import type { SgNode, SgRoot } from "@ast-grep/napi";
import { throwIfAborted } from "../../core/abort.js";
import { EvidentError } from "../../core/errors.js";
import {
  SNAPSHOT_MATCH_OVERHEAD_BYTES,
  SNAPSHOT_MAX_BYTES,
  SNAPSHOT_MAX_MATCHES,
  STRUCTURE_PATTERN_CHECKS_MAX,
} from "../../core/limits.js";
import type { Slots } from "../../core/slots.js";
import type { SearchTarget } from "../path-policy.js";
import type { StructureRequest } from "../request.js";
import { pathUnder, type Revision } from "../revisions/scan.js";
import { buildFilesArgs, fileScopeArgs } from "../rg/args.js";
import type { ParsedMatch } from "../rg/events.js";
import { listNames } from "../rg/names.js";
import type { CodeSearchCoverage, StructureNode } from "../schema.js";
import { compareKeys } from "../snapshots/sequence.js";
import { lineEnd, lineStart, type SourceDocument } from "../source/document.js";
import { type AstGrepRuntime, loadAstGrep } from "../syntax/ast-grep.js";
import { ParseBudget } from "../syntax/budget.js";
import { astGrepLanguageOf } from "../syntax/languages.js";
import type { SyntaxLayer } from "../syntax/layer.js";
import { enclosingSymbol } from "../syntax/symbols.js";

export interface StructureRun {
  /** The literal word ripgrep prefiltered candidates with, if the pattern has one. */
  readonly prefilter: string | undefined;
  /** Matches in path, then position order, and the node behind each. */
  readonly matches: readonly ParsedMatch[];
  readonly nodes: readonly StructureNode[];
  readonly trusted: Record<string, Revision>;
  readonly coverage: CodeSearchCoverage;
  /** Why retention stopped early: the match count or the text kept (as a pattern search's). */
  readonly partialReason: "max_matches" | "max_bytes" | undefined;
  readonly bytes: number;
}

export interface StructureOptions {
  readonly rgPath: string;
  /** ripgrep's whole environment: what the caller handed down (config/ settings' childEnvironment). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly syntax: SyntaxLayer;
  readonly signal: AbortSignal;
  readonly onSpawn?: ((pid: number) => void) | undefined;
  readonly slots?: Slots | undefined;
}

/** Words of the pattern that every match contains verbatim; metavariables ($A, $$$B) are not. */
export function literalWords(pattern: string): string[] {
  return [...pattern.replace(/\$\$?\$?[A-Z_][A-Z0-9_]*/g, " ").matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)].map(
    (m) => m[0],
  );
}

/** A match found, the node behind it, and its column (for the order within a line). */
interface Found {
  readonly match: ParsedMatch;
  readonly node: StructureNode;
  readonly column: number;
}

/** What the search gathers file by file: candidates counted by outcome, and what it keeps. */
interface Gathered {
  readonly counts: Record<string, number>;
  readonly found: Found[];
  readonly trusted: Record<string, Revision>;
  /** Languages where the pattern does not parse as code. */
  readonly invalidIn: Set<string>;
  stopped: StructureRun["partialReason"];
  bytes: number;
}

export async function structureSearch(
  options: StructureOptions,
  request: StructureRequest,
  target: SearchTarget,
): Promise<StructureRun> {
  const runtime = await loadAstGrep();
  if ("error" in runtime) {
    throw new EvidentError(
      "syntax_unavailable",
      `Structure search needs ast-grep, which is not available: ${runtime.error}.`,
    );
  }
  const longest = literalWords(request.structure).reduce<string | undefined>(
    (a, w) => (a === undefined || w.length > a.length ? w : a),
    undefined,
  );
  const listed = await listCandidates(options, request, target, longest);
  const gathered: Gathered = {
    counts: {},
    found: [],
    trusted: {},
    invalidIn: new Set(),
    stopped: undefined,
    bytes: 0,
  };
  const budget = new ParseBudget();
  for (const name of chooseFiles(listed, runtime, request.maxParseFiles, gathered.counts)) {
    throwIfAborted(options.signal);
    if (gathered.stopped) count(gathered.counts, "not_searched_retention");
    else await searchFile(options, runtime.napi, request.structure, target, name, budget, gathered);
  }
  if (gathered.counts.parsed === undefined && gathered.invalidIn.size > 0) {
    throw new EvidentError(
      "invalid_arguments",
      `Invalid arguments: structure: the pattern does not parse as code in ${[...gathered.invalidIn].join(", ")}; write it as a complete expression or statement, e.g. "console.log($A)".`,
      { details: { field: "structure" } },
    );
  }
  const { found } = gathered;
  found.sort(
    (a, b) => compareKeys(a.match.path, b.match.path) || a.match.line - b.match.line || a.column - b.column,
  );
  return {
    prefilter: longest,
    matches: found.map((f) => f.match),
    nodes: found.map((f) => f.node),
    trusted: gathered.trusted,
    partialReason: gathered.stopped,
    bytes: gathered.bytes,
    coverage: coverageOf(listed.length, gathered),
  };
}

function count(counts: Record<string, number>, key: string, n = 1): void {
  counts[key] = (counts[key] ?? 0) + n;
}

/** The candidates ast-grep parses here, in path order, at most `maxParseFiles`; the rest counted. */
function chooseFiles(
  listed: readonly string[],
  runtime: AstGrepRuntime,
  maxParseFiles: number,
  counts: Record<string, number>,
): string[] {
  const candidates: string[] = [];
  for (const name of listed) {
    const language = astGrepLanguageOf(name);
    if (language === undefined) continue;
    if (!runtime.available.has(language)) count(counts, "no_provider");
    else candidates.push(name);
  }
  candidates.sort(compareKeys);
  const chosen = candidates.slice(0, maxParseFiles);
  if (candidates.length > chosen.length) count(counts, "over_budget", candidates.length - chosen.length);
  return chosen;
}

/** How a candidate that could not be read is counted. */
const UNREAD: Readonly<Record<string, string>> = {
  over_budget: "over_budget",
  too_large: "oversized",
  changed: "changed",
};

/** Parses one candidate and keeps its matches, until retention's bounds stop the search. */
async function searchFile(
  options: StructureOptions,
  napi: AstGrepRuntime["napi"],
  pattern: string,
  target: SearchTarget,
  name: string,
  budget: ParseBudget,
  gathered: Gathered,
): Promise<void> {
  const { counts, found } = gathered;
  const read = await budget.read(pathUnder(target.rg.cwd, name));
  if (!read.ok) return count(counts, UNREAD[read.reason] ?? "unreadable");
  const document = read.document;
  const tree = await options.syntax.tree(document, options.signal);
  if (tree.status !== "ok") return count(counts, tree.status);
  if (!patternParses(napi, tree.language, pattern)) {
    gathered.invalidIn.add(tree.language);
    return count(counts, "pattern_not_valid_here");
  }
  count(counts, "parsed");
  if (tree.facts.syntaxErrors > 0) count(counts, "parsed_with_syntax_errors");
  gathered.trusted[name] = document.revision;
  for (const node of findAll(tree.root, pattern)) {
    if (found.length >= SNAPSHOT_MAX_MATCHES) {
      gathered.stopped = "max_matches";
      return;
    }
    const match = toMatch(name, document, node, tree.facts.symbols);
    // Each match keeps its line: on a long line of nested code, 50,000 nodes would keep
    // 50,000 copies of it (gigabytes), so the text kept is bounded as a pattern search's is.
    const size = matchBytes(match.match);
    if (gathered.bytes + size > SNAPSHOT_MAX_BYTES) {
      gathered.stopped = "max_bytes";
      return;
    }
    gathered.bytes += size;
    found.push(match);
  }
}

function coverageOf(candidateFiles: number, { counts, stopped, found }: Gathered): CodeSearchCoverage {
  const notSearched = Object.entries(counts)
    .filter(([key]) => key !== "parsed" && key !== "parsed_with_syntax_errors")
    .reduce((n, [, v]) => n + v, 0);
  const parsed = counts.parsed ?? 0;
  return {
    occurrences: {
      status: "complete",
      counts: { candidateFiles },
    },
    // A file parsed with syntax errors may hide matches (the text says so): not complete.
    syntax: {
      status:
        notSearched === 0 && counts.parsed_with_syntax_errors === undefined
          ? "complete"
          : parsed === 0
            ? "none"
            : "partial",
      counts,
    },
    retention: {
      status: stopped === undefined ? "complete" : "partial",
      counts: { matches: found.length },
    },
  };
}

/** Names of files in scope, as ripgrep prints them (NUL-framed), protected areas dropped. */
async function listCandidates(
  options: StructureOptions,
  request: StructureRequest,
  target: SearchTarget,
  word: string | undefined,
): Promise<string[]> {
  const args =
    word === undefined
      ? buildFilesArgs(request.query, target.rg)
      : [
          "--files-with-matches",
          "--null",
          "--no-config",
          "--fixed-strings",
          "--case-sensitive",
          ...fileScopeArgs(request.query, target.rg),
          "--",
          word,
          target.rg.root,
        ];
  return listNames({
    rgPath: options.rgPath,
    env: options.env,
    args,
    target: target.rg,
    signal: options.signal,
    onSpawn: options.onSpawn,
    slots: options.slots,
  });
}

const validPatterns = new Map<string, boolean>();

/**
 * ast-grep refuses some patterns that parse only when it matches them (no node at all, as with
 * blank text; several statements; a lone `$$$`): that is the agent's to fix, whatever the file.
 */
function findAll(root: SgRoot, pattern: string): SgNode[] {
  try {
    return root.root().findAll(pattern);
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split(/[.\n]/)[0]?.slice(0, 120);
    throw new EvidentError(
      "invalid_arguments",
      `Invalid arguments: structure: ast-grep cannot use this pattern (${reason}); write it as one complete expression or statement, e.g. "console.log($A)".`,
      { details: { field: "structure" } },
    );
  }
}

/** Whether the pattern is code in this language (ast-grep matches nothing, silently, otherwise). */
function patternParses(napi: typeof import("@ast-grep/napi"), language: string, pattern: string): boolean {
  const key = `${language}\0${pattern}`;
  let valid = validPatterns.get(key);
  if (valid === undefined) {
    // Metavariables are not identifiers in every grammar; a plain name stands in for each.
    const code = pattern.replace(
      /\$\$?\$?([A-Z_][A-Z0-9_]*)?/g,
      (_m, name: string | undefined) => `mv_${name ?? "x"}`,
    );
    const lang =
      ({ javascript: "JavaScript", typescript: "TypeScript", tsx: "Tsx" } as Record<string, string>)[
        language
      ] ?? language;
    try {
      valid =
        napi
          .parse(lang as never, code)
          .root()
          .find({ rule: { kind: "ERROR" } }) === null;
    } catch {
      valid = false;
    }
    if (validPatterns.size >= STRUCTURE_PATTERN_CHECKS_MAX) validPatterns.clear();
    validPatterns.set(key, valid);
  }
  return valid;
}

/** What a match costs the snapshot store: its line as UTF-16, its path, the fixed overhead. */
function matchBytes(match: ParsedMatch): number {
  return match.text.length * 2 + match.path.length + SNAPSHOT_MATCH_OVERHEAD_BYTES + 64;
}

function toMatch(
  name: string,
  document: SourceDocument,
  node: SgNode,
  symbols: Parameters<typeof enclosingSymbol>[0],
): Found {
  const range = node.range();
  const line = range.start.line + 1;
  const endLine = range.end.line + 1;
  const lineBytes = document.bytes.subarray(lineStart(document, line), lineEnd(document, line));
  let text = lineBytes.toString("utf8").replace(/\n$/, "");
  if (text.endsWith("\r")) text = text.slice(0, -1);
  const endColumn = endLine === line ? range.end.column : text.length;
  // The node's own columns: a line can hold several symbols (ast-grep's unit on both sides).
  const symbol = enclosingSymbol(symbols, line, endLine, {
    start: range.start.column,
    end: range.end.column,
  });
  return {
    column: range.start.column,
    match: {
      path: name,
      pathLossy: false,
      line,
      absoluteOffset: lineStart(document, line),
      text,
      // The line's own bytes: a document that is not UTF-8 may still have this line right.
      textLossy: !document.utf8 && !isUtf8(lineBytes),
      occurrences: [
        {
          startByte: Buffer.byteLength(text.slice(0, range.start.column)),
          endByte: Buffer.byteLength(text.slice(0, endColumn)),
          startColumn: range.start.column,
          endColumn,
        },
      ],
    },
    node: {
      startLine: line,
      startColumn: range.start.column + 1,
      endLine,
      endColumn: range.end.column + 1,
      ...(symbol === undefined ? {} : { symbol: symbol.qualifiedName }),
    },
  };
}
