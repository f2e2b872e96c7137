/**
 * The ast-grep provider: parses a document with `@ast-grep/napi` and finds its symbols. Parsing
 * runs on libuv's thread pool (`parseAsync`), so a large file does not hold up other calls on
 * the same server while it parses (bench/code-inspect measures the difference); walking the tree
 * stays on the calling thread. The module and each language package load on first use; one that
 * cannot load (no binary for this platform, say) makes its languages unavailable, which callers
 * report, and never breaks anything else.
 */
import { createRequire } from "node:module";
import type { NapiConfig, SgNode, SgRoot } from "@ast-grep/napi";
import { AST_GREP_LANGUAGES, type AstGrepLanguage, BUILT_IN_LANGUAGES } from "./languages.js";
import { qualify, type SymbolRange } from "./symbols.js";

type Napi = typeof import("@ast-grep/napi");

/** The language packages ast-grep loads at run time, by language. */
const LANGUAGE_PACKAGES: Partial<Record<AstGrepLanguage, string>> = {
  python: "@ast-grep/lang-python",
  go: "@ast-grep/lang-go",
  rust: "@ast-grep/lang-rust",
  java: "@ast-grep/lang-java",
};

export interface AstGrepRuntime {
  readonly napi: Napi;
  /** Languages that can be parsed here, and why each other one cannot. */
  readonly available: ReadonlySet<AstGrepLanguage>;
  readonly unavailable: ReadonlyMap<AstGrepLanguage, string>;
}

let runtime: Promise<AstGrepRuntime | { readonly error: string }> | undefined;

/** Loads ast-grep and its language packages once per process. */
export function loadAstGrep(): Promise<AstGrepRuntime | { readonly error: string }> {
  runtime ??= (async () => {
    let napi: Napi;
    try {
      napi = await import("@ast-grep/napi");
    } catch (error) {
      return { error: `@ast-grep/napi could not be loaded (${(error as Error).message.split("\n")[0]})` };
    }
    const available = new Set<AstGrepLanguage>(BUILT_IN_LANGUAGES);
    const unavailable = new Map<AstGrepLanguage, string>();
    const require = createRequire(import.meta.url);
    const registrations: Record<string, unknown> = {};
    for (const [language, name] of Object.entries(LANGUAGE_PACKAGES) as [AstGrepLanguage, string][]) {
      try {
        const registration = require(name) as { libraryPath: string };
        // The getter finds the parser binary for this platform, or throws.
        void registration.libraryPath;
        registrations[AST_GREP_LANGUAGES[language]] = registration;
        available.add(language);
      } catch (error) {
        unavailable.set(language, `${name} could not be loaded (${(error as Error).message.split("\n")[0]})`);
      }
    }
    try {
      napi.registerDynamicLanguage(registrations as Parameters<Napi["registerDynamicLanguage"]>[0]);
    } catch (error) {
      for (const language of Object.keys(LANGUAGE_PACKAGES) as AstGrepLanguage[]) {
        if (available.delete(language))
          unavailable.set(language, `registration failed (${(error as Error).message})`);
      }
    }
    return { napi, available, unavailable };
  })();
  return runtime;
}

/** Parses off the calling thread. */
export function parseTree(napi: Napi, language: AstGrepLanguage, text: string): Promise<SgRoot> {
  return napi.parseAsync(AST_GREP_LANGUAGES[language] as Parameters<Napi["parseAsync"]>[0], text);
}

interface KindRule {
  /** The node kind, and what we call it. */
  readonly kind: string;
  readonly label: string;
  /** Only when its `value` field is one of these (a variable holding a function, say). */
  readonly valueKinds?: readonly string[];
  /** How to name it when its `name` field does not. */
  readonly name?: (node: SgNode) => string | undefined;
}

const FUNCTION_VALUES = [
  "arrow_function",
  "function_expression",
  "function",
  "generator_function",
  "class",
] as const;

const JS_RULES: readonly KindRule[] = [
  { kind: "function_declaration", label: "function" },
  { kind: "generator_function_declaration", label: "function" },
  { kind: "function_signature", label: "function signature" },
  { kind: "class_declaration", label: "class" },
  { kind: "abstract_class_declaration", label: "class" },
  { kind: "method_definition", label: "method" },
  { kind: "abstract_method_signature", label: "method signature" },
  { kind: "interface_declaration", label: "interface" },
  { kind: "type_alias_declaration", label: "type" },
  { kind: "enum_declaration", label: "enum" },
  { kind: "internal_module", label: "namespace" },
  { kind: "variable_declarator", label: "function", valueKinds: FUNCTION_VALUES },
  { kind: "public_field_definition", label: "method", valueKinds: FUNCTION_VALUES },
];

