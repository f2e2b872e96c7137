/**
 * docs/ARCHITECTURE.md describes the design as it is, in at most 300 lines, and docs/DECISIONS.md
 * records why; neither may drift from the code silently. Every repository path they name
 * (src/..., test/..., docs/..., bench/..., scripts/..., skills/...) exists, every module or
 * folder they name by a shorter path (`shape.ts`, `code/service.ts`, `revisions/`) is one of the
 * repository's (or one the build makes), and every relative link opens a file.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { SYNTAX_CACHE_MAX_BYTES, SYNTAX_CACHE_MAX_ENTRIES } from "../../src/core/limits.js";

const ROOT = resolve(import.meta.dirname, "../..");
const ARCHITECTURE_MAX_LINES = 300;
const DOCUMENTS = ["docs/ARCHITECTURE.md", "docs/DECISIONS.md"];
const TOP_FOLDERS = ["src", "test", "docs", "bench", "scripts", "skills"];

/** Every file and folder under the top folders, relative to the repository, with `/` after a folder. */
function repositoryEntries(): string[] {
  const entries: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      const name = relative(ROOT, path);
      if (entry.isDirectory()) {
        entries.push(`${name}/`);
        walk(path);
      } else entries.push(name);
    }
  };
  for (const top of TOP_FOLDERS) {
    if (!existsSync(join(ROOT, top))) continue;
    entries.push(`${top}/`);
    walk(join(ROOT, top));
  }
  return entries;
}

/** A path with `*` segments as a pattern over whole segments. */
function pattern(path: string): RegExp {
  const escaped = path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replaceAll("*", "[^/]+");
  return new RegExp(`^${escaped}/?$`);
}

/** Paths from the repository's root (`src/web/router.ts`, `bench/*\/RESULTS.md`, `test/fuzz/`). */
function repositoryPaths(text: string): string[] {
  const found = text.matchAll(new RegExp(`(?<![\\w./-])(?:${TOP_FOLDERS.join("|")})/[\\w.*/-]*`, "g"));
  return [...new Set([...found].map(([path]) => path.replace(/[.,;:]+$/, "")))];
}

/**
 * Shorter names in backquotes: a module (`shape.ts`, `code/service.ts`) or a folder (`revisions/`)
 * that must be the end of some repository path.
 */
function shortNames(text: string): string[] {
  const found = text.matchAll(/`((?:[\w-]+\/)*[\w.-]+\.(?:ts|mjs|md)|(?:[\w-]+\/)+)`/g);
  return [...new Set([...found].map(([, name]) => name as string))].filter(
    (name) => !TOP_FOLDERS.some((top) => name.startsWith(`${top}/`)),
  );
}

/** Relative Markdown link targets (`[DECISIONS.md](DECISIONS.md)`), without their anchors. */
function relativeLinks(text: string): string[] {
  const found = text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g);
  return [...found].map(([, target]) => target as string).filter((target) => !/^[a-z]+:/.test(target));
}

/** What a document names that the repository does not hold. */
function missingIn(document: string, text: string, entries: readonly string[]): string[] {
  const missing: string[] = [];
  for (const path of repositoryPaths(text)) {
    const wanted = pattern(path.replace(/\/$/, ""));
    if (!entries.some((entry) => wanted.test(entry))) missing.push(path);
  }
  for (const name of shortNames(text)) {
    const known = entries.some((entry) => entry === name || entry.endsWith(`/${name}`));
    // Also what the build makes at the top (`dist/`, `build/`).
    if (!known && !existsSync(resolve(ROOT, name))) missing.push(name);
  }
  for (const target of relativeLinks(text)) {
    if (!existsSync(resolve(ROOT, dirname(document), target))) missing.push(target);
  }
  return missing;
}

describe("the architecture documents", () => {
  const entries = repositoryEntries();

  it("ARCHITECTURE.md states the syntax cache's bounds as limits.ts sets them", () => {
    const text = readFileSync(join(ROOT, "docs/ARCHITECTURE.md"), "utf8").replace(/\s+/g, " ");
    const entries = SYNTAX_CACHE_MAX_ENTRIES.toLocaleString("en-US");
    const mib = SYNTAX_CACHE_MAX_BYTES / (1024 * 1024);
    assert.match(text, new RegExp(`at most ${entries} entries and ${mib} MiB of estimated facts`));
  });

  it("ARCHITECTURE.md describes the design in at most 300 lines", () => {
    const lines = readFileSync(join(ROOT, "docs/ARCHITECTURE.md"), "utf8").split("\n");
    if (lines.at(-1) === "") lines.pop();
    assert.ok(
      lines.length <= ARCHITECTURE_MAX_LINES,
      `docs/ARCHITECTURE.md has ${lines.length} lines; decisions go to docs/DECISIONS.md`,
    );
  });

  for (const document of DOCUMENTS) {
    it(`every path, module and link ${document} names exists`, () => {
      const text = readFileSync(join(ROOT, document), "utf8");
      assert.deepEqual(missingIn(document, text, entries), []);
    });
  }

  it("the check finds a path, a module or a link that is not there", () => {
    const text = [
      "`src/web/router.ts` and bench/*/RESULTS.md are there; src/web/nowhere.ts is not,",
      "nor bench/*/MISSING.md, nor `gone-module.ts`, nor `nowhere/`, nor [a link](NOWHERE.md).",
    ].join("\n");
    assert.deepEqual(missingIn("docs/ARCHITECTURE.md", text, entries), [
      "src/web/nowhere.ts",
      "bench/*/MISSING.md",
      "gone-module.ts",
      "nowhere/",
      "NOWHERE.md",
    ]);
  });
});
