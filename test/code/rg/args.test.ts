import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RgTarget } from "../../../src/code/path-policy.js";
import type { SearchQuery } from "../../../src/code/request.js";
import { buildFilesArgs, buildSearchArgs } from "../../../src/code/rg/args.js";

const base: SearchQuery = {
  pattern: "foo",
  literal: false,
  caseMode: "smart",
  wholeWord: false,
  hidden: true,
  globs: [],
  excludes: [],
};
const target: RgTarget = { cwd: "/p", root: ".", protectedGlobs: ["!.git"] };

describe("rg argument builder", () => {
  const cases: [string, Partial<SearchQuery>, string[]][] = [
    [
      "defaults",
      {},
      ["--json", "--no-config", "--smart-case", "--hidden", "--glob", "!.git", "--", "foo", "."],
    ],
    [
      "ignore case",
      { caseMode: "insensitive" },
      ["--json", "--no-config", "--ignore-case", "--hidden", "--glob", "!.git", "--", "foo", "."],
    ],
    [
      "case sensitive",
      { caseMode: "sensitive" },
      ["--json", "--no-config", "--case-sensitive", "--hidden", "--glob", "!.git", "--", "foo", "."],
    ],
    [
      "literal and word",
      { literal: true, wholeWord: true },
      [
        "--json",
        "--no-config",
        "--smart-case",
        "--fixed-strings",
        "--word-regexp",
        "--hidden",
        "--glob",
        "!.git",
        "--",
        "foo",
        ".",
      ],
    ],
    [
      "not hidden",
      { hidden: false },
      ["--json", "--no-config", "--smart-case", "--glob", "!.git", "--", "foo", "."],
    ],
    [
      "globs then excludes then protection",
      { globs: ["*.ts"], excludes: ["dist", "!build"] },
      [
        "--json",
        "--no-config",
        "--smart-case",
        "--hidden",
        "--glob",
        "*.ts",
        "--glob",
        "!dist",
        "--glob",
        "!build",
        "--glob",
        "!.git",
        "--",
        "foo",
        ".",
      ],
    ],
    [
      "a pattern that looks like a flag stays after --",
      { pattern: "--files" },
      ["--json", "--no-config", "--smart-case", "--hidden", "--glob", "!.git", "--", "--files", "."],
    ],
  ];
  for (const [name, query, expected] of cases) {
    it(`search: ${name}`, () => {
      assert.deepEqual(buildSearchArgs({ ...base, ...query }, target), expected);
    });
  }

  it("enumeration shares the file scope and frames names with NUL", () => {
    assert.deepEqual(
      buildFilesArgs({ ...base, hidden: false, globs: ["*.ts"] }, { ...target, root: "-src" }),
      ["--files", "--null", "--no-config", "--glob", "*.ts", "--glob", "!.git", "--", "-src"],
    );
  });
});
