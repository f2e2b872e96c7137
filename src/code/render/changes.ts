/**
 * How an answer states the Git comparison it was scoped to (code/changes/): which comparison,
 * which side, where the bytes came from, and every changed file it could not cover. Shared by
 * search answers and analysis answers.
 */
import { CHANGES_NOT_COVERED_LISTED } from "../../core/limits.js";
import type { CodeSearchOutput } from "../schema.js";
import type { ChangesSummary } from "../snapshots/analysis.js";
import { displayPath } from "../snapshots/sequence.js";
import { printablePath } from "./detail-page.js";

export function changesNote(changes: ChangesSummary): string {
  const scope = changes.scope === "lines" ? "occurrences wholly on changed lines" : "whole changed files";
  const source = changes.source === "objects" ? "read from Git objects" : "read from the working tree";
  let note =
    `Scoped to Git changes: ${changes.comparison}, ${changes.side} side (${source}), ${scope}; ` +
    `${changes.filesChanged} changed file${changes.filesChanged === 1 ? "" : "s"} in scope.`;
  if (changes.notCovered.length > 0) {
    const listed = changes.notCovered
      .slice(0, CHANGES_NOT_COVERED_LISTED)
      .map((f) => `${printablePath(displayPath(f.path))} (${f.reason})`)
      .join(", ");
    const more =
      changes.notCovered.length > CHANGES_NOT_COVERED_LISTED
        ? ` and ${changes.notCovered.length - CHANGES_NOT_COVERED_LISTED} more`
        : "";
    note += ` PARTIAL: not covered: ${listed}${more}.`;
  }
  return note;
}

export function changesData(changes: ChangesSummary): NonNullable<CodeSearchOutput["changes"]> {
  return {
    comparison: changes.comparison,
    side: changes.side,
    scope: changes.scope,
    source: changes.source,
    filesChanged: changes.filesChanged,
    notCovered: changes.notCovered.map((f) => ({ path: displayPath(f.path), reason: f.reason })),
  };
}
