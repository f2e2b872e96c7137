/**
 * The syntax role of an exact occurrence in a parsed JavaScript/TypeScript/TSX file: how it is
 * written (declared, called, imported, read as a type, a property, inside a string or comment),
 * never what it refers to. Two occurrences with the same role may name different symbols;
 * binding is not evaluated here or anywhere in impact.
 */
import type { SgNode } from "@ast-grep/napi";
import { IMPACT_ROLE_ANCESTORS } from "../../core/limits.js";

/** The vocabulary of roles, in the order answers count them. */
export const ROLES = [
  "declaration",
  "call",
  "import",
  "export",
  "type reference",
  "property",
  "jsx",
  "reference",
  "string",
  "comment",
] as const;

export type Role = (typeof ROLES)[number];

/** Declarations and the field that holds the name they declare. */
const DECLARES: Readonly<Record<string, string>> = {
  function_declaration: "name",
  generator_function_declaration: "name",
  function_signature: "name",
  function_expression: "name",
  class_declaration: "name",
  abstract_class_declaration: "name",
  class: "name",
  method_definition: "name",
  method_signature: "name",
  abstract_method_signature: "name",
  interface_declaration: "name",
  type_alias_declaration: "name",
  enum_declaration: "name",
  internal_module: "name",
  module: "name",
  variable_declarator: "name",
  public_field_definition: "name",
  property_signature: "name",
  required_parameter: "pattern",
  optional_parameter: "pattern",
  type_parameter: "name",
  enum_assignment: "name",
};

const STRINGS = new Set(["string", "string_fragment", "template_string", "regex", "regex_pattern"]);
const IMPORTS = new Set([
  "import_statement",
  "import_clause",
  "import_specifier",
  "namespace_import",
  "import_require_clause",
]);
const JSX_NAMES = new Set(["jsx_opening_element", "jsx_closing_element", "jsx_self_closing_element"]);

interface Visited {
  readonly node: SgNode;
  readonly start: Position;
  readonly end: Position;
  children?: Visited[];
}

interface Position {
  readonly line: number;
  readonly column: number;
}

/**
 * Finds the nodes that hold occurrences in one parsed file, by walking down from the root:
 * tree-sitter finds a node's parent by walking down from the root itself, so asking each node
 * for its parent costs the depth every time. The nodes seen on the way down are kept for the
 * file's next occurrence (children in position order, found by binary search). `budget.steps`,
 * shared by every file of a call, bounds the work: a file of deeply nested code (50,000 nested
 * calls) would otherwise take a quadratic time on the calling thread.
 */
export class NodeLocator {
  readonly #root: Visited;
  readonly #budget: { steps: number };

  constructor(root: SgNode, budget: { steps: number }) {
    const range = root.range();
    this.#root = { node: root, start: range.start, end: range.end };
    this.#budget = budget;
  }

  /**
   * The path from the root to the deepest node whose range holds the span (0-based line, UTF-16
   * columns on that line), or undefined once the budget is spent.
   */
  pathTo(line: number, startColumn: number, endColumn: number): SgNode[] | undefined {
    const path = [this.#root.node];
    let at = this.#root;
    for (;;) {
      if (at.children === undefined) {
        const children = at.node.children();
        this.#budget.steps -= children.length;
        at.children = children.map((node) => {
          const range = node.range();
          return { node, start: range.start, end: range.end };
        });
      }
      this.#budget.steps -= 1 + Math.ceil(Math.log2(at.children.length + 1));
      if (this.#budget.steps < 0) return undefined;
      const child = holding(at.children, line, startColumn, endColumn);
      if (child === undefined) return path;
      path.push(child.node);
      at = child;
    }
  }
}

/**
 * The child whose range holds the span: children are in position order and do not overlap, so
 * only the last one starting at or before the span can (an occurrence is never zero-width).
 */
function holding(
  children: readonly Visited[],
  line: number,
  startColumn: number,
  endColumn: number,
): Visited | undefined {
  let low = 0;
  let high = children.length - 1;
  let found: Visited | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const child = children[middle] as Visited;
    if (child.start.line < line || (child.start.line === line && child.start.column <= startColumn)) {
      found = child;
      low = middle + 1;
    } else high = middle - 1;
  }
  if (found === undefined) return undefined;
  const endsAfter = found.end.line > line || (found.end.line === line && found.end.column >= endColumn);
  return endsAfter ? found : undefined;
}

function sameRange(a: SgNode, b: SgNode | null | undefined): boolean {
  if (b === null || b === undefined) return false;
  return a.range().start.index === b.range().start.index && a.range().end.index === b.range().end.index;
}

function field(node: SgNode, name: string): SgNode | null {
  return (node as unknown as { field(name: string): SgNode | null }).field(name);
}

/**
 * The role of the occurrence spanning exactly the last node of `path` (or lying inside it, for
 * text nodes); `path` runs from the root down (NodeLocator.pathTo).
 */
export function roleOf(path: readonly SgNode[]): Role {
  const node = path[path.length - 1] as SgNode;
  const kind = node.kind() as string;
  if (kind === "comment") return "comment";
  const ancestors = path.slice(Math.max(0, path.length - 1 - IMPACT_ROLE_ANCESTORS), -1).reverse();
  if (STRINGS.has(kind)) return "string";
  for (const ancestor of ancestors) {
    const k = ancestor.kind() as string;
    // Inside `${...}` it is code again, whatever string holds the substitution.
    if (k === "template_substitution") break;
    if (STRINGS.has(k)) return "string";
  }
  const parent = ancestors[0];
  const parentKind = (parent?.kind() as string | undefined) ?? "";
  const declared = DECLARES[parentKind];
  if (parent !== undefined && declared !== undefined && sameRange(node, field(parent, declared))) {
    return "declaration";
  }
  if (kind === "shorthand_property_identifier_pattern") return "declaration";
  if (parentKind === "formal_parameters" || parentKind === "rest_pattern") return "declaration";
  if (parentKind === "export_specifier" || ancestors.some((a) => a.kind() === "export_specifier"))
    return "export";
  if (ancestors.some((a) => IMPORTS.has(a.kind() as string))) return "import";
  if (JSX_NAMES.has(parentKind)) return "jsx";
  if (parent !== undefined && (parentKind === "call_expression" || parentKind === "new_expression")) {
    const callee = field(parent, parentKind === "call_expression" ? "function" : "constructor");
    if (sameRange(node, callee)) return "call";
  }
  if (
    parentKind === "member_expression" &&
    parent !== undefined &&
    sameRange(node, field(parent, "property"))
  ) {
    const call = ancestors[1];
    if (
      call !== undefined &&
      call.kind() === "call_expression" &&
      sameRange(parent, field(call, "function"))
    ) {
      return "call";
    }
    return "property";
  }
  if (kind === "type_identifier") return "type reference";
  if (kind === "property_identifier" || kind === "shorthand_property_identifier") return "property";
  if (parentKind === "pair" && parent !== undefined && sameRange(node, field(parent, "key")))
    return "property";
  return "reference";
}
