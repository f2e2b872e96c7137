/**
 * code_search's guide: every form and option in full, with defaults and limits. The tool's
 * definition travels with every agent turn, so it stays short and names this guide, which an
 * agent asks for once with `{"guide": true}` on any surface (a tool call, `evident grep --guide`,
 * the SDK, Pi). A test checks that it names every input property.
 */
import {
  ANALYSIS_ITEMS_PER_PAGE,
  ANYOF_TERM_MAX_BYTES,
  ANYOF_TERMS_MAX,
  ANYOF_TERMS_MIN,
  CODE_ANSWER_MAX_BYTES,
  CODE_CONTEXT_DEFAULT_LINES,
  CODE_CONTEXT_MAX_LINES,
  CODE_GLOBS_MAX,
  CODE_LIMIT_MAX,
  CODE_PATHS_MAX,
  DETAIL_PAGE_DEFAULT_MATCHES,
  INSPECT_EXCERPT_RADIUS_LINES,
  INSPECT_TARGETS_MAX,
  PARSE_BYTES_MAX,
  PARSE_FILES_DEFAULT,
  PARSE_FILES_MAX,
  SNAPSHOT_TTL_MS,
} from "../core/limits.js";

const KIB = 1024;
const MIB = 1024 * 1024;

export const CODE_SEARCH_GUIDE = `code_search guide. Each call takes one of the forms below; a field a form does not take is refused with invalid_arguments naming it.

SEARCH {"pattern": "..."}
- pattern: a Rust-syntax regular expression (ripgrep), on one line; literal: true reads it as exact text.
- path: the file or directory to search, relative to the project root (absolute paths work on local surfaces). Default: the root.
- glob: only files matching these globs, e.g. ["src/**", "!*.test.ts"]; exclude: skip files or directories matching these, e.g. ["dist"]. Up to ${CODE_GLOBS_MAX} each.
- ignoreCase: true ignores case, false matches exact case; omitted, smart case (exact only when the pattern has capitals). wholeWord: whole words only. hidden: search hidden files and directories (default true; .git internals never).
- context: lines of current-file context around each shown match (0-${CODE_CONTEXT_MAX_LINES}, default ${CODE_CONTEXT_DEFAULT_LINES}).
- mode: "auto" (default) returns the matches when they fit, else a summary: files ranked by matching lines, with samples and a cursor. "summary": always the files; "matches": a page of matches. limit (1-${CODE_LIMIT_MAX}, default ${DETAIL_PAGE_DEFAULT_MATCHES}): matches per page; setting it returns matches, not a summary.
- scope: "expand" (default): when path has no match, the project root is searched too, and the answer says so; "strict": only path.
- redact: mask credential-like values in the shown text (display only: matching, counts and cursors are unchanged).

PAGE {"cursor": "..."}
More of a result without searching again: the next matches, or with mode: "summary" the next files; paths (1-${CODE_PATHS_MAX} files of the result) narrows a page to those files; limit and context apply. A cursor works for ${SNAPSHOT_TTL_MS / 60_000} minutes after its last use, only for the caller that got it, and never reruns the search.

INSPECT: the whole function, method, class or type around a place, with its line numbers, instead of reading the file
- {"cursor", "inspect": n}: match [n] of that result; {"cursor", "matchIndices": [n, ...]}: up to ${INSPECT_TARGETS_MAX} matches.
- {"path", "line"}, or {"path", "symbol"} with a name such as "parse" or "Parser.parse"; {"targets": [{"path", "line"}, {"path", "symbol"}, ...]}: up to ${INSPECT_TARGETS_MAX}.
One answer holds ${CODE_ANSWER_MAX_BYTES / KIB} KiB; what did not fit is named, with a sourceCursor: {"sourceCursor": "..."}, alone (redact may be repeated), returns exactly the missing bytes. A match is inspected only while its file is unchanged since the search (else source_changed). Symbols come from ast-grep (JavaScript, TypeScript, TSX, Python, Go, Rust, Java) or Universal Ctags (other languages, when installed); without one, the answer is an excerpt of ${INSPECT_EXCERPT_RADIUS_LINES} lines each side and says why.

STRUCTURE {"structure": "console.log($A)"}
Instead of pattern: an ast-grep code pattern ($A: any one node, $$$: any nodes) in JavaScript, TypeScript, Python, Go, Rust or Java; each match with its whole node and the symbol around it. Paths, globs, pages and cursors work as for a pattern. maxParseFiles (1-${PARSE_FILES_MAX}, default ${PARSE_FILES_DEFAULT}) bounds the files parsed, and ${PARSE_BYTES_MAX / MIB} MiB of source bounds them whatever it says.

ANY OF {"anyOf": ["a", "b", ...]}
Instead of pattern: ${ANYOF_TERMS_MIN}-${ANYOF_TERMS_MAX} exact texts (up to ${ANYOF_TERM_MAX_BYTES} bytes each) in one search. Every occurrence is attributed to its term, in one order (term, path, position) across pages of at most ${ANALYSIS_ITEMS_PER_PAGE} items; per-term counts say "at least" when a bound cut them.

CHANGES {"pattern" or "anyOf", "changes": "worktree"}
Only what Git shows changed: "worktree" (against HEAD; untracked files count as added), "staged", "BASE..TARGET" or "BASE...TARGET". changeScope: "lines" (default; an occurrence must lie wholly on changed lines) or "files" (whole changed files). changeSide: "new" (default) or "old" content, read from Git objects.

IMPACT {"impact": true, "path", "line"} (or "path" and "symbol", or "cursor" and "inspect")
For a JavaScript or TypeScript symbol: every exact same-spelling occurrence in its repository with its syntax role (declaration, call, import, type reference, property, string, comment...), then related test files. Same spelling is not a proven binding, and no test is run. maxParseFiles applies.

NAVIGATE {"navigate": "imports" or "tests", "path": a file}
"imports": what the file imports (resolved where relative or package-local) and what imports it; "tests": its likely test files, by name and by import. maxParseFiles applies.

ANSWERS
Every answer starts with the project root it searched, keeps each matching line's path, line, columns and a stable index [n], and says what is partial, changed, unverified or not parsed; coverage of matches, syntax and retention is told apart. Never searched: .git internals, credential stores, shell histories, system credential files, evident's own configuration and cache.`;
