/**
 * Likely test files for a source file, by naming convention: candidates, never a claim that
 * they test it (no test is run, no coverage is evaluated). A test file's subject is its name
 * without the test marks (`parse.test.ts`, `parse.spec.tsx`, `__tests__/parse.ts`, `test_parse.py`,
 * `parse_test.go` all name `parse`); candidates whose subject is the source's name come first,
 * the nearest (most path components shared with the source) before the others.
 */
import { basename, dirname, extname } from "node:path";
import { displayPath } from "../snapshots/sequence.js";

/** Directory names that hold tests. */
const TEST_DIRECTORIES = new Set(["__tests__", "__test__", "test", "tests", "spec", "specs", "__specs__"]);

/** Whether a path looks like a test file (by its name or a test directory on its path). */
export function isTestPath(path: string): boolean {
  const name = basename(path);
  if (
    /[._-](test|spec)s?\.[A-Za-z0-9]+$/i.test(name) ||
    /^test_.+\.py$/.test(name) ||
    /_test\.[A-Za-z0-9]+$/.test(name)
  ) {
    return true;
  }
  return path
    .split(/[\\/]/)
    .slice(0, -1)
    .some((part) => TEST_DIRECTORIES.has(part));
}

/** The name a test file is about: its stem without test marks. */
export function testSubject(path: string): string {
  let stem = basename(path, extname(path));
  // `x.d.ts`-like double extensions and the marks themselves.
  stem = stem
    .replace(/[._-](test|spec)s?$/i, "")
    .replace(/^test_/, "")
    .replace(/_test$/, "");
  return stem.replace(/\.d$/, "");
}

/** A source file's own name, as test files spell it. */
export function sourceSubject(path: string): string {
  const stem = basename(path, extname(path)).replace(/\.d$/, "");
  // An index file is known by its directory's name.
  return stem === "index" ? basename(dirname(path)) : stem;
}

export interface TestCandidate {
  readonly path: string;
  readonly why: string;
}

/** Test files among `files` (paths relative to one root) whose subject is the source's name. */
export function namedTests(source: string, files: readonly string[]): TestCandidate[] {
  const subject = sourceSubject(source).toLowerCase();
  const stem = basename(source, extname(source)).toLowerCase();
  const sourceParts = dirname(source).split(/[\\/]/);
  const shared = (path: string) => {
    const parts = dirname(path).split(/[\\/]/);
    let n = 0;
    while (n < parts.length && n < sourceParts.length && parts[n] === sourceParts[n]) n++;
    return n;
  };
  return files
    .filter((path) => path !== source && isTestPath(path))
    .filter((path) => {
      const s = testSubject(path).toLowerCase();
      return s === subject || s === stem;
    })
    .map((path) => ({ path, shared: shared(path) }))
    .sort((a, b) => b.shared - a.shared || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map(({ path }) => ({ path, why: "named after it" }));
}

/**
 * `namedTests` over paths as a scan prints them (relative to ripgrep's directory, or absolute):
 * matched by their displayed form, each candidate given back as its scan path.
 */
export function namedTestsAmong(own: string, scanned: readonly string[]): TestCandidate[] {
  const byDisplay = new Map(scanned.map((f) => [displayPath(f), f]));
  return namedTests(displayPath(own), [...byDisplay.keys()]).map((candidate) => ({
    path: byDisplay.get(candidate.path) as string,
    why: candidate.why,
  }));
}
