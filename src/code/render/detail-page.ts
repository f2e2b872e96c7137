/**
 * Detail pages: retained matching lines, grouped by file, each with its path, original line
 * number and stable 1-based index. A page stops at its match count, its character budget or the
 * hard byte bound, whichever comes first, and always shows at least one match so a cursor walk
 * makes progress. Display limits (ranges per line, long-line excerpts) only shorten what is
 * shown; the snapshot keeps every occurrence, and the counts of what was left out are stated.
 */
import {
  LONG_LINE_CHARS,
  LONG_LINE_EXCERPT_RADIUS_CHARS,
  LONG_LINE_MAX_WINDOWS,
  MAX_DISPLAYED_OCCURRENCES,
} from "../../core/limits.js";
import type { Occurrence } from "../rg/events.js";
import { keyAt, loadMatches, type MatchTable, matchAt } from "../rg/match-table.js";
import type { StructureNode } from "../schema.js";
import { displayPath, type MatchSequence } from "../snapshots/sequence.js";
import type { SnapshotData, SnapshotMatch } from "../snapshots/store.js";
import type { FileStatus, PageSources } from "../source/page-sources.js";
import { mayEndPemBody, redactText } from "./redact.js";

export interface ShownRange {
  readonly startByte: number;
  readonly endByte: number;
  /** 1-based UTF-16 columns, end exclusive. */
  readonly startColumn: number;
  readonly endColumn: number;
}

export interface ShownMatch {
  readonly index: number;
  readonly path: string;
  readonly line: number;
  readonly text: string;
  readonly ranges: readonly ShownRange[];
  readonly rangesOmitted: number;
  readonly excerpt: boolean;
  readonly node?: StructureNode;
}

export interface DetailOptions {
  readonly snapshot: SnapshotData;
  readonly sequence: MatchSequence;
  readonly offset: number;
  readonly maxMatches: number;
  readonly maxChars: number;
  readonly maxBytes: number;
  readonly context: number;
  readonly redact: boolean;
  readonly sources: PageSources;
}

