/**
 * The module specifiers a parsed JavaScript/TypeScript/TSX file names statically: `import ...
 * from "x"`, `import "x"`, `export ... from "x"`, `import x = require("x")`, and `require("x")` or
 * `import("x")` called with a plain string. A specifier computed at run time is not a static
 * link and is not listed.
 */
import type { NapiConfig, SgNode } from "@ast-grep/napi";

export interface Specifier {
  readonly specifier: string;
  /** 1-based line of the statement or call. */
  readonly line: number;
}

function rule(typescript: boolean): NapiConfig {
  return {
    rule: {
      any: [
        { kind: "import_statement" },
        { kind: "export_statement", has: { field: "source", kind: "string" } },
        // TypeScript's `import x = require("x")`; JavaScript's grammar has no such node.
        ...(typescript ? [{ kind: "import_require_clause" }] : []),
        { kind: "call_expression", has: { field: "function", regex: "^(require|import)$" } },
      ],
    },
  } as NapiConfig;
}

const RULES = { script: rule(false), typescript: rule(true) };

export function specifiersOf(root: SgNode, language: string): Specifier[] {
  const found: Specifier[] = [];
  const typescript = language === "typescript" || language === "tsx";
  for (const node of root.findAll(typescript ? RULES.typescript : RULES.script)) {
    const source =
      node.kind() === "call_expression"
        ? firstStringArgument(node)
        : ((node as unknown as { field(name: string): SgNode | null }).field("source") ??
          node.children().find((c) => c.kind() === "string"));
    if (source === undefined || source === null || source.kind() !== "string") continue;
    const text = source.text();
    // Quotes off; a string with escapes is taken as written between them.
    found.push({ specifier: text.slice(1, -1), line: node.range().start.line + 1 });
  }
  return found;
}

function firstStringArgument(call: SgNode): SgNode | undefined {
  const args = (call as unknown as { field(name: string): SgNode | null }).field("arguments");
  const first = args?.children().find((c) => c.isNamed());
  return first !== undefined &&
    first.kind() === "string" &&
    args?.children().filter((c) => c.isNamed()).length === 1
    ? first
    : undefined;
}
