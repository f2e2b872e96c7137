/**
 * One content search: ripgrep `--json` as an owned process, its events indexed as they stream
 * (`event-index.ts`), and retention bounds applied while reading. Reaching a bound stops ripgrep and marks the run
 * partial; it is never an error and never silent. ripgrep's own failures become stable codes
 * here: a rejected pattern or glob is `invalid_arguments` carrying ripgrep's explanation.
 */

import type { Readable } from "node:stream";
import { EvidentError } from "../../core/errors.js";
import {
  RG_REASON_MAX_CHARS,
  SNAPSHOT_MAX_BYTES,
  SNAPSHOT_MAX_MATCHES,
  SNAPSHOT_MAX_OCCURRENCES,
} from "../../core/limits.js";
import { type Phrasing, phrasingFor } from "../../core/phrasing.js";
import type { Slots } from "../../core/slots.js";
import { protectedDescendant, type RgTarget } from "../path-policy.js";
import { type ConsumeResult, type OwnedProcessOutcome, runOwnedProcess } from "../process/owned-process.js";
import { invalid, type SearchQuery } from "../request.js";
import { buildSearchArgs } from "./args.js";
import type { CompactMatchTable, CompactRecorder } from "./compact.js";
import { type IndexedRun, type PartialReason, type RetentionBounds, RgOutputIndexer } from "./event-index.js";
import type { RawMatchTable } from "./match-table.js";

export type { IndexedRun, PartialReason, RetentionBounds } from "./event-index.js";

export const DEFAULT_RETENTION: RetentionBounds = {
  maxMatches: SNAPSHOT_MAX_MATCHES,
  maxOccurrences: SNAPSHOT_MAX_OCCURRENCES,
  maxBytes: SNAPSHOT_MAX_BYTES,
};

export interface SearchRun {
  /**
   * The retained matches in ripgrep's order, `runs` grouping them by file: their records while
   * records are made (the events' read chunks are let go of), else their events.
   */
  readonly table: RawMatchTable | CompactMatchTable;
  readonly runs: readonly IndexedRun[];
  readonly occurrences: number;
  /** Estimated retained memory. */
  readonly bytes: number;
  readonly partialReason: PartialReason | undefined;
  /** The file holding the line over the protocol cap, as ripgrep printed it (`protocol_line_limit`). */
  readonly longLineKey?: string | undefined;
  /** ripgrep completed but reported errors for some files (unreadable files, for instance). */
  readonly searchErrors: number;
  /** The retained events as compact records, in stream order (see rg/compact.ts). */
  readonly records?: CompactRecorder | undefined;
}

export interface ContentSearchOptions {
  readonly rgPath: string;
  /** ripgrep's whole environment: what the caller handed down (config/ settings' childEnvironment). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly query: SearchQuery;
  readonly target: RgTarget;
  readonly signal?: AbortSignal;
  readonly retention?: RetentionBounds;
  readonly onSpawn?: (pid: number) => void;
  /** Bounds the ripgreps running at once: ripgrep waits for one of these before it starts. */
  readonly slots?: Slots | undefined;
  /** Called as matches arrive (progress reporting). */
  readonly onMatches?: (count: number) => void;
  /** Told each file whose matches were retained, once ripgrep has reported it done. */
  readonly onFile?: (key: string) => void;
  /** Cut compact records for a snapshot as events arrive (default true; see event-index.ts). */
  readonly records?: boolean;
  /** How a refusal's advice is written for the surface (default: MCP's). */
  readonly phrasing?: Phrasing;
}

export async function runContentSearch(options: ContentSearchOptions): Promise<SearchRun> {
  const { signal } = options;
  const indexer = new RgOutputIndexer(options.retention ?? DEFAULT_RETENTION, {
    exclude: protectedDescendant(options.target),
    ...(options.onFile === undefined ? {} : { onRun: options.onFile }),
    ...(options.records === undefined ? {} : { records: options.records }),
  });
  const outcome = await runOwnedProcess(
    {
      command: options.rgPath,
      args: buildSearchArgs(options.query, options.target),
      cwd: options.target.cwd,
      env: options.env,
      ...(signal === undefined ? {} : { signal }),
      ...(options.slots === undefined ? {} : { slots: options.slots }),
      ...(options.onSpawn === undefined ? {} : { onSpawn: options.onSpawn }),
    },
    (stdout) => readStream(stdout, indexer, options.onMatches),
  );
  const result = interpret(outcome, indexer, options.phrasing);
  if (result instanceof EvidentError) throw result;
  return result;
}

