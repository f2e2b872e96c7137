/**
 * The CLI's commands and how their positionals, short flags and value forms map onto tool
 * schemas. Everything else about a flag comes from the tool's schema; command names and short
 * flags come from core/phrasing.ts, which words the tools' advice for the CLI with them.
 */
import { SNAPSHOT_TTL_MS, WEB_PAGES_TTL_MS } from "../../core/limits.js";
import { CLI_INSPECT_COMMAND, CLI_TOOL_COMMANDS } from "../../core/phrasing.js";
import type { CommandSpec } from "./flags.js";

export const TOOL_COMMANDS: Readonly<
  Record<string, CommandSpec & { summary: string; usage: string; note?: string }>
> = {
  [CLI_TOOL_COMMANDS.web_search.command]: {
    tool: "web_search",
    positionals: ["query"],
    aliases: CLI_TOOL_COMMANDS.web_search.aliases,
    placeholders: { query: "QUERY", providers: "ID", intent: "NAME" },
    summary: "Search the web through the configured providers (keyless default: duckduckgo).",
    usage:
      "evident search QUERY [--provider ID]... [--max-results N] [--time-range day|week|month|year] [--intent NAME]",
  },
  [CLI_TOOL_COMMANDS.web_read.command]: {
    tool: "web_read",
    positionals: ["url"],
    aliases: CLI_TOOL_COMMANDS.web_read.aliases,
    placeholders: { url: "URL", cursor: "C", reader: "ID", focus: "TEXT" },
    summary: "Read one web page as Markdown through the read route (keyless default: direct).",
    usage: "evident read URL [--reader ID] [--focus TEXT] | evident read --cursor C",
    note:
      `A long page ends with a cursor; \`evident read --cursor C\` prints its next part in later runs too, for ${WEB_PAGES_TTL_MS / 60_000}\n` +
      "minutes after its last use, without fetching the page again (parts are kept in a private cache\n" +
      "directory: $EVIDENT_CACHE_DIR/pages, else $XDG_CACHE_HOME/evident/pages, else ~/.cache/evident/pages).",
  },
  [CLI_TOOL_COMMANDS.code_search.command]: {
    tool: "code_search",
    positionals: grepPositionals,
    shape: impactPlace,
    aliases: CLI_TOOL_COMMANDS.code_search.aliases,
    placeholders: {
      pattern: "PATTERN",
      path: "PATH",
      paths: "FILE",
      glob: "GLOB",
      exclude: "GLOB",
      cursor: "C",
      sourceCursor: "C",
      anyOf: "TEXT",
      changes: "worktree|staged|BASE..TARGET",
      symbol: "NAME",
      structure: "PATTERN",
      targets: "PATH:LINE",
    },
    values: { targets: place },
    summary: "Search the codebase with ripgrep; bounded, paginated evidence with cursors.",
    usage:
      "evident grep PATTERN [PATH] [-i] [-w] [-F] [-C N] [-g GLOB]... [--mode auto|summary|matches] [--cursor C]\n" +
      "       evident grep --any-of TEXT --any-of TEXT ... [PATH]   (exact texts, each occurrence attributed)\n" +
      "       evident grep PATTERN --changes worktree|staged|BASE..TARGET [--change-scope lines|files] [--change-side new|old]\n" +
      "       evident grep --structure 'console.log($A)' [PATH] [-g GLOB]...\n" +
      "       evident grep --cursor C --inspect N   (or --match-indices N ...)\n" +
      "       evident grep --impact PATH:LINE   (or --impact PATH --symbol NAME: every same-spelling use, then tests)\n" +
      "       evident grep --navigate imports|tests PATH",
    note:
      `A cursor works in later runs too (\`evident grep --cursor C [--paths FILE]...\`) for ${SNAPSHOT_TTL_MS / 60_000} minutes after its\n` +
      "last use: results are kept in a private cache directory ($EVIDENT_CACHE_DIR/snapshots, else\n" +
      "$XDG_CACHE_HOME/evident/snapshots, else ~/.cache/evident/snapshots).",
  },
  [CLI_INSPECT_COMMAND]: {
    tool: "code_search",
    positionals: [],
    aliases: {},
    options: ["line", "symbol", "sourceCursor", "redact"],
    placeholders: { line: "N", symbol: "NAME", sourceCursor: "C" },
    shape: inspectTargets,
    summary: "Show whole symbols (function, method, class...) around file lines, or by name.",
    usage:
      "evident inspect PATH:LINE [PATH:LINE ...]   (up to 5)\n" +
      "       evident inspect PATH --symbol NAME\n" +
      "       evident inspect --source-cursor C        (the rest of an answer that did not fit)",
    note: "After a search, `evident grep --cursor C --inspect N` inspects match [N] of that result.",
  },
};

const INSPECT_NEEDS = "evident inspect needs PATH:LINE, PATH --symbol NAME, or --source-cursor C.";

/**
 * `a.ts:12` is a path and a line; anything else is a path, which one lone path may complete with
 * --line or --symbol. Without them the tool would read a search without a pattern.
 */
function inspectTargets(args: Record<string, unknown>, tokens: readonly string[]) {
  const given = ["line", "symbol", "sourceCursor", "targets"].some((k) => args[k] !== undefined);
  if (tokens.length === 0) return { args, extra: tokens, problem: given ? undefined : INSPECT_NEEDS };
  const targets = tokens.map(place);
  const [only] = targets;
  if (targets.length === 1) return { args: { ...args, ...only }, extra: [], problem: lineless(only, given) };
  return {
    args: { ...args, targets },
    extra: [],
    problem: lineless(targets.find((t) => t.line === undefined)),
  };
}

function lineless(target: { path: string; line?: number } | undefined, completed = false) {
  if (target === undefined || target.line !== undefined || completed) return undefined;
  return `${JSON.stringify(target.path)} has no line: ${INSPECT_NEEDS}`;
}

/**
 * Where no pattern is wanted (--structure is the pattern; --cursor, --any-of, --impact and
 * --navigate take none), a lone positional is the path. An explicit --pattern stays what it says,
 * so the tool refuses it beside them as it does over MCP.
 */
function grepPositionals(flags: Readonly<Record<string, unknown>>): readonly string[] {
  const pathOnly = ["structure", "cursor", "anyOf", "impact", "navigate"].some((k) => flags[k] !== undefined);
  return pathOnly ? ["path"] : ["pattern", "path"];
}

/** For --impact, `PATH:LINE` is both the path and the line. */
function impactPlace(args: Record<string, unknown>, extra: readonly string[]) {
  if (args.impact === undefined || typeof args.path !== "string") return { args, extra };
  if (args.line !== undefined || args.symbol !== undefined) return { args, extra };
  const target = place(args.path);
  return { args: { ...args, ...target }, extra };
}

/** `a.ts:12` is a path and a line; anything else is a path. */
function place(token: string): { path: string; line?: number } {
  const match = /^(.+):(\d+)$/.exec(token);
  return match === null ? { path: token } : { path: match[1] as string, line: Number(match[2]) };
}
