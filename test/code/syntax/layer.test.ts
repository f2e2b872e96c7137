/**
 * The syntax layer on real files: ast-grep for JS/TS/TSX and the language packages, Universal
 * Ctags for the rest, and every status a provider can end in (G13).
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { BoundedCache, estimatedBytes } from "../../../src/code/bounded-cache.js";
import { readSourceDocument, type SourceDocument } from "../../../src/code/source/document.js";
import { SyntaxLayer } from "../../../src/code/syntax/layer.js";
import { enclosingSymbol, pickSymbol, qualify, symbolsNamed } from "../../../src/code/syntax/symbols.js";
import { SYNTAX_CACHE_MAX_BYTES } from "../../../src/core/limits.js";
import { missing } from "../../fixtures/optional-tools.js";
import { treesRemovedAfter } from "../helpers.js";

const makeTree = treesRemovedAfter(after);
const env = { PATH: process.env.PATH };

async function doc(root: string, name: string): Promise<SourceDocument> {
  const read = await readSourceDocument(join(root, name));
  assert.ok(read.ok, `read ${name}`);
  return read.document;
}

const TS = `import { x } from "./x";

export function parse(input: string): number {
  return input.length;
}

export class Parser {
  private count = 0;

  run(): void {
    this.count++;
  }

  static make = () => new Parser();
}

const helper = (a: number) => {
  return a * 2;
};

interface Shape {
  area(): number;
}

type Id = string;
`;

describe("syntax layer", () => {
  it("finds whole JS/TS symbols with qualified names and export lines", async () => {
    const root = await makeTree({ "a.ts": TS });
    const layer = new SyntaxLayer({ env });
    const outcome = await layer.symbols(await doc(root, "a.ts"));
    assert.equal(outcome.status, "ok");
    if (outcome.status !== "ok") return;
    assert.equal(outcome.provider, "ast-grep");
    const byName = Object.fromEntries(
      outcome.symbols.map((s) => [s.qualifiedName, [s.kind, s.startLine, s.endLine]]),
    );
    assert.deepEqual(byName, {
      parse: ["function", 3, 5],
      Parser: ["class", 7, 15],
      "Parser.run": ["method", 10, 12],
      "Parser.make": ["method", 14, 14],
      helper: ["function", 17, 19],
      Shape: ["interface", 21, 23],
      Id: ["type", 25, 25],
    });
    assert.equal(enclosingSymbol(outcome.symbols, 11)?.qualifiedName, "Parser.run");
    assert.equal(enclosingSymbol(outcome.symbols, 8)?.qualifiedName, "Parser");
    assert.equal(enclosingSymbol(outcome.symbols, 1), undefined);
    assert.deepEqual(
      symbolsNamed(outcome.symbols, "run").map((s) => s.qualifiedName),
      ["Parser.run"],
    );
  });

  it("parses Python, Go, Rust and Java through their language packages", async () => {
    const root = await makeTree({
      "a.py": "class A:\n    @staticmethod\n    def f():\n        return 1\n\ndef g():\n    pass\n",
      "a.go": "package a\n\ntype S struct {\n\tx int\n}\n\nfunc (s *S) Get() int {\n\treturn s.x\n}\n",
      "a.rs": "struct P;\n\nimpl P {\n    fn new() -> P {\n        P\n    }\n}\n",
      "A.java": "class A {\n  int f() {\n    return 1;\n  }\n}\n",
    });
    const layer = new SyntaxLayer({ env });
    const names = async (file: string) => {
      const outcome = await layer.symbols(await doc(root, file));
      assert.equal(outcome.status, "ok", file);
      return outcome.status === "ok"
        ? outcome.symbols.map((s) => `${s.qualifiedName}:${s.startLine}-${s.endLine}`)
        : [];
    };
    assert.deepEqual(await names("a.py"), ["A:1-4", "A.f:2-4", "g:6-7"]);
    assert.deepEqual(await names("a.go"), ["S:3-5", "S.Get:7-9"]);
    assert.deepEqual(await names("a.rs"), ["P:1-1", "P:3-7", "P.new:4-6"]);
    assert.deepEqual(await names("A.java"), ["A:1-5", "A.f:2-4"]);
  });

  it("uses Universal Ctags for other languages", { skip: missing("ctags") }, async () => {
    const root = await makeTree({ "a.rb": "class Foo\n  def bar\n    1\n  end\nend\n" });
    const outcome = await new SyntaxLayer({ env }).symbols(await doc(root, "a.rb"));
    assert.equal(outcome.status, "ok");
    if (outcome.status !== "ok") return;
    assert.equal(outcome.provider, "ctags");
    assert.deepEqual(
      outcome.symbols.map((s) => `${s.qualifiedName}:${s.startLine}-${s.endLine}`),
      ["Foo:1-5", "Foo.bar:2-4"],
    );
  });

  it("tells siblings on one line from a parent and its member, by columns or by ctags' scope", {
    skip: missing("ctags"),
  }, async () => {
    const root = await makeTree({
      "x.c": "int a(void) { return 1; } int b(void) { return 2; }\n",
      "x.ts": "function a() {} function b() {}\nclass C { m() {} }\n",
    });
    const layer = new SyntaxLayer({ env });
    for (const [name, provider, expected] of [
      ["x.c", "ctags", ["a", "b"]],
      ["x.ts", "ast-grep", ["a", "b", "C", "C.m"]],
    ] as const) {
      const outcome = await layer.symbols(await doc(root, name));
      assert.equal(outcome.status, "ok", name);
      if (outcome.status !== "ok") continue;
      assert.equal(outcome.provider, provider, name);
      assert.deepEqual(
        outcome.symbols.map((s) => s.qualifiedName),
        expected,
        name,
      );
    }
    // Lines alone: only a stated scope nests (ctags gives one for a member on its class's line).
    const line = { kind: "function", startLine: 1, endLine: 1, hasSyntaxError: false };
    assert.deepEqual(
      qualify([
        { ...line, name: "A", kind: "class" },
        { ...line, name: "m", scope: "N::A" },
        { ...line, name: "f" },
      ]).map((s) => s.qualifiedName),
      ["A", "A.m", "f"],
    );
  });

  it("G13: a missing provider is an explicit status, not an error", async () => {
    const root = await makeTree({ "a.rb": "class Foo\nend\n", "a.unknownext": "x\n" });
    const noCtags = new SyntaxLayer({ env: { PATH: "" } });
    for (const name of ["a.rb", "a.unknownext"]) {
      const outcome = await noCtags.symbols(await doc(root, name));
      assert.equal(outcome.status, "no_provider", name);
      assert.match(
        outcome.status === "no_provider" ? outcome.reason : "",
        /Universal Ctags is not installed/,
      );
    }
  });

  it("G13: a language no provider parses is an explicit status, not an error", {
    skip: missing("ctags"),
  }, async () => {
    const root = await makeTree({ "a.unknownext": "x\n" });
    const unknown = await new SyntaxLayer({ env }).symbols(await doc(root, "a.unknownext"));
    assert.equal(unknown.status, "no_provider");
    assert.match(unknown.status === "no_provider" ? unknown.reason : "", /no parser/);
  });

  it("G13: syntax errors mark the symbols they touch and leave the others", async () => {
    const root = await makeTree({
      "a.ts": "function ok() {\n  return 1;\n}\n\nfunction broken() {\n  return ((;\n}\n",
    });
    const outcome = await new SyntaxLayer({ env }).symbols(await doc(root, "a.ts"));
    assert.equal(outcome.status, "ok");
    if (outcome.status !== "ok") return;
    assert.ok(outcome.syntaxErrors > 0);
    assert.equal(outcome.symbols.find((s) => s.name === "ok")?.hasSyntaxError, false);
    assert.equal(outcome.symbols.find((s) => s.name === "broken")?.hasSyntaxError, true);
  });

  it("G13: ctags output for a file changed after it was read is refused as changed", {
    skip: missing("ctags"),
  }, async () => {
    const root = await makeTree({ "a.rb": "class Foo\nend\n" });
    const document = await doc(root, "a.rb");
    await writeFile(join(root, "a.rb"), "class Bar\nend\n# longer now\n");
    const outcome = await new SyntaxLayer({ env }).symbols(document);
    assert.equal(outcome.status, "changed");
  });

  it("reuses facts for the same content and parses again when it changes", async () => {
    const root = await makeTree({ "a.ts": "function a() {}\n", "b.ts": "function a() {}\n" });
    const parsed: string[] = [];
    const layer = new SyntaxLayer({ env, onParse: (path) => parsed.push(path) });
    await layer.symbols(await doc(root, "a.ts"));
    await layer.symbols(await doc(root, "b.ts")); // same bytes: same key
    assert.equal(parsed.length, 1);
    await writeFile(join(root, "a.ts"), "function b() {}\n");
    const changed = await layer.symbols(await doc(root, "a.ts"));
    assert.equal(parsed.length, 2);
    assert.equal(changed.status === "ok" && changed.symbols[0]?.name, "b");
  });

  it("keeps a tree's facts between calls, never the tree (a tree is native memory)", async () => {
    const root = await makeTree({
      "a.ts": 'import { x } from "./x";\nexport function f() {\n  return x;\n}\n',
    });
    const document = await doc(root, "a.ts");
    let parses = 0;
    const layer = new SyntaxLayer({ env, onParse: () => parses++ });
    const first = await layer.tree(document);
    assert.equal(first.status, "ok");
    // Facts and symbols come from the cache; a tree is parsed again for each call that walks one.
    assert.equal((await layer.facts(document)).status, "ok");
    assert.equal((await layer.symbols(document)).status, "ok");
    assert.equal(parses, 1);
    const second = await layer.tree(document);
    assert.equal(parses, 2);
    assert.ok(first.status === "ok" && second.status === "ok" && first.root !== second.root);
    // Import specifiers are facts too: the first asks parses, the next reads the cache.
    const specifiers = await layer.specifiers(document);
    assert.deepEqual(specifiers.status === "ok" && specifiers.specifiers, [{ specifier: "./x", line: 1 }]);
    await layer.specifiers(document);
    assert.equal(parses, 3);
    assert.deepEqual(layer.cached, {
      entries: 2,
      bytes: estimatedBytes([["f", "f"]]) + estimatedBytes([["./x"]]),
    });
  });

  it("a cancelled caller stops waiting for its parse", async () => {
    const root = await makeTree({ "a.ts": "function a() {}\n".repeat(20_000) });
    const document = await doc(root, "a.ts");
    const controller = new AbortController();
    const layer = new SyntaxLayer({ env });
    const pending = layer.symbols(document, controller.signal);
    controller.abort();
    await assert.rejects(pending, { code: "cancelled" });
  });

  it("picks one implementation among overload signatures, and reports real ambiguity", async () => {
    const root = await makeTree({
      "a.ts":
        "function o(a: string): void;\nfunction o(a: number): void;\nfunction o(a: unknown) {\n  return a;\n}\nclass A { f() {} }\nclass B { f() {} }\n",
    });
    const outcome = await new SyntaxLayer({ env }).symbols(await doc(root, "a.ts"));
    assert.ok(outcome.status === "ok");
    const o = pickSymbol(symbolsNamed(outcome.symbols, "o"));
    assert.ok(o !== undefined && "symbol" in o && o.symbol.startLine === 3);
    const f = pickSymbol(symbolsNamed(outcome.symbols, "f"));
    assert.ok(f !== undefined && "ambiguous" in f && f.ambiguous.length === 2);
    const exact = pickSymbol(symbolsNamed(outcome.symbols, "B.f"));
    assert.ok(exact !== undefined && "symbol" in exact && exact.symbol.startLine === 7);
  });
});

describe("syntax cache", () => {
  it("evicts the least recently used entry beyond its entry and byte bounds", () => {
    const cache = new BoundedCache<string>({ maxEntries: 2, maxBytes: 10 });
    cache.set("a", "A", 4);
    cache.set("b", "B", 4);
    assert.equal(cache.get("a"), "A"); // a is now the most recent
    cache.set("c", "C", 4); // over 2 entries: b goes
    assert.equal(cache.get("b"), undefined);
    assert.deepEqual([cache.get("a"), cache.get("c")], ["A", "C"]);
    cache.set("d", "D", 11); // larger than the whole bound: not kept
    assert.equal(cache.get("d"), undefined);
    assert.equal(cache.bytes, 8);
    const small = new BoundedCache<string>({ maxEntries: 5, maxBytes: 10 });
    small.set("a", "A", 6);
    small.set("b", "B", 6); // over 10 bytes: a goes
    assert.deepEqual([small.get("a"), small.get("b"), small.bytes], [undefined, "B", 6]);
  });

  it("by default keeps at most SYNTAX_CACHE_MAX_BYTES of estimated facts", () => {
    const cache = new BoundedCache<string>();
    const half = SYNTAX_CACHE_MAX_BYTES / 2;
    cache.set("a", "A", half);
    cache.set("b", "B", half);
    assert.deepEqual([cache.get("a"), cache.get("b")], ["A", "B"]);
    cache.set("c", "C", 1); // one byte over: the least recent, a, goes
    assert.deepEqual([cache.get("a"), cache.get("b"), cache.get("c")], [undefined, "B", "C"]);
    cache.set("d", "D", SYNTAX_CACHE_MAX_BYTES + 1); // more than the whole bound: not kept
    assert.equal(cache.get("d"), undefined);
  });
});