const RULES: Readonly<Record<AstGrepLanguage, readonly KindRule[]>> = {
  javascript: JS_RULES,
  typescript: JS_RULES,
  tsx: JS_RULES,
  python: [
    { kind: "function_definition", label: "function" },
    { kind: "class_definition", label: "class" },
  ],
  go: [
    { kind: "function_declaration", label: "function" },
    { kind: "method_declaration", label: "method", name: goMethodName },
    { kind: "type_spec", label: "type" },
  ],
  rust: [
    { kind: "function_item", label: "function" },
    { kind: "function_signature_item", label: "function signature" },
    { kind: "struct_item", label: "struct" },
    { kind: "enum_item", label: "enum" },
    { kind: "union_item", label: "union" },
    { kind: "trait_item", label: "trait" },
    { kind: "impl_item", label: "impl", name: (node) => fieldText(node, "type") },
    { kind: "mod_item", label: "module" },
    { kind: "type_item", label: "type" },
    { kind: "macro_definition", label: "macro" },
  ],
  java: [
    { kind: "class_declaration", label: "class" },
    { kind: "interface_declaration", label: "interface" },
    { kind: "enum_declaration", label: "enum" },
    { kind: "record_declaration", label: "record" },
    { kind: "annotation_type_declaration", label: "annotation" },
    { kind: "method_declaration", label: "method" },
    { kind: "constructor_declaration", label: "constructor" },
  ],
};

/** Nodes that wrap a declaration and belong to its range (`export`, decorators, `type (...)`). */
const WRAPPERS: ReadonlySet<string> = new Set([
  "export_statement",
  "decorated_definition",
  "lexical_declaration",
  "variable_declaration",
  "type_declaration",
]);

/** The text of a node's field, whatever the grammar's static types say its fields are. */
function fieldText(node: SgNode, field: string): string | undefined {
  return (node as unknown as { field(name: string): SgNode | null }).field(field)?.text();
}

/** `func (s *Server) Start()` is `Server.Start`. */
function goMethodName(node: SgNode): string | undefined {
  const name = fieldText(node, "name");
  const receiver = fieldText(node, "receiver") ?? "";
  const type = /([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\])?\s*\)\s*$/.exec(receiver)?.[1];
  return name === undefined ? undefined : type === undefined ? name : `${type}.${name}`;
}

/** What one walk of a tree found: its symbols, and whether it holds syntax errors at all. */
export interface TreeFacts {
  readonly symbols: readonly SymbolRange[];
  readonly syntaxErrors: number;
}

/** Rules whose node kinds this language's grammar has (the JS and TS grammars differ a little). */
const rulesByLanguage = new Map<AstGrepLanguage, readonly KindRule[]>();
function rulesOf(napi: Napi, language: AstGrepLanguage): readonly KindRule[] {
  let rules = rulesByLanguage.get(language);
  if (rules === undefined) {
    const lang = AST_GREP_LANGUAGES[language] as Parameters<Napi["kind"]>[0];
    rules = RULES[language].filter((r) => napi.kind(lang, r.kind as never) !== 0);
    const valid = (kind: string) => napi.kind(lang, kind as never) !== 0;
    rules = rules.map((r) =>
      r.valueKinds === undefined ? r : { ...r, valueKinds: r.valueKinds.filter(valid) },
    );
    rulesByLanguage.set(language, rules);
  }
  return rules;
}

export function treeFacts(napi: Napi, root: SgRoot, language: AstGrepLanguage): TreeFacts {
  const rules = rulesOf(napi, language);
  const config = {
    rule: {
      any: [
        { kind: "ERROR" },
        ...rules.map((r) =>
          r.valueKinds === undefined
            ? { kind: r.kind }
            : { kind: r.kind, has: { field: "value", any: r.valueKinds.map((kind) => ({ kind })) } },
        ),
      ],
    },
  } as NapiConfig;
  const errors: [number, number][] = [];
  const found: Omit<SymbolRange, "qualifiedName" | "hasSyntaxError">[] = [];
  for (const node of root.root().findAll(config)) {
    const kind = node.kind() as string;
    if (kind === "ERROR") {
      const range = node.range();
      errors.push([range.start.line + 1, range.end.line + 1]);
      continue;
    }
    const rule = rules.find((r) => r.kind === kind);
    if (rule === undefined) continue;
    const name = rule.name?.(node) ?? fieldText(node, "name");
    if (name === undefined) continue;
    let outer: SgNode = node;
    for (
      let parent = node.parent();
      parent !== null && WRAPPERS.has(parent.kind() as string);
      parent = parent.parent()
    ) {
      // A declaration of several variables is not one symbol's range.
      if (
        (parent.kind() === "lexical_declaration" || parent.kind() === "variable_declaration") &&
        parent.namedChildren().filter((c) => c.kind() === "variable_declarator").length > 1
      )
        break;
      outer = parent;
    }
    const range = outer.range();
    found.push({
      name,
      kind: rule.label,
      startLine: range.start.line + 1,
      endLine: range.end.line + 1,
      startColumn: range.start.column,
      endColumn: range.end.column,
    });
  }
  const symbols = qualify(
    found.map((s) => ({
      ...s,
      hasSyntaxError: errors.some(([from, to]) => from <= s.endLine && to >= s.startLine),
    })),
  );
  return { symbols, syntaxErrors: errors.length };
}