export interface DetailPage {
  readonly text: string;
  readonly shown: readonly ShownMatch[];
  /** Position in the sequence where the next page starts, or undefined after the last match. */
  readonly nextOffset: number | undefined;
  readonly rangesOmitted: number;
  readonly matchesTruncated: number;
  readonly changedFiles: readonly string[];
  readonly unverifiedFiles: readonly string[];
  readonly contextUnavailableFiles: readonly string[];
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
// What JSON.stringify leaves as it is: C1 controls, separators and bidirectional controls.
const UNPRINTABLE_ALL = /[\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A path as one line of text: names with control characters (a newline is legal in a file
 * name), Unicode line or paragraph separators, bidirectional controls, or a start like a match
 * line's `[n] ` are shown as JSON strings (those characters escaped) so they cannot fake or
 * break the surrounding lines.
 */
export function printablePath(path: string): string {
  if (!UNPRINTABLE.test(path) && !/^\[\d+\] /.test(path)) return path;
  return JSON.stringify(path).replace(
    UNPRINTABLE_ALL,
    (c) => `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, "0")}`,
  );
}

export async function renderDetailPage(options: DetailOptions): Promise<DetailPage> {
  const { snapshot, sequence } = options;
  await loadMatches(snapshot.matches, pagePositions(options));
  const lineOf = new Map<number, number>();
  const lineAt = (i: number) => {
    let line = lineOf.get(i);
    if (line === undefined) {
      line = matchAt(snapshot.matches, i).line;
      lineOf.set(i, line);
    }
    return line;
  };
  // Lines read from Git objects have no current file: the frame says so once for all.
  const page = new PageBuilder(options, snapshot.changes?.source === "objects");
  let position = options.offset;
  for (; position < sequence.length && page.shown.length < options.maxMatches; position++) {
    const block = await matchBlock(options, sequence.at(position), page, lineAt);
    if (!page.add(block)) break;
  }
  return page.finish(position < sequence.length ? position : undefined);
}

/** One match as the page shows it: the file's header when it starts one, context, the line. */
interface Block {
  readonly path: string;
  readonly text: string;
  readonly shown: ShownMatch;
  readonly status: FileStatus;
  /** The last of the file's lines the block prints. */
  readonly printed: number;
  /** Context was asked for and is not shown. */
  readonly noContext: boolean;
}

async function matchBlock(
  options: DetailOptions,
  index: number,
  page: PageBuilder,
  lineAt: (position: number) => number,
): Promise<Block> {
  const { snapshot, sources } = options;
  const match = matchAt(snapshot.matches, index);
  // Reading context re-checks the revision, so ask for status only after it.
  const lines = options.context > 0 ? await sources.lines(match.path) : undefined;
  // Without context, redaction still needs the line before one that could end a PEM body.
  const before =
    lines === undefined && options.redact && mayEndPemBody(match.text)
      ? await sources.lines(match.path)
      : lines;
  const status = await sources.status(match.path);
  const newFile = match.path !== page.currentKey;
  const header = newFile ? [fileHeader(match, page.historical ? "current" : status)] : [];
  const rendered = renderMatch(
    match,
    index + 1,
    options.redact,
    snapshot.structure?.nodes[index],
    match.line > 1 ? before?.[match.line - 2] : "",
  );
  const bare = `${[...header, rendered.line].join("\n")}\n`;
  const around =
    lines === undefined
      ? undefined
      : withContext(
          options,
          match.line,
          rendered.line,
          lines,
          newFile ? 0 : page.lastPrinted,
          nearbyMatchLines(snapshot.matches, index, options.context, lineAt),
        );
  const block = { path: match.path, shown: rendered.shown, status };
  const text = around === undefined ? bare : `${[...header, ...around.rows].join("\n")}\n`;
  // Context must never push a page's first match past the hard bound: show it without.
  if (page.shown.length === 0 && Buffer.byteLength(text, "utf8") > options.maxBytes) {
    return { ...block, text: bare, printed: match.line, noContext: true };
  }
  return {
    ...block,
    text,
    printed: around?.printed ?? match.line,
    noContext: options.context > 0 && lines === undefined,
  };
}

/**
 * The match line between its context lines: those before it not yet printed, then those after
 * it up to the next retained match, with "…" where lines are skipped.
 */
function withContext(
  options: DetailOptions,
  matchLine: number,
  rendered: string,
  lines: readonly string[],
  printedBefore: number,
  nearby: ReadonlySet<number>,
): { rows: string[]; printed: number } {
  const rows: string[] = [];
  let printed = printedBefore;
  const contextLine = (line: number) => {
    if (line > printed + 1 && printed > 0) rows.push("    …");
    rows.push(
      `    ${line}-  ${clip(lines[line - 1] ?? "", options.redact, line > 1 ? lines[line - 2] : "")}`,
    );
    printed = line;
  };
  for (let line = Math.max(1, matchLine - options.context); line < matchLine; line++) {
    // Retained matching lines are shown only as matches, on their own page, never as context.
    if (line > printed && !nearby.has(line)) contextLine(line);
  }
  if (printed > 0 && matchLine > printed + 1) rows.push("    …");
  rows.push(rendered);
  printed = matchLine;
  const last = Math.min(lines.length, matchLine + options.context);
  for (let line = matchLine + 1; line <= last; line++) {
    // Stop at the next retained match: it prints itself (or belongs to another page), and
    // lines beyond it are its context, so the page stays in line order without repeats.
    if (nearby.has(line)) break;
    contextLine(line);
  }
  return { rows, printed };
}

/** A page as its blocks are added: the text, within its bounds, and what it says about files. */
class PageBuilder {
  readonly shown: ShownMatch[] = [];
  /** The file of the last block added, and the last of its lines printed. */
  currentKey: string | undefined;
  lastPrinted = 0;
  readonly #parts: string[] = [];
  #chars = 0;
  #bytes = 0;
  readonly #changed = new Set<string>();
  readonly #unverified = new Set<string>();
  readonly #contextUnavailable = new Set<string>();

  constructor(
    private readonly options: DetailOptions,
    /** Lines read from Git objects: no current file to check or read context from. */
    readonly historical: boolean,
  ) {}

  /** Adds the block, or says it does not fit (a page's first block always does). */
  add(block: Block): boolean {
    const { text } = block;
    const blockBytes = Buffer.byteLength(text, "utf8");
    if (
      this.shown.length > 0 &&
      (this.#chars + text.length > this.options.maxChars || this.#bytes + blockBytes > this.options.maxBytes)
    )
      return false;
    this.#parts.push(text);
    this.#chars += text.length;
    this.#bytes += blockBytes;
    this.shown.push(block.shown);
    const display = displayPath(block.path);
    if (block.noContext && !this.historical) this.#contextUnavailable.add(display);
    if (block.status === "changed") this.#changed.add(display);
    if (block.status === "unverified" && !this.historical) this.#unverified.add(display);
    this.currentKey = block.path;
    this.lastPrinted = block.printed;
    return true;
  }

  finish(nextOffset: number | undefined): DetailPage {
    return {
      text: this.#parts.join(""),
      shown: this.shown,
      nextOffset,
      rangesOmitted: this.shown.reduce((n, m) => n + m.rangesOmitted, 0),
      matchesTruncated: this.shown.filter((m) => m.rangesOmitted > 0).length,
      changedFiles: [...this.#changed],
      unverifiedFiles: [...this.#unverified],
      contextUnavailableFiles: [...this.#contextUnavailable],
    };
  }
}

/**
 * A name that is not UTF-8 is shown with U+FFFD and cannot be named back; ripgrep's globs match
 * its bytes, so a `*` for each U+FFFD selects it.
 */
const LOSSY_NAME = "name not valid UTF-8, shown with U+FFFD: a glob with * for each U+FFFD selects it";

function fileHeader(match: SnapshotMatch, status: FileStatus): string {
  const path = printablePath(displayPath(match.path));
  const notes = match.pathLossy ? [LOSSY_NAME] : [];
  if (status === "changed") notes.push("changed since the search: lines are as searched; no current context");
  if (status === "unverified") notes.push("revision unverified");
  return notes.length === 0 ? path : `${path}  (${notes.join("; ")})`;
}

/**
 * The snapshot positions a page may read: those it can show (at most `maxMatches` from its
 * offset) and, with context, the neighbours `isRetainedLine` looks at.
 */
function* pagePositions(options: DetailOptions): Generator<number> {
  const { sequence, context } = options;
  const last = Math.min(sequence.length, options.offset + options.maxMatches);
  for (let position = options.offset; position < last; position++) {
    const index = sequence.at(position);
    const from = Math.max(0, index - context);
    const to = Math.min(options.snapshot.matches.length, index + context + 1);
    for (let i = from; i < to; i++) yield i;
  }
}

/**
 * The retained matching lines of the file of the match at `index` that lie within `context`
 * lines of it. A file's matches are contiguous and in increasing line order, one per line, so
 * they are within `context` positions of `index`: only those are looked at.
 */
function nearbyMatchLines(
  table: MatchTable,
  index: number,
  context: number,
  lineAt: (position: number) => number,
): Set<number> {
  const key = keyAt(table, index);
  const lines = new Set<number>();
  const from = Math.max(0, index - context);
  const to = Math.min(table.length, index + context + 1);
  for (let i = from; i < to; i++) if (keyAt(table, i) === key) lines.add(lineAt(i));
  return lines;
}

export interface RenderedMatch {
  readonly line: string;
  readonly shown: ShownMatch;
}

/**
 * One matching line: `[index] line:col,col  text`, excerpted around occurrences when long.
 * `previous`, the file's line before it when known, helps redaction (see redact.ts).
 */
export function renderMatch(
  match: SnapshotMatch,
  index: number,
  redact: boolean,
  node?: StructureNode,
  previous?: string,
): RenderedMatch {
  const displayed = match.occurrences.slice(0, MAX_DISPLAYED_OCCURRENCES);
  const omitted = match.occurrences.length - displayed.length;
  const excerpt = match.text.length > LONG_LINE_CHARS;
  let body = excerpt ? excerptLine(match.text, displayed) : match.text;
  if (redact) body = redactText(body, previous).text;
  const columns = displayed.map((o) => o.startColumn + 1).join(",");
  const notes: string[] = [];
  if (omitted > 0) notes.push(`+${omitted} more ranges on this line`);
  if (excerpt) notes.push(`excerpt of a ${match.text.length}-character line`);
  if (match.textLossy) notes.push("line not valid UTF-8");
  if (node !== undefined) {
    const to =
      node.endLine === node.startLine
        ? `to column ${node.endColumn}`
        : `to ${node.endLine}:${node.endColumn}`;
    notes.push(`node ${to}${node.symbol === undefined ? "" : `, in ${node.symbol}`}`);
  }
  const suffix = notes.length > 0 ? `  (${notes.join("; ")})` : "";
  return {
    line: `[${index}] ${match.line}:${columns}  ${body}${suffix}`,
    shown: {
      index,
      path: displayPath(match.path),
      line: match.line,
      text: body,
      ranges: displayed.map((o) => ({
        startByte: o.startByte,
        endByte: o.endByte,
        startColumn: o.startColumn + 1,
        endColumn: o.endColumn + 1,
      })),
      rangesOmitted: omitted,
      excerpt,
      ...(node === undefined ? {} : { node }),
    },
  };
}

/**
 * Windows around the first occurrences of a long line, each labelled with its absolute column.
 * The first occurrence is always inside the first window, however long the match itself is.
 */
export function excerptLine(text: string, occurrences: readonly Occurrence[]): string {
  const radius = LONG_LINE_EXCERPT_RADIUS_CHARS;
  const windows: [number, number][] = [];
  for (const o of occurrences.slice(0, LONG_LINE_MAX_WINDOWS)) {
    const start = Math.max(0, o.startColumn - radius);
    const end = Math.min(text.length, Math.min(o.endColumn, o.startColumn + 2 * radius) + radius);
    const last = windows[windows.length - 1];
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else windows.push([start, end]);
  }
  if (windows.length === 0) windows.push([0, Math.min(text.length, 2 * radius)]);
  const pieces = windows.map(([start, end]) => {
    const [s, e] = surrogateSafe(text, start, end);
    return `${s > 0 ? `…(col ${s + 1})` : ""}${text.slice(s, e)}`;
  });
  const lastEnd = windows[windows.length - 1]?.[1] ?? 0;
  return `${pieces.join(" ")}${lastEnd < text.length ? "…" : ""}`;
}

function surrogateSafe(text: string, start: number, end: number): [number, number] {
  let s = start;
  let e = end;
  const isLow = (i: number) => {
    const c = text.charCodeAt(i);
    return c >= 0xdc00 && c <= 0xdfff;
  };
  if (s > 0 && isLow(s)) s--;
  if (e < text.length && isLow(e)) e++;
  return [s, e];
}

function clip(line: string, redact: boolean, previous: string | undefined): string {
  const body = line.length > LONG_LINE_CHARS ? `${line.slice(0, LONG_LINE_CHARS)}…` : line;
  return redact ? redactText(body, previous).text : body;
}
