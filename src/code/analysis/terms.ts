/**
 * Exact occurrences of one literal term in one retained line. An alternation scan only says
 * which lines hold some term of its group; each term is then found again in the line on its
 * own, so occurrences of different terms that overlap are all kept and each is attributed to
 * its term. Within one term, occurrences do not overlap (the next search starts after the end
 * of the last one, as ripgrep's do).
 *
 * Case: a term is compared ignoring case under Unicode simple case folding when the request
 * says so (or, with smart case, when the term has no uppercase letter). Whole words: the
 * characters around an occurrence must not be word characters, as ripgrep's -w has it. A line
 * that is not valid UTF-8 is compared byte for byte, ignoring only ASCII case.
 */
import type { CaseMode } from "../request.js";
import type { ParsedMatch } from "../rg/events.js";

export interface TermOccurrence {
  readonly startByte: number;
  readonly endByte: number;
  readonly startColumn: number;
  readonly endColumn: number;
}

/** ripgrep's word characters (Unicode \w): letters, marks, decimal digits, connectors, joiners. */
const WORD = "[\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}]";
const ASCII_WORD = "[A-Za-z0-9_]";

/** Whether a term is compared ignoring case under this request's case mode. */
export function termIgnoresCase(term: string, mode: CaseMode): boolean {
  if (mode === "insensitive") return true;
  if (mode === "sensitive") return false;
  // Smart case, per term: an uppercase letter makes that term exact.
  return !/\p{Uppercase}/u.test(term);
}

/** Whether a line's text is ASCII (string indices are then byte offsets). */
export function isAscii(text: string): boolean {
  return Buffer.byteLength(text, "utf8") === text.length;
}

/** What a line without the term finds: shared, since most lines of a group lack most terms. */
const NONE: readonly TermOccurrence[] = [];

/**
 * One term's search, of one class: every term of every group has the same fields and the same
 * `find`, whichever of the three ways (ASCII, Unicode, raw bytes) a line needs.
 */
export class TermMatcher {
  readonly term: string;
  readonly ignoreCase: boolean;
  /** A case-sensitive term without word bounds: on an ASCII line, a plain `indexOf` finds it. */
  readonly #plainBytes: boolean;
  readonly #unicode: RegExp;
  readonly #latin: RegExp;

  constructor(term: string, mode: CaseMode, wholeWord: boolean) {
    this.term = term;
    this.ignoreCase = termIgnoresCase(term, mode);
    this.#plainBytes = !this.ignoreCase && !wholeWord;
    this.#unicode = new RegExp(
      wholeWord ? `(?<!${WORD})${escapeRegExp(term)}(?!${WORD})` : escapeRegExp(term),
      this.ignoreCase ? "giu" : "gu",
    );
    // Non-UTF-8 lines are read as latin1, one character per byte, so indices are byte offsets;
    // only ASCII letters are folded there, since other bytes are parts of characters.
    const latinTerm = escapeRegExp(fold(Buffer.from(term, "utf8").toString("latin1"), this.ignoreCase));
    this.#latin = new RegExp(wholeWord ? `(?<!${ASCII_WORD})${latinTerm}(?!${ASCII_WORD})` : latinTerm, "g");
  }

  /**
   * Every occurrence of the term in the line, in order. `ascii` says whether the line's text is
   * ASCII, when the caller knows it (a group's terms search each line: one check serves them all).
   */
  find(match: ParsedMatch, ascii?: boolean): readonly TermOccurrence[] {
    if (match.textLossy && match.rawText !== undefined) {
      return lossyFind(match.rawText, this.#latin, this.ignoreCase);
    }
    if (this.#plainBytes && (ascii ?? isAscii(match.text))) return asciiFind(match.text, this.term);
    return unicodeFind(match.text, this.#unicode);
  }
}

export function termMatcher(term: string, mode: CaseMode, wholeWord: boolean): TermMatcher {
  return new TermMatcher(term, mode, wholeWord);
}

/** ASCII letters to lower case, every other character unchanged (same length). */
function fold(text: string, ignoreCase: boolean): string {
  return ignoreCase ? text.replace(/[A-Z]/g, (c) => c.toLowerCase()) : text;
}

/** Case-sensitive search of an ASCII line: string indices are byte offsets and columns. */
function asciiFind(text: string, term: string): readonly TermOccurrence[] {
  const first = text.indexOf(term);
  if (first === -1) return NONE;
  const found: TermOccurrence[] = [];
  for (let at = first; at !== -1; at = text.indexOf(term, at + term.length)) {
    found.push({ startByte: at, endByte: at + term.length, startColumn: at, endColumn: at + term.length });
  }
  return found;
}

function unicodeFind(text: string, pattern: RegExp): TermOccurrence[] {
  const found: TermOccurrence[] = [];
  // Byte offsets advance with the columns, in one pass over the line.
  let column = 0;
  let byte = 0;
  const byteAt = (target: number) => {
    byte += Buffer.byteLength(text.slice(column, target), "utf8");
    column = target;
    return byte;
  };
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    const start = m.index;
    const end = start + m[0].length;
    const startByte = byteAt(start);
    const endByte = byteAt(end);
    found.push({ startByte, endByte, startColumn: start, endColumn: end });
    if (end === start) pattern.lastIndex = end + 1;
  }
  return found;
}

function lossyFind(raw: Buffer, pattern: RegExp, ignoreCase: boolean): TermOccurrence[] {
  const text = fold(raw.toString("latin1"), ignoreCase);
  const found: TermOccurrence[] = [];
  const column = (offset: number) => raw.subarray(0, offset).toString("utf8").length;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    const start = m.index;
    const end = start + m[0].length;
    found.push({ startByte: start, endByte: end, startColumn: column(start), endColumn: column(end) });
    if (end === start) pattern.lastIndex = end + 1;
  }
  return found;
}

/** Escapes JavaScript's syntax characters (the only escapes a `u` pattern allows). */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * One regular expression for ripgrep (Rust syntax) that matches any of the terms literally: the
 * alternation an anyOf group scans with. Every character ripgrep's regex syntax gives a meaning
 * to is escaped.
 */
export function alternation(terms: readonly string[]): string {
  return terms.map((term) => term.replace(/[\\.+*?()|[\]{}^$#&\-~]/g, "\\$&")).join("|");
}