/** The run's retained matches, or the error its exit status and stderr say. */
function interpret(
  outcome: OwnedProcessOutcome,
  indexer: RgOutputIndexer,
  phrasing = phrasingFor("mcp"),
): SearchRun | EvidentError {
  const indexed = indexer.finish();
  const run = (searchErrors: number): SearchRun => ({
    table: indexed.table,
    runs: indexed.runs,
    occurrences: indexed.occurrences,
    bytes: indexed.bytes,
    partialReason: indexed.partialReason,
    longLineKey: indexed.longLineKey,
    searchErrors,
    records: indexed.records,
  });
  if (outcome.stopped) return run(0);
  if (outcome.exitCode === 0 || outcome.exitCode === 1) return run(0);
  const stderr = outcome.stderr.trim();
  if (outcome.exitCode === 2 && indexer.summary !== undefined) {
    // ripgrep finished but could not read some files; the matches it found are real.
    const errors = stderr === "" ? 1 : stderr.split("\n").filter((l) => l.startsWith("rg: ")).length || 1;
    return run(errors);
  }
  return describeFailure(stderr, outcome.exitCode, outcome.exitSignal, phrasing);
}

/**
 * Feeds the indexer from 'data' events. Async iteration would read the stream with `read()`,
 * which joins whatever chunks are buffered into a new buffer: a copy of the output that the
 * index, which keeps ripgrep's chunks as they are, does not need.
 */
function readStream(
  stdout: Readable,
  indexer: RgOutputIndexer,
  onMatches: ((count: number) => void) | undefined,
): Promise<ConsumeResult> {
  return new Promise((resolve, reject) => {
    const detach = () => {
      stdout.off("data", onData);
      stdout.off("end", onEnd);
      stdout.off("error", onError);
      stdout.off("close", onClose);
    };
    const finish = (result: ConsumeResult) => {
      detach();
      resolve(result);
    };
    const fail = (error: unknown) => {
      detach();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      try {
        const stop = indexer.push(chunk);
        onMatches?.(indexer.count);
        if (stop) finish("stop");
      } catch (error) {
        fail(error);
      }
    };
    const onEnd = () => {
      try {
        indexer.end();
        finish("done");
      } catch (error) {
        fail(error);
      }
    };
    const onError = (error: Error) => fail(error);
    // Destroyed before its end (cancellation): what was read is not the whole output.
    const onClose = () => fail(new Error("ripgrep's output closed before it ended"));
    // An empty output may already have ended (or the stream been let go) before this is called.
    if (stdout.readableEnded) {
      onEnd();
      return;
    }
    if (stdout.destroyed) {
      onClose();
      return;
    }
    stdout.on("data", onData);
    stdout.once("end", onEnd);
    stdout.once("error", onError);
    stdout.once("close", onClose);
  });
}

/**
 * ripgrep refusing its arguments exits 2 before searching (no summary): a pattern it cannot
 * compile or a glob it cannot parse. These are the caller's to fix, with ripgrep's reason.
 */
const PATTERN_REFUSAL =
  /regex parse error|error parsing regex|regex could not be compiled|PCRE2|literal .* not allowed|exceeds size limit|impossible to match/i;

function describeFailure(
  stderr: string,
  code: number | null,
  signal: NodeJS.Signals | null,
  phrasing: Phrasing,
): EvidentError {
  const reason = ripgrepReason(stderr);
  if (code === 2 && PATTERN_REFUSAL.test(stderr)) {
    return invalid(
      "pattern",
      `ripgrep rejected the regular expression (${patternHint(stderr, phrasing)}):\n${reason}`,
    );
  }
  if (code === 2 && /glob/i.test(stderr)) return invalid("glob", `ripgrep rejected a glob:\n${reason}`);
  const first = reason.split("\n")[0]?.slice(0, 300) ?? "";
  const status = code === null ? `signal ${signal}` : `exit ${code}`;
  // The status and ripgrep's first line also travel as the cause, for the operator's log.
  return new EvidentError("internal_error", `ripgrep failed (${status})${first === "" ? "" : `: ${first}`}`, {
    cause: new Error(`ripgrep ${status}${first === "" ? " with no message" : `: ${first}`}`),
  });
}

function patternHint(stderr: string, phrasing: Phrasing): string {
  const literal = phrasing.arg("code_search", "literal", true);
  if (/not allowed in a regex/.test(stderr))
    return "matches are found within single lines, so a pattern cannot match a line break";
  if (/impossible to match/.test(stderr)) return "binary files are skipped, so a NUL byte never matches";
  if (/exceeds size limit/.test(stderr))
    return `it compiles to more than ripgrep allows; use fewer or smaller repetitions, or ${literal}`;
  return `use ${literal} to search the exact text`;
}

/**
 * ripgrep's own explanation: its first paragraph without the `rg: ` prefix. Later paragraphs
 * suggest ripgrep flags (--text, --multiline) that a caller of this tool cannot pass.
 */
function ripgrepReason(stderr: string): string {
  const paragraph = stderr.trim().split(/\n\s*\n/)[0] ?? "";
  return paragraph.replace(/^rg: /gm, "").slice(0, RG_REASON_MAX_CHARS);
}
