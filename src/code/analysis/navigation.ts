/**
 * Navigation from one file, statically and within bounds:
 *   - imports: the files it imports (its static specifiers, resolved: relative and package-local
 *     ones to files of the tree, the rest listed unresolved), then the files that import it
 *     (candidates found by ripgrep, each parsed, within the parse budget, and kept only when one
 *     of its specifiers resolves to the file);
 *   - tests: its likely test files, by naming convention and because they import it.
 * The tree is the Git repository containing the file, else its directory. Nothing is run and no
 * link is claimed beyond what the source states.
 */
import { EvidentError } from "../../core/errors.js";
import { resolveSourceFile, type SearchTarget } from "../path-policy.js";
import type { NavigateRequest } from "../request.js";
import { pathUnder } from "../revisions/scan.js";
import { matchAt } from "../rg/match-table.js";
import type { AnalysisItem, CoverageFact } from "../snapshots/analysis.js";
import { compareKeys, displayPath } from "../snapshots/sequence.js";
import type { SourceDocument } from "../source/document.js";
import { PARSE_BYTES_TEXT, ParseBudget } from "../syntax/budget.js";
import { scanStop } from "./any-of.js";
import { Manifests, resolveInTurns } from "./resolve.js";
import { type AnalysisCall, isScript, navigationRoot, startingDocument, treeFields } from "./sources.js";
import { type AnalysisDraft, fileItem, placedItem, TextTable } from "./store.js";
import { isTestPath, namedTestsAmong, sourceSubject } from "./test-files.js";

interface Importers {
  readonly files: string[];
  /** Candidates left unparsed, by why. */
  readonly skipped: Record<string, number>;
}

/** What one direction of navigation found: its items, in order, and what it covered. */
interface Found {
  readonly items: AnalysisItem[];
  readonly coverage: Record<string, CoverageFact>;
}

/** The file navigation starts from, read once and verified. */
interface Start {
  readonly file: { readonly absolute: string; readonly display: string };
  readonly document: SourceDocument;
  readonly root: SearchTarget;
  readonly keyOf: (absolute: string) => string;
}

export async function navigate(deps: AnalysisCall, request: NavigateRequest): Promise<AnalysisDraft> {
  const file = resolveSourceFile(deps.cwd, request.path, deps.pathRules);
  const document = await startingDocument(file.absolute, file.display, undefined, "path");
  const root = await navigationRoot(deps.git, deps.cwd, file.absolute, deps.signal, deps.pathRules);
  const start: Start = { file, document, root, keyOf: keysUnder(root) };
  const script = isScript(file.absolute);
  if (request.direction === "imports" && !script) {
    throw new EvidentError(
      "invalid_arguments",
      `Invalid arguments: path: imports are read from JavaScript and TypeScript files; ${file.display} is not one.`,
      { details: { field: "path" } },
    );
  }
  const manifests = new Manifests();
  const importers = script
    ? await importersOf(deps, request, root, document, manifests)
    : { files: [], skipped: {} };
  const table = new TextTable();
  const found =
    request.direction === "imports"
      ? await importLinks(deps, start, importers, manifests, table)
      : await testCandidates(deps, request, start, importers, script);
  return {
    operation: request.direction,
    subject: `${request.direction} of ${file.display}`,
    ...treeFields(root),
    items: found.items,
    texts: table.texts,
    coverage: found.coverage,
    notes: request.direction === "tests" ? [script ? TESTS_NOTE : TESTS_BY_NAME_NOTE] : [IMPORTS_NOTE],
    searchErrors: 0,
    unverifiedFiles: 0,
  };
}

const TESTS_NOTE =
  "Test files are candidates by name and by import: none was run, and coverage was not evaluated.";
const TESTS_BY_NAME_NOTE =
  "Test files are candidates by name only (imports are read from JavaScript and TypeScript only, so a test that imports this file under another name is not found): none was run, and coverage was not evaluated.";
const IMPORTS_NOTE =
  "Links are static: specifiers computed at run time, and aliases only a bundler knows, are not followed.";

/** The importers' coverage: complete, or partial naming the candidates left unparsed. */
function importersFact(importers: Importers): CoverageFact {
  const skippedText = Object.entries(importers.skipped)
    .map(([why, n]) => `${n} candidate file(s) ${why}`)
    .join("; ");
  return skippedText === "" ? { status: "complete" } : { status: "partial", detail: skippedText };
}

