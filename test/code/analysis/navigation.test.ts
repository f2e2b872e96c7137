import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { CodeSearchResponse } from "../../../src/code/service.js";
import { PARSE_BYTES_MAX } from "../../../src/core/limits.js";
import { reposRemovedAfter } from "../git/helpers.js";
import { treesRemovedAfter } from "../helpers.js";
import { ctx, makeService } from "../service-helpers.js";

const repo = reposRemovedAfter(after);
const tree = treesRemovedAfter(after);

const FILES = {
  "package.json": JSON.stringify({ name: "app", imports: { "#lib/*": "./src/lib/*.ts" } }),
  "src/lib/strings.ts": "export const s = 1;\n",
  "src/parse.ts": [
    'import { s } from "#lib/strings";',
    'import { helper } from "./helper.js";',
    'import React from "react";',
    'import { readFile } from "node:fs";',
    'export * from "./types";',
    "const dynamic = await import(`./$" + "{name}`);",
    "export function parse() {}",
    "",
  ].join("\n"),
  "src/helper.ts": "export const helper = 1;\n",
  "src/types.ts": "export type T = 1;\n",
  "src/use.ts": 'import { parse } from "./parse.js";\n',
  "src/again.js": 'const { parse } = require("./parse");\n',
  "src/lazy.ts": 'const m = await import("./parse");\n',
  "src/reexport.ts": 'export { parse } from "./parse";\n',
  "src/unrelated.ts": 'const text = "parse me";\nimport { x } from "./parsed";\n',
  "src/parse.test.ts": 'import { parse } from "./parse";\n',
  "test/parse.spec.ts": "describe('parse', () => {});\n",
  "test/unit.test.ts": 'import { parse } from "../src/parse.js";\n',
};

const listed = (result: CodeSearchResponse) =>
  (result.data.items ?? []).map((i) => `${i.kind} ${i.path} (${i.note})`);

