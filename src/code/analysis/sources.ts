/**
 * What impact and navigation share: where they search from (the containing Git repository, else
 * the file's directory), the file they start from (read once, verified, JavaScript or
 * TypeScript), and the files of their tree.
 */
import { dirname, isAbsolute, relative } from "node:path";
import { canonicalPath } from "../../core/canonical-path.js";
import { EvidentError } from "../../core/errors.js";
import { SOURCE_DOCUMENT_MAX_BYTES } from "../../core/limits.js";
import type { Phrasing } from "../../core/phrasing.js";
import type { InChanges } from "../changes/scope.js";
import type { Git } from "../git/process.js";
import { repositoryRoot } from "../git/repository.js";
import { type PathRules, resolveSearchTarget, type SearchTarget } from "../path-policy.js";
import { invalid, type SearchQuery } from "../request.js";
import type { Revision } from "../revisions/scan.js";
import type { SnapshotStore } from "../snapshots/store.js";
import { readSourceDocument, type SourceDocument } from "../source/document.js";
import { type AstGrepLanguage, astGrepLanguageOf } from "../syntax/languages.js";
import type { SyntaxLayer } from "../syntax/layer.js";
import type { CandidateLines } from "./any-of.js";
import type { AnalysisBounds } from "./store.js";

/** What an analysis needs from the service: its ripgrep scans, Git, the syntax layer. */
export interface AnalysisScans {
  /** The ordinary search of a query over a target: ripgrep, revisions observed around it. */
  scan(query: SearchQuery, target: SearchTarget, signal: AbortSignal): Promise<CandidateLines>;
  /** Every file of a target's scope, as ripgrep prints them (its names-only listing). */
  files(query: SearchQuery, target: SearchTarget, signal: AbortSignal): Promise<string[]>;
}

/** What an analysis uses: the service's parts and the call's own context. */
export interface AnalysisCall {
  readonly cwd: string;
  readonly pathRules: PathRules | undefined;
  readonly store: SnapshotStore;
  readonly syntax: SyntaxLayer;
  readonly git: Git;
  /** The ordinary scans, run for this call. */
  readonly scans: AnalysisScans;
  readonly analysisBounds: AnalysisBounds;
  readonly inChanges: InChanges;
  readonly phrasing: Phrasing;
  readonly caller: string;
  readonly signal: AbortSignal;
}

const SCRIPT_LANGUAGES: ReadonlySet<AstGrepLanguage> = new Set(["javascript", "typescript", "tsx"]);

/** Whether a path is JavaScript, TypeScript or TSX by its name. */
export function isScript(path: string): boolean {
  const language = astGrepLanguageOf(path);
  return language !== undefined && SCRIPT_LANGUAGES.has(language);
}

/**
 * The tree an analysis of `file` covers: the Git repository containing it, else its directory;
 * as a search target (path policy applied), so its scans read as any search's do.
 */
export async function navigationRoot(
  git: Git,
  cwd: string,
  file: string,
  signal: AbortSignal,
  rules: PathRules = {},
): Promise<SearchTarget> {
  const root = (await repositoryRoot(git, dirname(file), signal)) ?? dirname(file);
  // Named as the project root, or relative to it, when it lies there.
  const fromCwd = relative(canonicalPath(cwd), root);
  const inside = !fromCwd.startsWith("..") && !isAbsolute(fromCwd);
  // A caller confined to the project root covers no more of an enclosing repository than it.
  if (!inside && rules.confined === true) return resolveSearchTarget(cwd, undefined, rules);
  return resolveSearchTarget(cwd, !inside ? root : fromCwd === "" ? undefined : fromCwd, rules);
}

/** Where an analysis of one tree (impact, navigation) looked, as its stored result states it. */
export function treeFields(root: SearchTarget) {
  return {
    requestedRoot: root.requested,
    effectiveRoot: root.requested,
    expanded: false,
    rgCwd: root.rg.cwd,
    terms: [] as string[],
    termsScanned: [] as boolean[],
  };
}

/** `file` read and verified (against `expected` when given), or an error an agent can act on. */
export async function startingDocument(
  file: string,
  display: string,
  expected: Revision | undefined,
  field: string,
): Promise<SourceDocument> {
  const read = await readSourceDocument(file, expected === undefined ? {} : { expected });
  if (read.ok) return read.document;
  switch (read.reason) {
    case "changed":
      throw new EvidentError(
        "source_changed",
        expected === undefined
          ? `${display} changed while it was read; ask again.`
          : `${display} changed since the search; its current lines are not the matched ones. Run the search again.`,
        { details: { field } },
      );
    case "missing":
      throw invalid("path", `"${display}" does not exist.`);
    case "not_a_file":
      throw invalid("path", `"${display}" is not a file.`);
    case "unreadable":
      throw invalid("path", `"${display}" cannot be read (${read.detail}).`);
    case "too_large":
      throw new EvidentError(
        "source_too_large",
        `${display} has ${read.size} bytes, more than the ${SOURCE_DOCUMENT_MAX_BYTES / (1024 * 1024)} MiB a document may have.`,
        { details: { field: "path" } },
      );
  }
}
