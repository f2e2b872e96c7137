/**
 * Folders of installed or generated code: ripgrep's rules decide what is searched (nothing is
 * left out by evident), and when one such folder holds most of a result, the answer names it and
 * the exclude that drops it, in the text and in the data. Checked on the rule itself and through
 * the real service (ripgrep over temp trees), for pattern, structure and anyOf searches.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { dominantVendoredFolder, VENDORED_FOLDER_NAMES } from "../../../src/code/render/vendored.js";
import { reposRemovedAfter } from "../git/helpers.js";
import { treesRemovedAfter } from "../helpers.js";
import { ctx, makeService } from "../service-helpers.js";

const tree = treesRemovedAfter(after);
const repo = reposRemovedAfter(after);
const ROOT = { effectiveRoot: ".", globs: [], excludes: [] };

/** `count` matching files under `dir`, each holding the word. */
function filesUnder(dir: string, count: number, word = "needle"): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < count; i++) out[`${dir}/f${i}.js`] = `module.exports = "${word}";\n`;
  return out;
}

describe("vendored folders", () => {
  it("a folder holding more than half the matching lines is named, with the exclude list that drops it", () => {
    const files = [
      { path: "node_modules/a/index.js", count: 3 },
      { path: "node_modules/b/index.js", count: 1 },
      { path: "src/app.js", count: 3 },
    ];
    assert.deepEqual(dominantVendoredFolder(files, 7, ROOT), {
      folder: "node_modules",
      path: "node_modules",
      matches: 4,
      total: 7,
      exclude: ["node_modules"],
    });
    // Half is not most.
    assert.equal(dominantVendoredFolder(files, 8, ROOT), undefined);
    // The search's own excludes are kept in the list to pass.
    assert.deepEqual(dominantVendoredFolder(files, 7, { ...ROOT, excludes: ["*.md"] })?.exclude, [
      "*.md",
      "node_modules",
    ]);
  });

  it("counts a name at any depth, as the exclude glob drops it, and only directories", () => {
    const nested = [
      { path: "packages/a/node_modules/x/i.js", count: 2 },
      { path: "packages/b/node_modules/y/i.js", count: 2 },
      { path: "packages/a/src/i.js", count: 1 },
    ];
    const found = dominantVendoredFolder(nested, 5, ROOT);
    assert.equal(found?.folder, "node_modules");
    assert.equal(found?.path, undefined, "two directories: named by their name");
    assert.equal(found?.matches, 4);
    // A file named like such a folder is no folder.
    assert.equal(dominantVendoredFolder([{ path: "src/build", count: 5 }], 5, ROOT), undefined);
    // Nested names count once per file, for the name holding most.
    const both = dominantVendoredFolder([{ path: "dist/node_modules/a.js", count: 3 }], 3, ROOT);
    assert.ok(both !== undefined && ["dist", "node_modules"].includes(both.folder));
  });

  it("says nothing when the search was aimed there: a path inside such a folder, or a glob naming it", () => {
    const files = [{ path: "vendor/lib/a.go", count: 5 }];
    assert.equal(dominantVendoredFolder(files, 5, { ...ROOT, effectiveRoot: "vendor/lib" }), undefined);
    assert.equal(dominantVendoredFolder(files, 5, { ...ROOT, effectiveRoot: "./vendor" }), undefined);
    assert.equal(dominantVendoredFolder(files, 5, { ...ROOT, globs: ["vendor/**"] }), undefined);
    assert.equal(dominantVendoredFolder(files, 5, { ...ROOT, globs: ["**/vendor/*.go"] }), undefined);
    // A glob that only contains the letters is no aim at the folder.
    assert.equal(
      dominantVendoredFolder([{ path: "out/a.ts", count: 5 }], 5, { ...ROOT, globs: ["layout/**", "*.ts"] })
        ?.folder,
      "out",
    );
    // Under a subpath, only what lies below it counts.
    assert.equal(
      dominantVendoredFolder([{ path: "app/dist/a.js", count: 5 }], 5, { ...ROOT, effectiveRoot: "app" })
        ?.path,
      "app/dist",
    );
  });

  it("knows the usual install and build folders of each ecosystem", () => {
    for (const name of [
      "node_modules",
      "vendor",
      "third_party",
      ".venv",
      "site-packages",
      "dist",
      "build",
      "target",
    ]) {
      assert.ok(VENDORED_FOLDER_NAMES.has(name), name);
    }
    assert.equal(VENDORED_FOLDER_NAMES.has("src"), false);
  });

  it("a search dominated by node_modules, with no ignore file, names it and the exclude; nothing is left out", async () => {
    const root = await tree({ ...filesUnder("node_modules/lib", 6), ...filesUnder("src", 2) });
    const service = makeService(root);
    for (const request of [{ pattern: "needle" }, { pattern: "needle", mode: "summary" as const }]) {
      const result = await service.run(request, ctx());
      assert.equal(result.data.totalMatches, 8, "ripgrep's rules decide: node_modules is searched");
      assert.deepEqual(result.data.vendoredFolder, {
        folder: "node_modules",
        path: "node_modules",
        matches: 6,
        exclude: ["node_modules"],
      });
      // Up front: right under the first line, before the matches or files.
      assert.equal(
        result.text.split("\n")[1],
        'Most matching lines (6 of 8) are in node_modules/, where installed or generated code usually lives; no ignore file left it out. To search without it, call code_search again with the same arguments and "exclude": ["node_modules"].',
      );
    }
    // What it advises works: the same search with that exclude sees only the project's own code.
    const own = await service.run({ pattern: "needle", exclude: ["node_modules"] }, ctx());
    assert.equal(own.data.totalMatches, 2);
    assert.equal(own.data.vendoredFolder, undefined);
    assert.doesNotMatch(own.text, /installed or generated/);
    // An ignore file that leaves it out leaves nothing to say.
    const ignored = await tree({
      ...filesUnder("node_modules/lib", 6),
      ...filesUnder("src", 2),
      ".ignore": "node_modules/\n",
    });
    const plain = await makeService(ignored).run({ pattern: "needle" }, ctx());
    assert.equal(plain.data.totalMatches, 2);
    assert.equal(plain.data.vendoredFolder, undefined);
  });

  it("a minority in such a folder, or a search of the folder itself, draws no note", async () => {
    const root = await tree({ ...filesUnder("vendor/pkg", 2), ...filesUnder("src", 3) });
    const service = makeService(root);
    const mixed = await service.run({ pattern: "needle" }, ctx());
    assert.equal(mixed.data.vendoredFolder, undefined);
    const aimed = await service.run({ pattern: "needle", path: "vendor" }, ctx());
    assert.equal(aimed.data.totalMatches, 2);
    assert.equal(aimed.data.vendoredFolder, undefined);
    assert.doesNotMatch(aimed.text, /installed or generated/);
  });

  it("structure and anyOf searches say it too, in their own units", async () => {
    const root = await tree({
      ...filesUnder("dist", 4, "needle"),
      "src/a.ts": 'export const a = "needle";\n',
    });
    const service = makeService(root);
    const structure = await service.run({ structure: "module.exports = $A" }, ctx());
    assert.equal(structure.data.vendoredFolder?.folder, "dist");
    assert.match(structure.text, /Most matches \(4 of 4\) are in dist\//);
    const anyOf = await service.run({ anyOf: ["needle", "exports"], exclude: ["*.md"] }, ctx());
    assert.deepEqual(anyOf.data.vendoredFolder, {
      folder: "dist",
      path: "dist",
      matches: 8,
      exclude: ["*.md", "dist"],
    });
    assert.match(anyOf.text, /Most occurrences \(8 of 9\) are in dist\/.*"exclude": \["\*\.md","dist"\]/);
    // impact scans the symbol's repository: a committed vendor copy dominates it the same way.
    const vendoredRepo = await repo({
      "src/parse.ts": "export function parse() {}\nparse();\n",
      "vendor/copy/a.ts": "parse();\nparse();\n",
      "vendor/copy/b.ts": "parse();\nparse();\n",
    });
    const impact = await makeService(vendoredRepo).run(
      { impact: true, path: "src/parse.ts", symbol: "parse" },
      ctx(),
    );
    assert.equal(impact.data.vendoredFolder?.path, "vendor");
    assert.equal(impact.data.vendoredFolder?.matches, 4);
    assert.match(impact.text, /Most occurrences \(4 of 6\) are in vendor\//);
  });
});
