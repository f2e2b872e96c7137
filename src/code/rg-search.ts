/**
 * One content search: ripgrep `--json` as an owned process, its events parsed as they stream,
 * and retention bounds applied while reading. Reaching a bound stops ripgrep and marks the run
 * partial; it is never an error and never silent. ripgrep's own failures become stable codes
 * here: a rejected pattern or glob is `invalid_arguments` carrying ripgrep's explanation.
 */
import { EvidentError } from "../core/errors.js";
import { SNAPSHOT_MAX_BYTES, SNAPSHOT_MAX_MATCHES, SNAPSHOT_MAX_OCCURRENCES } from "../core/limits.js";
import { runOwnedProcess } from "./owned-process.js";
import type { SearchQuery } from "./request.js";
import { buildSearchArgs, type RgTarget } from "./rg-args.js";
import { type ParsedMatch, ProtocolLineTooLong, RgJsonParser } from "./rg-json.js";

export type PartialReason = "max_matches" | "max_occurrences" | "max_bytes" | "protocol_line_limit";

export interface RetentionBounds {
  readonly maxMatches: number;
  readonly maxOccurrences: number;
  readonly maxBytes: number;
}

export const DEFAULT_RETENTION: RetentionBounds = {
  maxMatches: SNAPSHOT_MAX_MATCHES,
  maxOccurrences: SNAPSHOT_MAX_OCCURRENCES,
  maxBytes: SNAPSHOT_MAX_BYTES,
};

export interface SearchRun {
  readonly matches: ParsedMatch[];
  readonly occurrences: number;
  /** Estimated retained memory. */
  readonly bytes: number;
  readonly partialReason: PartialReason | undefined;
  /** ripgrep completed but reported errors for some files (unreadable files, for instance). */
  readonly searchErrors: number;
}

export interface ContentSearchOptions {
  readonly rgPath: string;
  readonly query: SearchQuery;
  readonly target: RgTarget;
  readonly signal?: AbortSignal;
  readonly retention?: RetentionBounds;
  readonly onSpawn?: (pid: number) => void;
  /** Called as matches arrive (progress reporting). */
  readonly onMatches?: (count: number) => void;
}

/** Approximate heap cost of one retained match, used for the byte bound. */
export function matchCost(match: ParsedMatch): number {
  return 64 + 2 * (match.text.length + match.path.length) + 32 * match.occurrences.length;
}

export async function runContentSearch(options: ContentSearchOptions): Promise<SearchRun> {
  const bounds = options.retention ?? DEFAULT_RETENTION;
  const matches: ParsedMatch[] = [];
  let occurrences = 0;
  let bytes = 0;
  let partialReason: PartialReason | undefined;
  const parser = new RgJsonParser((match) => {
    if (partialReason !== undefined) return;
    const cost = matchCost(match);
    if (matches.length + 1 > bounds.maxMatches) partialReason = "max_matches";
    else if (occurrences + match.occurrences.length > bounds.maxOccurrences)
      partialReason = "max_occurrences";
    else if (bytes + cost > bounds.maxBytes) partialReason = "max_bytes";
    if (partialReason !== undefined) return;
    matches.push(match);
    occurrences += match.occurrences.length;
    bytes += cost;
  });
  const outcome = await runOwnedProcess(
    {
      command: options.rgPath,
      args: buildSearchArgs(options.query, options.target),
      cwd: options.target.cwd,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.onSpawn === undefined ? {} : { onSpawn: options.onSpawn }),
    },
    async (stdout) => {
      try {
        for await (const chunk of stdout) {
          parser.push(chunk);
          options.onMatches?.(matches.length);
          if (partialReason !== undefined) return "stop";
        }
        parser.end();
      } catch (error) {
        if (!(error instanceof ProtocolLineTooLong)) throw error;
        partialReason = "protocol_line_limit";
        return "stop";
      }
      return "done";
    },
  );
  if (outcome.stopped) return { matches, occurrences, bytes, partialReason, searchErrors: 0 };
  if (outcome.exitCode === 0 || outcome.exitCode === 1) {
    return { matches, occurrences, bytes, partialReason, searchErrors: 0 };
  }
  const stderr = outcome.stderr.trim();
  if (outcome.exitCode === 2 && parser.summary !== undefined) {
    // ripgrep finished but could not read some files; the matches it found are real.
    const errors = stderr === "" ? 1 : stderr.split("\n").filter((l) => l.startsWith("rg: ")).length || 1;
    return { matches, occurrences, bytes, partialReason, searchErrors: errors };
  }
  throw describeFailure(stderr, outcome.exitCode, outcome.exitSignal);
}

function describeFailure(stderr: string, code: number | null, signal: NodeJS.Signals | null): EvidentError {
  const explanation = stderr.replace(/^rg: /gm, "").slice(0, 2_000);
  if (
    /regex parse error|error parsing regex|regex could not be compiled|PCRE2|literal .* not allowed/i.test(
      stderr,
    )
  ) {
    const hint = /not allowed in a regex/.test(stderr)
      ? "matches are found within single lines, so a pattern cannot match a line break"
      : "use literal=true to search the exact text";
    return new EvidentError(
      "invalid_arguments",
      `Invalid arguments: pattern: ripgrep rejected the regular expression (${hint}):\n${explanation}`,
      { details: { field: "pattern", issues: [{ field: "pattern", message: explanation }] } },
    );
  }
  if (/glob/i.test(stderr)) {
    return new EvidentError(
      "invalid_arguments",
      `Invalid arguments: glob: ripgrep rejected a glob:\n${explanation}`,
      {
        details: { field: "glob", issues: [{ field: "glob", message: explanation }] },
      },
    );
  }
  const first = explanation.split("\n")[0]?.slice(0, 300) ?? "";
  return new EvidentError(
    "internal_error",
    `ripgrep failed (${code === null ? `signal ${signal}` : `exit ${code}`})${first === "" ? "" : `: ${first}`}`,
  );
}
