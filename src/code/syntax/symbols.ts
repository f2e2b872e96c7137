/**
 * Symbol ranges: what a provider found in one document (functions, methods, classes,
 * interfaces, types...), as whole-line ranges, and the lookups inspection and structure search
 * make on them. Plain data, whoever the provider was.
 */

export interface SymbolRange {
  readonly name: string;
  /** Enclosing symbols' names and this one's, joined by "." (`Parser.parse`). */
  readonly qualifiedName: string;
  /** What it is, in the provider's words mapped to a small vocabulary (function, class, method...). */
  readonly kind: string;
  /** 1-based, inclusive: whole lines, any `export` or decorator lines included. */
  readonly startLine: number;
  readonly endLine: number;
  /**
   * 0-based columns of the first and past the last character, in the provider's unit, when it
   * gives them (ast-grep, not ctags): two symbols sharing a line are told apart by them.
   */
  readonly startColumn?: number | undefined;
  readonly endColumn?: number | undefined;
  /** The parser recovered from a syntax error inside this range: its bounds are not trusted. */
  readonly hasSyntaxError: boolean;
}

/** A place in a document: a 1-based line and a column in the provider's unit. */
interface Place {
  readonly line: number;
  readonly column: number;
}

/** Negative when `a` comes before `b`. */
function compare(a: Place, b: Place): number {
  return a.line - b.line || a.column - b.column;
}

/** Where a symbol starts and ends; without columns, its whole lines. */
function startOf(symbol: Omit<SymbolRange, "qualifiedName">): Place {
  return { line: symbol.startLine, column: symbol.startColumn ?? 0 };
}
function endOf(symbol: Omit<SymbolRange, "qualifiedName">): Place {
  return { line: symbol.endLine, column: symbol.endColumn ?? Number.POSITIVE_INFINITY };
}

/** Both span exactly the same lines and neither has columns to tell them apart. */
function sameLinesOnly(
  a: Omit<SymbolRange, "qualifiedName">,
  b: Omit<SymbolRange, "qualifiedName">,
): boolean {
  return (
    a.startLine === b.startLine &&
    a.endLine === b.endLine &&
    a.startColumn === undefined &&
    b.startColumn === undefined
  );
}

function lines(symbol: SymbolRange): number {
  return symbol.endLine - symbol.startLine;
}

/**
 * The smallest symbol holding every line of `[startLine, endLine]`, or, given the columns of a
 * node (in the provider's unit), holding that node: a line can hold several symbols.
 */
export function enclosingSymbol(
  symbols: readonly SymbolRange[],
  startLine: number,
  endLine = startLine,
  columns?: { readonly start: number; readonly end: number },
): SymbolRange | undefined {
  const from: Place = { line: startLine, column: columns?.start ?? Number.POSITIVE_INFINITY };
  const to: Place = { line: endLine, column: columns?.end ?? 0 };
  let best: SymbolRange | undefined;
  for (const symbol of symbols) {
    if (symbol.startLine > startLine || symbol.endLine < endLine) continue;
    if (columns !== undefined && (compare(startOf(symbol), from) > 0 || compare(endOf(symbol), to) < 0))
      continue;
    // Equal sizes: the inner one starts later (a method on its class's first line, say).
    if (
      best === undefined ||
      lines(symbol) < lines(best) ||
      (lines(symbol) === lines(best) && compare(startOf(symbol), startOf(best)) > 0) ||
      (lines(symbol) === lines(best) &&
        compare(startOf(symbol), startOf(best)) === 0 &&
        compare(endOf(symbol), endOf(best)) < 0)
    )
      best = symbol;
  }
  return best;
}

/**
 * The smallest symbol holding a match at `line`, its first occurrence starting at `column`
 * (UTF-16 units, as ast-grep counts too): a line can hold several symbols. Where no symbol holds
 * that column, the smallest holding the line.
 */
export function symbolAtMatch(
  symbols: readonly SymbolRange[],
  line: number,
  column: number | undefined,
): SymbolRange | undefined {
  const at =
    column === undefined ? undefined : enclosingSymbol(symbols, line, line, { start: column, end: column });
  return at ?? enclosingSymbol(symbols, line);
}

/**
 * Symbols beside `symbol` on its own lines, neither holding the other (`function a() {} function
 * b() {}` on one line): a line names one of them no more than the other. Known only from
 * columns; without them (ctags) none is found.
 */
