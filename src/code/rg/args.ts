/**
 * ripgrep argument lists, built by pure functions so that every flag we pass is visible in a
 * table-driven test. The user's pattern always comes after `--`, so no pattern or path can be
 * read as a flag; `--no-config` keeps a user's RIPGREPRC from changing what we parse.
 */
import type { RgTarget } from "../path-policy.js";
import type { CaseMode, SearchQuery } from "../request.js";

const CASE_FLAG: Record<CaseMode, string> = {
  smart: "--smart-case",
  sensitive: "--case-sensitive",
  insensitive: "--ignore-case",
};

/** Flags that choose which files are searched; shared by enumeration and content search. */
export function fileScopeArgs(query: SearchQuery, target: RgTarget): string[] {
  const args: string[] = [];
  if (query.hidden) args.push("--hidden");
  if (target.noIgnore === true) args.push("--no-ignore");
  for (const glob of query.globs) args.push("--glob", glob);
  for (const exclude of query.excludes) args.push("--glob", `!${exclude.replace(/^!+/, "")}`);
  // Case-sensitive, for speed: what they let through (`.SSH`) is dropped from ripgrep's output
  // by `protectedDescendant` (path-policy.ts).
  for (const glob of target.protectedGlobs) args.push("--glob", glob);
  return args;
}

/** Content search: one JSON event per line on stdout. */
export function buildSearchArgs(query: SearchQuery, target: RgTarget): string[] {
  const args = ["--json", "--no-config", CASE_FLAG[query.caseMode]];
  if (query.literal) args.push("--fixed-strings");
  if (query.wholeWord) args.push("--word-regexp");
  args.push(...fileScopeArgs(query, target));
  args.push("--", query.pattern, target.root);
  return args;
}

/** Names-only enumeration of the same files, NUL-framed so names with newlines survive. */
export function buildFilesArgs(query: SearchQuery, target: RgTarget): string[] {
  return ["--files", "--null", "--no-config", ...fileScopeArgs(query, target), "--", target.root];
}