/** The file's imports (resolved, then unresolved with their lines), then the files importing it. */
async function importLinks(
  deps: AnalysisCall,
  { file, document, root, keyOf }: Start,
  importers: Importers,
  manifests: Manifests,
  table: TextTable,
): Promise<Found> {
  const own = await deps.syntax.specifiers(document, deps.signal);
  if (own.status !== "ok") {
    throw new EvidentError(
      "syntax_unavailable",
      `The imports of ${file.display} cannot be read (${own.reason}).`,
      {
        details: { field: "path", status: own.status },
      },
    );
  }
  const lines = document.text.split("\n");
  const items: AnalysisItem[] = [];
  const unresolved: AnalysisItem[] = [];
  await resolveInTurns(
    own.specifiers,
    file.absolute,
    root.canonical,
    deps.signal,
    ({ specifier, line }, resolved) => {
      if (resolved.kind === "file") {
        items.push(
          fileItem("imports", keyOf(resolved.path), `"${specifier}" on line ${line}, ${resolved.via}`),
        );
      } else {
        unresolved.push(
          placedItem(
            fileItem("unresolved", keyOf(file.absolute), `"${specifier}": ${resolved.why}`),
            line,
            table.add(keyOf(file.absolute), line, (lines[line - 1] ?? "").replace(/\r$/, "")),
          ),
        );
      }
      return false;
    },
    manifests,
  );
  // A loop, not a spread: a file may hold more imports than a call may take arguments.
  for (const item of unresolved) items.push(item);
  for (const importer of importers.files) items.push(fileItem("imported-by", importer, "imports it"));
  return {
    items,
    coverage: {
      outgoing:
        own.syntaxErrors > 0
          ? { status: "partial", detail: "the file has syntax errors; imports inside them may be missed" }
          : { status: "complete" },
      importers: importersFact(importers),
    },
  };
}

/** Likely test files: named after the file, then test files that import it; each once. */
async function testCandidates(
  deps: AnalysisCall,
  request: NavigateRequest,
  { file, root, keyOf }: Start,
  importers: Importers,
  script: boolean,
): Promise<Found> {
  const files = await deps.scans.files(request.query, root, deps.signal);
  const items: AnalysisItem[] = [];
  const seen = new Set<string>();
  for (const { path, why } of namedTestsAmong(keyOf(file.absolute), files)) {
    seen.add(path);
    items.push(fileItem("test", path, `${why} (${sourceSubject(file.absolute)})`));
  }
  for (const importer of importers.files) {
    if (seen.has(importer) || !isTestPath(displayPath(importer))) continue;
    seen.add(importer);
    items.push(fileItem("test", importer, "imports it"));
  }
  return {
    items,
    coverage: {
      importers: script
        ? importersFact(importers)
        : { status: "not-evaluated", detail: "imports are read from JavaScript and TypeScript only" },
      testsRun: { status: "not-run" },
      testCoverage: { status: "not-evaluated" },
    },
  };
}

/** Paths as the root's scans print them: relative to ripgrep's directory, or absolute. */
function keysUnder(root: SearchTarget): (absolute: string) => string {
  const cwd = root.rg.cwd.endsWith("/") ? root.rg.cwd : `${root.rg.cwd}/`;
  return (absolute) =>
    root.rg.root.startsWith("/") || !absolute.startsWith(cwd) ? absolute : absolute.slice(cwd.length);
}

/**
 * Files whose static imports resolve to `document`: candidates are the script files where a
 * quoted string holds the file's name, each parsed (within the budget) and its specifiers
 * resolved.
 */
async function importersOf(
  deps: AnalysisCall,
  request: NavigateRequest,
  root: SearchTarget,
  document: SourceDocument,
  manifests: Manifests,
): Promise<Importers> {
  const name = sourceSubject(document.path);
  const pattern = `["'\`][^"'\`]*${name.replace(/[\\.+*?()|[\]{}^$#&\-~]/g, "\\$&")}[^"'\`]*["'\`]`;
  const lines = await deps.scans.scan(
    { ...request.query, pattern, literal: false, wholeWord: false },
    root,
    deps.signal,
  );
  const candidates = new Set<string>();
  for (let position = 0; position < lines.table.length; position++) {
    candidates.add(matchAt(lines.table, position).path);
  }
  const files: string[] = [];
  const skipped: Record<string, number> = {};
  const skip = (why: string) => {
    skipped[why] = (skipped[why] ?? 0) + 1;
  };
  if (lines.partialReason !== undefined)
    skip(`beyond the candidate scan's retention bound (${scanStop(lines)})`);
  let parsed = 0;
  const budget = new ParseBudget();
  for (const key of [...candidates].sort(compareKeys)) {
    const absolute = pathUnder(root.rg.cwd, key);
    if (absolute === document.path || !isScript(absolute)) continue;
    if (parsed >= request.maxParseFiles) {
      skip(`beyond the parse budget of ${request.maxParseFiles} files`);
      continue;
    }
    parsed++;
    const read = await budget.read(absolute);
    if (!read.ok) {
      skip(
        read.reason === "over_budget"
          ? `beyond the parse budget of ${PARSE_BYTES_TEXT}`
          : `unreadable (${read.reason})`,
      );
      continue;
    }
    const found = await deps.syntax.specifiers(read.document, deps.signal);
    if (found.status !== "ok") {
      skip(`not parsed (${found.status})`);
      continue;
    }
    let imports = false;
    await resolveInTurns(
      found.specifiers,
      absolute,
      root.canonical,
      deps.signal,
      (_s, resolved) => {
        imports = resolved.kind === "file" && resolved.path === document.path;
        return imports;
      },
      manifests,
    );
    if (imports) files.push(key);
    // Its quoted name may be an import the parser could not recover: not "does not import it".
    else if (found.syntaxErrors > 0) skip("with syntax errors, where an import of it may be missed");
  }
  return { files, skipped };
}
