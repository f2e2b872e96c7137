/**
 * The syntax role of an exact occurrence in a parsed JavaScript/TypeScript/TSX file: how it is
 * written (declared, called, imported, read as a type, a property, inside a string or comment),
 * never what it refers to. Two occurrences with the same role may name different symbols;
 * binding is not evaluated here or anywhere in impact.
 */
import type { SgNode } from "@ast-grep/napi";

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

/** The deepest node whose range holds the span (0-based line, UTF-16 columns on that line). */
export function nodeAt(root: SgNode, line: number, startColumn: number, endColumn: number): SgNode {
  let node = root;
  for (;;) {
    const child = node.children().find((c) => {
      const r = c.range();
      const startsBefore = r.start.line < line || (r.start.line === line && r.start.column <= startColumn);
      const endsAfter = r.end.line > line || (r.end.line === line && r.end.column >= endColumn);
      return startsBefore && endsAfter;
    });
    if (child === undefined) return node;
    node = child;
  }
}

function sameRange(a: SgNode, b: SgNode | null | undefined): boolean {
  if (b === null || b === undefined) return false;
  return a.range().start.index === b.range().start.index && a.range().end.index === b.range().end.index;
}

function field(node: SgNode, name: string): SgNode | null {
  return (node as unknown as { field(name: string): SgNode | null }).field(name);
}

/** The role of the occurrence spanning exactly `node` (or lying inside it, for text nodes). */
export function roleOf(node: SgNode): Role {
  const kind = node.kind() as string;
  if (kind === "comment") return "comment";
  const ancestors: SgNode[] = [];
  for (let a = node.parent(); a !== null; a = a.parent()) ancestors.push(a);
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
