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
  /** The parser recovered from a syntax error inside this range: its bounds are not trusted. */
  readonly hasSyntaxError: boolean;
}

function lines(symbol: SymbolRange): number {
  return symbol.endLine - symbol.startLine;
}

/** The smallest symbol holding every line of `[startLine, endLine]`. */
export function enclosingSymbol(
  symbols: readonly SymbolRange[],
  startLine: number,
  endLine = startLine,
): SymbolRange | undefined {
  let best: SymbolRange | undefined;
  for (const symbol of symbols) {
    if (symbol.startLine > startLine || symbol.endLine < endLine) continue;
    // Equal sizes: the inner one starts later (a method on its class's first line, say).
    if (
      best === undefined ||
      lines(symbol) < lines(best) ||
      (lines(symbol) === lines(best) && symbol.startLine > best.startLine)
    )
      best = symbol;
  }
  return best;
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

/** Adds qualified names from containment, for symbols listed in any order. */
export function qualify(symbols: readonly Omit<SymbolRange, "qualifiedName">[]): SymbolRange[] {
  const sorted = [...symbols].sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
  const stack: SymbolRange[] = [];
  const out: SymbolRange[] = [];
  for (const symbol of sorted) {
    while (stack.length > 0 && (stack[stack.length - 1] as SymbolRange).endLine < symbol.endLine) stack.pop();
    const parent = stack[stack.length - 1];
    const qualified: SymbolRange = {
      ...symbol,
      qualifiedName: parent === undefined ? symbol.name : `${parent.qualifiedName}.${symbol.name}`,
    };
    out.push(qualified);
    stack.push(qualified);
  }
  return out;
}
