/**
 * JSON pages indented for reading, within a bound. Indentation grows with the nesting, so
 * indented text grows with the square of the depth: `JSON.stringify(JSON.parse(text), null, 2)`
 * turned an 8 KB array nested 4,000 deep into 32 million characters, and a million deep
 * overflowed its stack. This formatter works on the text itself, token by token, with a stack of
 * its own (any depth), writes at most `budgetChars` and then only checks the rest, and gives the
 * event loop a turn after every JSON_INDENT_SLICE_CHARS of input. Tokens are copied as sent: a
 * number keeps its digits (a 64-bit id is not rounded), a string its escapes, an object every key.
 * Layout is JSON.stringify's with two spaces.
 */
import { throwIfAborted } from "../../../core/abort.js";
import { JSON_INDENT_SLICE_CHARS } from "../../../core/limits.js";

export type IndentedJson =
  | { readonly kind: "indented"; readonly text: string }
  /** Valid JSON whose indented text would pass the budget; `depth` is its deepest nesting. */
  | { readonly kind: "over_budget"; readonly depth: number }
  /** Not JSON; `at` is the offset of the first character that does not fit the grammar. */
  | { readonly kind: "invalid"; readonly at: number };

const ARRAY = 1;
const OBJECT = 2;

// What the next token may be.
/** A value: at the start, after `:` or after `,` in an array. */
const VALUE = 0;
/** A value or `]`, just after `[`. */
const FIRST_ITEM = 1;
/** A key or `}`, just after `{`. */
const FIRST_KEY = 2;
/** A key, after `,` in an object. */
const KEY = 3;
/** `:` after a key. */
const COLON = 4;
/** `,` or the container's end, after a value; only whitespace at the top. */
const NEXT = 5;

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
/** What may follow a backslash in a string, besides `u` and four hex digits: `"` `\\` `/` b f n r t. */
const ESCAPES = [0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74];

/** The indented text, written as UTF-16 code units into a buffer that grows up to the budget. */
class Output {
  #units = new Uint16Array(4096);
  #length = 0;
  /** Set once the text would pass the budget; nothing is written after. */
  over = false;

  constructor(readonly budgetChars: number) {}

