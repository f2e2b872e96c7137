import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { CodeSearchResponse } from "../../../src/code/service.js";
import {
  ANALYSIS_ITEMS_PER_PAGE,
  DETAIL_PAGE_MAX_BYTES,
  IMPACT_ROLE_STEPS,
  PARSE_BYTES_MAX,
} from "../../../src/core/limits.js";
import { reposRemovedAfter } from "../git/helpers.js";
import { ctx, makeService } from "../service-helpers.js";

const repo = reposRemovedAfter(after);

type Item = NonNullable<CodeSearchResponse["data"]["items"]>[number];

async function everyItem(
  service: ReturnType<typeof makeService>,
  first: CodeSearchResponse,
): Promise<Item[]> {
  const items = [...(first.data.items ?? [])];
  let page = first;
  while (page.data.cursor !== undefined) {
    page = await service.run({ cursor: page.data.cursor }, ctx());
    items.push(...(page.data.items ?? []));
  }
  return items;
}

/** Every whole-word, case-sensitive occurrence of `name`, found independently: path:line:column. */
async function occurrencesOf(root: string, files: readonly string[], name: string): Promise<string[]> {
  const word = /[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]/u;
  const out: string[] = [];
  for (const file of [...files].sort()) {
    const lines = (await readFile(join(root, file), "utf8")).split("\n");
    lines.forEach((text, i) => {
      for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + name.length)) {
        const before = text[at - 1] ?? "";
        const after = text[at + name.length] ?? "";
        if (!word.test(before) && !word.test(after)) out.push(`${file}:${i + 1}:${at + 1}`);
      }
    });
  }
  return out;
}

const SOURCES = {
  "src/parse.ts": [
    'import { helper } from "./helper.js";',
    "// parse is documented here",
    "export function parse(input: string): string;",
    "export function parse(input: number): string;",
    "export function parse(input: unknown): string {",
    "  return helper(String(input));",
    "}",
    "export class Parser {",
    "  parse(x: string) { return parse(x); }",
    "}",
    // A template whose substitution calls the name: text around code.
    "const label = `parse $" + "{parse(label)}`;",
    "",
  ].join("\n"),
  "src/helper.ts": "export function helper(s: string) { return s; }\n",
  "src/use.tsx": [
    'import { parse } from "./parse";',
    'import type { Parser } from "./parse.js";',
    "export { parse as reparse };",
    "let p: Parser;",
    'parse("x"); p.parse("y");',
    "const obj = { parse, nested: { parse: 1 } };",
    "const view = <parse />;",
    "type T = typeof parse;",
    "",
  ].join("\n"),
  "src/broken.ts": "function (( { parse\n",
  "README.md": "Call parse to parse; parseArgs is another name.\n",
  "test/parse.test.ts": 'import { parse } from "../src/parse.js";\nparse("t");\n',
};