describe("navigation", () => {
  it("lists what a file imports, resolved or not, and what imports it", async () => {
    const root = await repo(FILES);
    const service = makeService(root);
    const result = await service.run({ navigate: "imports", path: "src/parse.ts" }, ctx());
    assert.deepEqual(listed(result), [
      'imports src/lib/strings.ts ("#lib/strings" on line 1, package-local)',
      'imports src/helper.ts ("./helper.js" on line 2, relative)',
      'imports src/types.ts ("./types" on line 5, relative)',
      'unresolved src/parse.ts ("react": a package name not followed (a dependency, a built-in, or an alias such as tsconfig paths))',
      'unresolved src/parse.ts ("node:fs": not a package name)',
      "imported-by src/again.js (imports it)",
      "imported-by src/lazy.ts (imports it)",
      "imported-by src/parse.test.ts (imports it)",
      "imported-by src/reexport.ts (imports it)",
      "imported-by src/use.ts (imports it)",
      "imported-by test/unit.test.ts (imports it)",
    ]);
    assert.equal(result.data.coverage?.importers?.status, "complete");
    assert.match(result.text, /Links are static/);
    await service.close();
  });

  it("lists likely tests by name and by import, as candidates", async () => {
    const root = await repo(FILES);
    const service = makeService(root);
    const result = await service.run({ navigate: "tests", path: "src/parse.ts" }, ctx());
    assert.deepEqual(listed(result), [
      "test src/parse.test.ts (named after it (parse))",
      "test test/parse.spec.ts (named after it (parse))",
      "test test/unit.test.ts (imports it)",
    ]);
    assert.equal(result.data.coverage?.testsRun?.status, "not-run");
    assert.match(result.text, /none was run/);
    await service.close();
  });

  it("roots at the containing repository, else at the file's directory", async () => {
    const root = await repo({ ...FILES, "sub/inner.ts": 'import "../src/parse";\n' });
    // Started in a subdirectory: the repository (outside it, so named absolutely) holds the importers.
    const inSub = makeService(join(root, "sub"));
    const fromSub = await inSub.run({ navigate: "imports", path: "../src/parse.ts" }, ctx());
    assert.equal(fromSub.data.effectiveRoot, root);
    for (const importer of ["sub/inner.ts", "src/use.ts"]) {
      assert.ok(
        listed(fromSub).includes(`imported-by ${join(root, importer)} (imports it)`),
        listed(fromSub).join("\n"),
      );
    }
    await inSub.close();
    const plain = await tree({ "a/x.ts": 'import "./y";\n', "a/y.ts": "", "b/z.ts": 'import "../a/y";\n' });
    const service = makeService(plain);
    const result = await service.run({ navigate: "imports", path: "a/y.ts" }, ctx());
    assert.deepEqual(listed(result), ["imported-by a/x.ts (imports it)"]);
    assert.equal(result.data.effectiveRoot, "a");
    await service.close();
  });

  it("says when the parse budget left candidate importers unread", async () => {
    const root = await repo(FILES);
    const service = makeService(root);
    const result = await service.run({ navigate: "imports", path: "src/parse.ts", maxParseFiles: 2 }, ctx());
    assert.equal(result.data.status, "partial");
    assert.match(result.data.coverage?.importers?.detail ?? "", /beyond the parse budget of 2 files/);
    assert.match(result.text, /PARTIAL importers/);
    await service.close();
  });

  it("says an importer may be missed where a candidate has syntax errors", async () => {
    const service = makeService(
      await tree({
        "a/y.ts": "export const y = 1;\n",
        "a/ok.ts": 'import { y } from "./y";\n',
        // An import the parser cannot recover, and one it can beside an error elsewhere.
        "a/broken.ts": 'import { y from "./y";\ny();\n',
        "a/other.ts": 'import { y } from "./y";\nconst x = {;\n',
      }),
    );
    for (const navigate of ["imports", "tests"] as const) {
      const result = await service.run({ navigate, path: "a/y.ts" }, ctx());
      assert.equal(result.data.status, "partial", navigate);
      assert.equal(
        result.data.coverage?.importers?.detail,
        "1 candidate file(s) with syntax errors, where an import of it may be missed",
        navigate,
      );
    }
    const result = await service.run({ navigate: "imports", path: "a/y.ts" }, ctx());
    assert.deepEqual(listed(result), [
      "imported-by a/ok.ts (imports it)",
      "imported-by a/other.ts (imports it)",
    ]);
    assert.match(result.text, /PARTIAL importers/);
    await service.close();
  });

  it("stops parsing importers at the parse budget's bytes, says so, and still parses the first", async () => {
    // Importers of 3/8 of the byte budget each: the third would pass it; a small one after fits.
    const filler = `// ${"x".repeat(76)}\n`.repeat(Math.ceil((PARSE_BYTES_MAX * 3) / 8 / 80));
    const files: Record<string, string> = { "a/y.ts": "export const y = 1;\n" };
    for (const name of ["p", "q", "r"]) files[`a/${name}.ts`] = `import { y } from "./y";\n${filler}`;
    files["a/s.ts"] = 'import { y } from "./y";\n';
    const service = makeService(await tree(files));
    const result = await service.run({ navigate: "imports", path: "a/y.ts" }, ctx());
    assert.deepEqual(listed(result), [
      "imported-by a/p.ts (imports it)",
      "imported-by a/q.ts (imports it)",
      "imported-by a/s.ts (imports it)",
    ]);
    assert.equal(result.data.status, "partial");
    assert.match(
      result.data.coverage?.importers?.detail ?? "",
      /1 candidate file\(s\) beyond the parse budget of 4 MiB of source/,
    );
    await service.close();
  });

  it("reads imports from scripts only; tests are found for any file", async () => {
    const root = await tree({ "pkg/util.py": "x = 1\n", "pkg/test_util.py": "import util\n" });
    const service = makeService(root);
    const error = await service
      .run({ navigate: "imports", path: "pkg/util.py" }, ctx())
      .catch((e: unknown) => e);
    assert.equal((error as { code?: string }).code, "invalid_arguments");
    const tests = await service.run({ navigate: "tests", path: "pkg/util.py" }, ctx());
    assert.deepEqual(listed(tests), ["test pkg/test_util.py (named after it (util))"]);
    // The text says how they were found: by name alone, not by import.
    assert.equal(tests.data.coverage?.importers?.status, "not-evaluated");
    assert.match(
      tests.text,
      /Test files are candidates by name only \(imports are read from JavaScript and TypeScript only/,
    );
    assert.doesNotMatch(tests.text, /by name and by import/);
    await service.close();
  });
});