  /** Copies `text` from `start` to `end`. */
  copy(text: string, start: number, end: number): void {
    if (!this.#room(end - start)) return;
    const units = this.#units;
    let at = this.#length;
    for (let from = start; from < end; from++) units[at++] = text.charCodeAt(from);
    this.#length = at;
  }

  /** Writes one or two ASCII characters (punctuation). */
  ascii(first: number, second = -1): void {
    if (!this.#room(second < 0 ? 1 : 2)) return;
    this.#units[this.#length++] = first;
    if (second >= 0) this.#units[this.#length++] = second;
  }

  /** A newline and the indentation of `level`. */
  newline(level: number): void {
    if (!this.#room(1 + 2 * level)) return;
    this.#units[this.#length++] = 0x0a;
    this.#units.fill(0x20, this.#length, this.#length + 2 * level);
    this.#length += 2 * level;
  }

  text(): string {
    return Buffer.from(this.#units.buffer, 0, this.#length * 2).toString("utf16le");
  }

  #room(chars: number): boolean {
    if (this.over) return false;
    const needed = this.#length + chars;
    if (needed > this.budgetChars) {
      this.over = true;
      this.#units = new Uint16Array(0);
      return false;
    }
    if (needed > this.#units.length) {
      const grown = new Uint16Array(Math.min(this.budgetChars, Math.max(needed, this.#units.length * 2)));
      grown.set(this.#units.subarray(0, this.#length));
      this.#units = grown;
    }
    return true;
  }
}

/**
 * Indents `text` with two spaces a level, or says why not: it is not JSON, or indented it would
 * be longer than `budgetChars`. Checks `signal` between slices.
 */
export async function indentJson(
  text: string,
  budgetChars: number,
  signal?: AbortSignal,
): Promise<IndentedJson> {
  const indenter = new Indenter(budgetChars);
  let at = 0;
  let sliceEnd = JSON_INDENT_SLICE_CHARS;
  const length = text.length;
  for (;;) {
    if (at >= sliceEnd) {
      await new Promise((resolve) => setImmediate(resolve));
      throwIfAborted(signal);
      sliceEnd = at + JSON_INDENT_SLICE_CHARS;
    }
    at = skipSpace(text, at);
    if (at >= length) break;
    const next = indenter.token(text, at);
    if (next < 0) return { kind: "invalid", at: -next - 1 };
    at = next;
  }
  return indenter.finish(length);
}

/**
 * The formatter between tokens: what may come next, the containers open (a stack of its own, so
 * any depth), and the output. Each step takes one token and returns the offset just past it, or
 * -(offset + 1) of the first character that does not fit the grammar.
 */
class Indenter {
  readonly #out: Output;
  #stack = new Uint8Array(64);
  #depth = 0;
  #deepest = 0;
  #expect = VALUE;

  constructor(budgetChars: number) {
    this.#out = new Output(budgetChars);
  }

  /** The token that starts at `at` (not whitespace). */
  token(text: string, at: number): number {
    const code = text.charCodeAt(at);
    const expect = this.#expect;
    if (expect === COLON) return this.#colon(at, code);
    if (expect === NEXT) return this.#next(at, code);
    // An empty container stays on the line it opens.
    if ((expect === FIRST_ITEM && code === 0x5d) || (expect === FIRST_KEY && code === 0x7d)) {
      this.#depth--;
      this.#out.ascii(code);
      this.#expect = NEXT;
      return at + 1;
    }
    if (expect === FIRST_KEY || expect === KEY) return this.#key(text, at, code);
    return this.#value(text, at, code);
  }

  /** At the end of the text: the indented text, unless it is cut short or over the budget. */
  finish(length: number): IndentedJson {
    if (this.#depth > 0 || this.#expect !== NEXT) return { kind: "invalid", at: length };
    return this.#out.over
      ? { kind: "over_budget", depth: this.#deepest }
      : { kind: "indented", text: this.#out.text() };
  }

  #inside(): number {
    return this.#depth === 0 ? 0 : (this.#stack[this.#depth - 1] as number);
  }

  #colon(at: number, code: number): number {
    if (code !== 0x3a) return -at - 1;
    this.#out.ascii(0x3a, 0x20);
    this.#expect = VALUE;
    return at + 1;
  }

  /** `,` or the end of the open container. */
  #next(at: number, code: number): number {
    if (this.#depth === 0) return -at - 1;
    const inside = this.#inside();
    if (code === 0x2c) {
      this.#out.ascii(0x2c);
      this.#expect = inside === ARRAY ? VALUE : KEY;
      return at + 1;
    }
    if ((code === 0x5d && inside === ARRAY) || (code === 0x7d && inside === OBJECT)) {
      this.#depth--;
      this.#out.newline(this.#depth);
      this.#out.ascii(code);
      return at + 1;
    }
    return -at - 1;
  }

  /** A key, on a line of its own. */
  #key(text: string, at: number, code: number): number {
    if (code !== 0x22) return -at - 1;
    this.#out.newline(this.#depth);
    const end = stringEnd(text, at);
    if (end < 0) return end;
    this.#out.copy(text, at, end);
    this.#expect = COLON;
    return end;
  }

  /** A value: on a line of its own in an array, after `: ` in an object, or at the top. */
  #value(text: string, at: number, code: number): number {
    if (this.#expect === FIRST_ITEM || this.#inside() === ARRAY) this.#out.newline(this.#depth);
    if (code === 0x5b || code === 0x7b) return this.#open(at, code);
    const end =
      code === 0x22
        ? stringEnd(text, at)
        : text.startsWith("true", at) || text.startsWith("null", at)
          ? at + 4
          : text.startsWith("false", at)
            ? at + 5
            : numberEnd(text, at);
    if (end < 0) return end;
    this.#out.copy(text, at, end);
    this.#expect = NEXT;
    return end;
  }

  #open(at: number, code: number): number {
    if (this.#depth === this.#stack.length) {
      const grown = new Uint8Array(this.#stack.length * 2);
      grown.set(this.#stack);
      this.#stack = grown;
    }
    this.#stack[this.#depth++] = code === 0x5b ? ARRAY : OBJECT;
    if (this.#depth > this.#deepest) this.#deepest = this.#depth;
    this.#out.ascii(code);
    this.#expect = code === 0x5b ? FIRST_ITEM : FIRST_KEY;
    return at + 1;
  }
}

function skipSpace(text: string, from: number): number {
  let at = from;
  for (;;) {
    const code = text.charCodeAt(at);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return at;
    at++;
  }
}

/**
 * The offset just past the string that opens at `start`, or -(offset + 1) of the first character
 * that makes it invalid (a raw control character, a bad escape, no closing quote).
 */
function stringEnd(text: string, start: number): number {
  let at = start + 1;
  for (;;) {
    if (at >= text.length) return -text.length - 1;
    const code = text.charCodeAt(at);
    if (code === 0x22) return at + 1;
    if (code < 0x20) return -at - 1;
    if (code === 0x5c) {
      const next = text.charCodeAt(at + 1);
      if (next === 0x75) {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) return -at - 1;
        at += 6;
      } else if (ESCAPES.includes(next)) at += 2;
      else return -at - 1;
    } else at++;
  }
}

/** The offset just past the number at `start`, or -(offset + 1) where it stops being one. */
function numberEnd(text: string, start: number): number {
  NUMBER.lastIndex = start;
  return NUMBER.test(text) ? NUMBER.lastIndex : -start - 1;
}