describe("impact", () => {
  it("G17: keeps every exact same-spelling occurrence, classified where the file parses, and claims no binding", async () => {
    const root = await repo(SOURCES);
    const service = makeService(root);
    const first = await service.run({ impact: true, path: "src/parse.ts", symbol: "parse" }, ctx());
    const items = await everyItem(service, first);
    const occurrences = items.filter((i) => i.kind === "occurrence");
    assert.deepEqual(
      occurrences.map((i) => `${i.path}:${i.line}:${i.startColumn}`),
      await occurrencesOf(root, Object.keys(SOURCES), "parse"),
    );
    // The unparsable file and the non-script file keep their occurrences, unclassified.
    for (const item of occurrences.filter((i) => i.path === "src/broken.ts" || i.path === "README.md")) {
      assert.equal(item.role, "unclassified");
      assert.ok((item.note ?? "") !== "");
    }
    assert.equal(first.data.coverage?.binding?.status, "not-evaluated");
    assert.equal(first.data.coverage?.testsRun?.status, "not-run");
    assert.equal(first.data.coverage?.testCoverage?.status, "not-evaluated");
    assert.equal(first.data.coverage?.occurrences?.status, "complete");
    assert.equal(first.data.coverage?.syntax?.status, "partial");
    assert.match(first.text, /Binding is not evaluated/);
    assert.match(first.text, /none was run, and coverage was not evaluated/);
    assert.equal(first.data.totalOccurrences, occurrences.length);
    assert.match(first.text, new RegExp(`: ${occurrences.length} occurrences on`));
    await service.close();
  });

  it("G05: exact-occurrence, syntax, related-test and retention coverage stay apart; counts are the stored items", async () => {
    const root = await repo(SOURCES);
    const count = (await occurrencesOf(root, Object.keys(SOURCES), "parse")).length;
    const roomy = makeService(root);
    const whole = await roomy.run({ impact: true, path: "src/parse.ts", symbol: "parse" }, ctx());
    const facts = (r: CodeSearchResponse) =>
      Object.fromEntries(Object.entries(r.data.coverage ?? {}).map(([k, v]) => [k, v.status]));
    assert.deepEqual(facts(whole), {
      occurrences: "complete",
      syntax: "partial",
      relatedTests: "complete",
      binding: "not-evaluated",
      testsRun: "not-run",
      testCoverage: "not-evaluated",
      retention: "complete",
    });
    assert.equal(whole.data.totalItems, count + 1, "every occurrence, then the one related test");
    assert.equal(whole.data.totalOccurrences, count);
    // A budget the occurrences fill: retention still complete, related tests not looked for.
    const full = makeService(root, { analysisBounds: { maxItems: count, maxBytes: 1 << 20 } });
    const filled = await full.run({ impact: true, path: "src/parse.ts", symbol: "parse" }, ctx());
    assert.equal(facts(filled).retention, "complete");
    assert.equal(facts(filled).occurrences, "complete");
    assert.equal(facts(filled).relatedTests, "partial");
    assert.equal(filled.data.totalItems, count);
    // A smaller one: retention partial, the counts those of the items kept, read as "at least".
    const cut = makeService(root, { analysisBounds: { maxItems: 5, maxBytes: 1 << 20 } });
    const partial = await cut.run({ impact: true, path: "src/parse.ts", symbol: "parse" }, ctx());
    assert.equal(facts(partial).retention, "partial");
    assert.equal(facts(partial).occurrences, "complete");
    assert.equal(partial.data.totalItems, 5);
    assert.equal(partial.data.totalOccurrences, 5);
    assert.match(partial.text, /: at least 5 occurrences/);
    for (const s of [roomy, full, cut]) await s.close();
  });

  it("names how each occurrence is written", async () => {
    const root = await repo(SOURCES);
    const service = makeService(root);
    const items = await everyItem(
      service,
      await service.run({ impact: true, path: "src/parse.ts", line: 5 }, ctx()),
    );
    const role = (path: string, line: number, column: number) =>
      items.find((i) => i.path === path && i.line === line && i.startColumn === column)?.role;
    assert.equal(role("src/parse.ts", 2, 4), "comment");
    assert.equal(role("src/parse.ts", 5, 17), "declaration");
    assert.equal(role("src/parse.ts", 9, 3), "declaration");
    assert.equal(role("src/parse.ts", 9, 29), "call");
    assert.equal(role("src/parse.ts", 11, 16), "string");
    assert.equal(role("src/parse.ts", 11, 24), "call", "code inside a template substitution");
    assert.equal(role("src/use.tsx", 1, 10), "import");
    assert.equal(role("src/use.tsx", 1, 26), "string");
    assert.equal(role("src/use.tsx", 3, 10), "export");
    assert.equal(role("src/use.tsx", 5, 1), "call");
    assert.equal(role("src/use.tsx", 5, 15), "call", "a method call");
    assert.equal(role("src/use.tsx", 6, 15), "property");
    assert.equal(role("src/use.tsx", 6, 32), "property");
    assert.equal(role("src/use.tsx", 7, 15), "jsx");
    assert.equal(role("src/use.tsx", 8, 17), "reference");
    await service.close();
  });

  it("an overload set chooses its one implementation; without one, or with two, it is ambiguous", async () => {
    const root = await repo({
      ...SOURCES,
      "src/decl.d.ts":
        "export declare function load(a: string): void;\nexport declare function load(a: number): void;\n",
      "src/twice.js": "function run() {}\nfunction run() {}\nclass A { go() {} }\nclass B { go() {} }\n",
    });
    const service = makeService(root);
    const bySignature = await service.run({ impact: true, path: "src/parse.ts", line: 3 }, ctx());
    assert.match(bySignature.text, /impact of function parse \(src\/parse\.ts:5-7\)/);
    for (const [input, pattern] of [
      [{ path: "src/decl.d.ts", symbol: "load" }, /overload set with no implementation/],
      [{ path: "src/decl.d.ts", line: 1 }, /overload set with no implementation/],
      [{ path: "src/twice.js", symbol: "run" }, /2 implementations/],
      [{ path: "src/twice.js", symbol: "go" }, /A\.go .*B\.go/],
    ] as const) {
      const error = await service.run({ impact: true, ...input }, ctx()).catch((e: unknown) => e);
      assert.equal((error as { code?: string }).code, "invalid_arguments", JSON.stringify(input));
      assert.match((error as Error).message, pattern);
    }
    await service.close();
  });

  it("refuses a line that holds several symbols side by side, and takes each by name", async () => {
    const root = await repo({
      "src/one.ts":
        "export function alpha() { return 1 } export function beta() { return 2 }\nexport function gamma() {\n  return 3;\n} export function delta() { return 4 }\n",
    });
    const service = makeService(root);
    const error = await service
      .run({ impact: true, path: "src/one.ts", line: 1 }, ctx())
      .catch((e: unknown) => e);
    assert.equal((error as { code?: string }).code, "invalid_arguments");
    assert.match(
      (error as Error).message,
      /line 1 of src\/one\.ts holds 2 symbols side by side \(alpha \(function\); beta \(function\)\)/,
    );
    const beta = await service.run({ impact: true, path: "src/one.ts", symbol: "beta" }, ctx());
    assert.match(beta.text, /impact of function beta \(src\/one\.ts:1-1\)/);
    // A line holding one symbol's end and another whole names the smaller one.
    const delta = await service.run({ impact: true, path: "src/one.ts", line: 4 }, ctx());
    assert.match(delta.text, /impact of function delta \(src\/one\.ts:4-4\)/);
    // A match tells them apart by its column.
    const found = await service.run({ structure: "return $A", path: "src/one.ts", limit: 1 }, ctx());
    for (const [inspect, name] of [
      [1, "alpha"],
      [2, "beta"],
    ] as const) {
      const byMatch = await service.run(
        { impact: true, cursor: found.data.cursor as string, inspect },
        ctx(),
      );
      assert.match(byMatch.text, new RegExp(`impact of function ${name} \\(src/one\\.ts:1-1\\)`));
    }
    await service.close();
  });

  it("takes $ as part of a name in scripts: el inside $el or $$el is another name", async () => {
    const root = await repo({
      "a.ts":
        'export function el() { return 1; }\nexport function $el() { return 2; }\nconst $$el = 3;\nel(); $el(); $$el;\nconst s = "el";\n',
      "notes.md": "Call el, or $el in a shell.\n",
    });
    const service = makeService(root);
    const at = (result: CodeSearchResponse) =>
      (result.data.items ?? []).map((i) => `${i.path}:${i.line}:${i.startColumn} ${i.role}`);
    const el = await service.run({ impact: true, path: "a.ts", symbol: "el" }, ctx());
    // Elsewhere than a script, ripgrep's word boundary stands.
    assert.deepEqual(at(el), [
      "a.ts:1:17 declaration",
      "a.ts:4:1 call",
      "a.ts:5:12 string",
      "notes.md:1:6 unclassified",
      "notes.md:1:14 unclassified",
    ]);
    assert.equal(el.data.totalOccurrences, 5);
    const dollar = await service.run({ impact: true, path: "a.ts", symbol: "$el" }, ctx());
    assert.deepEqual(at(dollar), ["a.ts:2:17 declaration", "a.ts:4:7 call", "notes.md:1:13 unclassified"]);
    await service.close();
  });

  it("never searches an anonymous or default-export placeholder as a name", async () => {
    const root = await repo({
      "src/anon.ts": "export default function () {\n  return 1;\n}\nexport default class {}\n",
    });
    const service = makeService(root);
    const error = await service
      .run({ impact: true, path: "src/anon.ts", line: 2 }, ctx())
      .catch((e: unknown) => e);
    assert.equal((error as { code?: string }).code, "invalid_arguments");
    assert.match((error as Error).message, /anonymous and default-export functions have no name/);
    const named = await service
      .run({ impact: true, path: "src/anon.ts", symbol: "default" }, ctx())
      .catch((e: unknown) => e);
    assert.equal((named as { code?: string }).code, "invalid_arguments");
    await service.close();
  });

  it("takes its target from a search's match, and refuses what is not a script", async () => {
    const root = await repo(SOURCES);
    const service = makeService(root);
    const search = await service.run({ pattern: "class Parser", mode: "summary" }, ctx());
    const byMatch = await service.run(
      { impact: true, cursor: search.data.cursor as string, inspect: 1 },
      ctx(),
    );
    assert.match(byMatch.text, /impact of class Parser \(src\/parse\.ts:8-10\)/);
    const notScript = await service
      .run({ impact: true, path: "README.md", line: 1 }, ctx())
      .catch((e: unknown) => e);
    assert.equal((notScript as { code?: string }).code, "invalid_arguments");
    await service.close();
  });

  it("stops test augmentation explicitly when exact occurrences use the budget", async () => {
    const root = await repo(SOURCES);
    const count = (await occurrencesOf(root, Object.keys(SOURCES), "parse")).length;
    const full = makeService(root, { analysisBounds: { maxItems: count, maxBytes: 1 << 20 } });
    const filled = await everyItem(
      full,
      await full.run({ impact: true, path: "src/parse.ts", symbol: "parse" }, ctx()),
    );
    assert.equal(filled.filter((i) => i.kind === "test").length, 0);
    const first = await full.run({ impact: true, path: "src/parse.ts", symbol: "parse" }, ctx());
    assert.equal(first.data.coverage?.relatedTests?.status, "partial");
    assert.match(first.data.coverage?.relatedTests?.detail ?? "", /exact occurrences used the whole budget/);
    assert.match(first.text, /PARTIAL relatedTests: not looked for/);
    const roomy = makeService(root);
    const all = await everyItem(
      roomy,
      await roomy.run({ impact: true, path: "src/parse.ts", symbol: "parse" }, ctx()),
    );
    assert.deepEqual(
      all.filter((i) => i.kind === "test").map((i) => [i.path, i.note]),
      [["test/parse.test.ts", "mentions parse"]],
    );
    await full.close();
    await roomy.close();
  });

  it("files past the parse budget's bytes keep their occurrences, unclassified, and say why", async () => {
    // Callers of 3/8 of the byte budget each, in path order after the symbol's own file: the
    // third would pass the bound.
    const filler = `// ${"x".repeat(76)}\n`.repeat(Math.ceil((PARSE_BYTES_MAX * 3) / 8 / 80));
    const files: Record<string, string> = { "src/a.ts": "export function parse() {}\n" };
    for (const name of ["b", "c", "d"])
      files[`src/${name}.ts`] = `import { parse } from "./a";\nparse();\n${filler}`;
    const service = makeService(await repo(files));
    const first = await service.run({ impact: true, path: "src/a.ts", symbol: "parse" }, ctx());
    const items = await everyItem(service, first);
    const notes = (path: string) => [...new Set(items.filter((i) => i.path === path).map((i) => i.note))];
    assert.deepEqual(notes("src/d.ts"), ["beyond the parse budget of 4 MiB of source"]);
    assert.ok(!notes("src/b.ts").some((n) => /budget/.test(n ?? "")), notes("src/b.ts").join());
    assert.match(first.data.coverage?.syntax?.detail ?? "", /beyond the parse budget of 4 MiB of source/);
    await service.close();
  });

  it("G17: a file of 20,000 nested calls keeps every occurrence: those within the syntax steps' budget classified, the rest unclassified saying why", async () => {
    // Placing each occurrence walks down from the root: quadratic in the nesting without a bound.
    const depth = 20_000;
    const service = makeService(
      await repo({
        "src/deep.ts": `export function g(x: number) { return ${"g(".repeat(depth)}x${")".repeat(depth)}; }\n`,
      }),
    );
    const first = await service.run({ impact: true, path: "src/deep.ts", line: 1 }, ctx());
    const items = await everyItem(service, first);
    assert.equal(items.length, depth + 1, "every occurrence is kept");
    assert.equal(items[0]?.role, "declaration");
    assert.equal(items[1]?.role, "call");
    const over = items.filter((i) => i.role === "unclassified");
    assert.ok(over.length > 0 && over.length < depth, `${over.length} unclassified`);
    assert.ok(
      over.every(
        (i) => i.note === `beyond the budget of ${IMPACT_ROLE_STEPS} syntax steps (deeply nested code)`,
      ),
    );
    assert.equal(first.data.coverage?.syntax?.status, "partial");
    assert.match(
      first.data.coverage?.syntax?.detail ?? "",
      new RegExp(`^${over.length} occurrence\\(s\\) unclassified: beyond the budget`),
    );
    await service.close();
  });

  it("a file beyond the parse budget keeps its occurrences, unclassified, and says why", async () => {
    const root = await repo(SOURCES);
    const service = makeService(root);
    const first = await service.run(
      { impact: true, path: "src/parse.ts", symbol: "parse", maxParseFiles: 1 },
      ctx(),
    );
    const items = await everyItem(service, first);
    assert.ok(items.some((i) => i.note === "beyond the parse budget of 1 files"));
    assert.match(first.data.coverage?.syntax?.detail ?? "", /beyond the parse budget/);
    await service.close();
  });

  it("a widely used name: the first page fits the bound, and every occurrence is reachable by cursor", async () => {
    const files: Record<string, string> = { "src/core.ts": "export function widely() {}\n" };
    for (let f = 0; f < 40; f++) {
      files[`src/use${f}.ts`] =
        `${Array.from({ length: 10 }, (_, i) => `widely(); // widely ${i}`).join("\n")}\n`;
    }
    const root = await repo(files);
    const service = makeService(root);
    const first = await service.run({ impact: true, path: "src/core.ts", symbol: "widely" }, ctx());
    assert.ok(Buffer.byteLength(first.text) <= DETAIL_PAGE_MAX_BYTES);
    assert.ok((first.data.items?.length ?? 0) <= ANALYSIS_ITEMS_PER_PAGE);
    const items = await everyItem(service, first);
    assert.equal(items.filter((i) => i.kind === "occurrence").length, 1 + 40 * 10 * 2);
    assert.deepEqual(
      items.map((i) => i.index),
      items.map((_, i) => i + 1),
    );
    await service.close();
  });

  it("a file edited during the scan is not classified from its new bytes", async () => {
    const root = await repo(SOURCES);
    let spawned = 0;
    let edited = false;
    const service = makeService(root, {
      onProcessSpawn: () => {
        // A fresh service starts Git twice (its version, the repository's root), ripgrep to list
        // the tree, then ripgrep to scan it: edited as the scan starts, the file's revision then
        // differs from the one the listing observed.
        if (++spawned !== 4) return;
        edited = true;
        writeFileSync(join(root, "src/use.tsx"), `${SOURCES["src/use.tsx"]}parse();\n`);
      },
    });
    const first = await service.run({ impact: true, path: "src/parse.ts", symbol: "parse" }, ctx());
    assert.equal(edited, true, "the content scan was seen starting");
    const items = await everyItem(service, first);
    const use = items.filter((i) => i.path === "src/use.tsx");
    assert.ok(use.length > 0 && use.every((i) => i.role === "unclassified"), JSON.stringify(use.slice(0, 2)));
    assert.equal(first.data.coverage?.syntax?.status, "partial");
    await service.close();
  });
});
