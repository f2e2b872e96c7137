/**
 * ripgrep `--json` output for given matches, written the way ripgrep writes it (begin, match
 * events, end with per-file statistics), and the search run the indexer makes of it. Tests that
 * need a run build it through the real indexer rather than assemble its internals.
 */

import {
  DEFAULT_RETENTION,
  type RetentionBounds,
  type SearchRun,
} from "../../../src/code/rg/content-search.js";
import { RgOutputIndexer } from "../../../src/code/rg/event-index.js";
import type { ParsedMatch } from "../../../src/code/rg/events.js";

export function rgOutput(matches: readonly ParsedMatch[]): string {
  const lines: string[] = [];
  for (let i = 0; i < matches.length; ) {
    const path = (matches[i] as ParsedMatch).path;
    let end = i;
    while (end < matches.length && (matches[end] as ParsedMatch).path === path) end++;
    const group = matches.slice(i, end);
    lines.push(JSON.stringify({ type: "begin", data: { path: { text: path } } }));
    for (const m of group) {
      lines.push(
        JSON.stringify({
          type: "match",
          data: {
            path: { text: m.path },
            lines: { text: `${m.text}\n` },
            line_number: m.line,
            absolute_offset: m.absoluteOffset,
            submatches: m.occurrences.map((o) => ({
              match: { text: m.text.slice(o.startColumn, o.endColumn) },
              start: o.startByte,
              end: o.endByte,
            })),
          },
        }),
      );
    }
    const occurrences = group.reduce((n, m) => n + m.occurrences.length, 0);
    lines.push(
      JSON.stringify({
        type: "end",
        data: {
          path: { text: path },
          binary_offset: null,
          stats: {
            elapsed: { secs: 0, nanos: 1, human: "0s" },
            searches: 1,
            searches_with_match: 1,
            bytes_searched: 1,
            bytes_printed: 1,
            matched_lines: group.length,
            matches: occurrences,
          },
        },
      }),
    );
    i = end;
  }
  return lines.map((l) => `${l}\n`).join("");
}

export function indexRun(
  matches: readonly ParsedMatch[],
  bounds: RetentionBounds = DEFAULT_RETENTION,
): SearchRun {
  const indexer = new RgOutputIndexer(bounds);
  if (!indexer.push(Buffer.from(rgOutput(matches)))) indexer.end();
  const out = indexer.finish();
  return { ...out, searchErrors: 0 };
}

/** The bytes of the match events in ripgrep's output `output` alone (its other events and line feeds left out). */
export function eventBytes(output: string | Buffer): number {
  return output
    .toString()
    .split("\n")
    .filter((line) => line.startsWith('{"type":"match"'))
    .reduce((bytes, line) => bytes + Buffer.byteLength(line), 0);
}