export function besideOnItsLines(symbols: readonly SymbolRange[], symbol: SymbolRange): SymbolRange[] {
  if (symbol.startColumn === undefined || symbol.endColumn === undefined) return [];
  return symbols.filter(
    (s) =>
      s !== symbol &&
      s.startLine === symbol.startLine &&
      s.endLine === symbol.endLine &&
      s.startColumn !== undefined &&
      s.endColumn !== undefined &&
      (compare(endOf(s), startOf(symbol)) <= 0 || compare(endOf(symbol), startOf(s)) <= 0),
  );
}

/**
 * Symbols a name refers to: an exact qualified name (`Parser.parse`) if any, else every symbol
 * of that name or whose qualified name ends with it.
 */
export function symbolsNamed(symbols: readonly SymbolRange[], name: string): SymbolRange[] {
  const exact = symbols.filter((s) => s.qualifiedName === name);
  if (exact.length > 0) return exact;
  return symbols.filter((s) => s.name === name || s.qualifiedName.endsWith(`.${name}`));
}

/**
 * One symbol for a name, or the candidates when it is ambiguous. Overloads declared without a
 * body (TypeScript signatures, Rust trait items) yield to their one implementation.
 */
export function pickSymbol(
  candidates: readonly SymbolRange[],
): { readonly symbol: SymbolRange } | { readonly ambiguous: readonly SymbolRange[] } | undefined {
  if (candidates.length === 0) return undefined;
  if (candidates.length === 1) return { symbol: candidates[0] as SymbolRange };
  const bodies = candidates.filter((s) => !s.kind.endsWith("signature"));
  if (bodies.length === 1) return { symbol: bodies[0] as SymbolRange };
  return { ambiguous: candidates };
}

/** Why a name chose no symbol in a file (shown as `display`), naming the first symbols it has. */
export function noSymbolNamed(name: string, display: string, symbols: readonly SymbolRange[]): string {
  const known = symbols.slice(0, 20).map((s) => s.qualifiedName);
  const more = symbols.length > known.length ? ", ..." : "";
  return `no symbol named "${name}" in ${display}${known.length > 0 ? ` (it has ${known.join(", ")}${more})` : ""}.`;
}

/** Candidates as an ambiguity lists them: the first ten, each with its kind and lines. */
export function listCandidates(candidates: readonly SymbolRange[]): string {
  return candidates
    .slice(0, 10)
    .map((s) => `${s.qualifiedName} (${s.kind}, lines ${s.startLine}-${s.endLine})`)
    .join("; ");
}

/** Adds qualified names from containment, for symbols listed in any order. */
export function qualify(
  symbols: readonly (Omit<SymbolRange, "qualifiedName"> & {
    /** The enclosing symbol's name as the provider states it (ctags' `scope`), if any. */
    readonly scope?: string | undefined;
  })[],
): SymbolRange[] {
  const sorted = [...symbols].sort((a, b) => compare(startOf(a), startOf(b)) || compare(endOf(b), endOf(a)));
  const stack: SymbolRange[] = [];
  const out: SymbolRange[] = [];
  for (const { scope, ...symbol } of sorted) {
    // A symbol that ends before this one ends does not hold it (with columns, a sibling on the
    // same line is not a parent).
    while (stack.length > 0 && compare(endOf(stack[stack.length - 1] as SymbolRange), endOf(symbol)) < 0)
      stack.pop();
    // Without columns, the same lines cannot tell a parent from a sibling (`int a() {} int b()
    // {}`): only the provider's scope can.
    while (stack.length > 0 && sameLinesOnly(stack[stack.length - 1] as SymbolRange, symbol)) {
      const top = stack[stack.length - 1] as SymbolRange;
      if (scope !== undefined && scope.split(/::|\./).pop() === top.name) break;
      stack.pop();
    }
    const parent = stack[stack.length - 1];
    // Written out field by field: a spread here gave every kept symbol a hidden class of its own
    // (a map and its descriptors, more than the symbol's own bytes).
    const qualified: SymbolRange = {
      name: symbol.name,
      qualifiedName: parent === undefined ? symbol.name : `${parent.qualifiedName}.${symbol.name}`,
      kind: symbol.kind,
      startLine: symbol.startLine,
      endLine: symbol.endLine,
      startColumn: symbol.startColumn,
      endColumn: symbol.endColumn,
      hasSyntaxError: symbol.hasSyntaxError,
    };
    out.push(qualified);
    stack.push(qualified);
  }
  return out;
}
