/**
 * A result's byte bound counts what its snapshot keeps, the compact records (rg/compact.ts), not
 * ripgrep's events, which repeat the path and the protocol's names on every line. A search whose
 * records fit is complete even where its events would not have; one whose records do not fit is
 * cut, and says so (G04).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, describe, it } from "node:test";
import { SNAPSHOT_FILE_OVERHEAD_BYTES, SNAPSHOT_MATCH_OVERHEAD_BYTES } from "../../../src/core/limits.js";
import { RG, treesRemovedAfter } from "../helpers.js";
import { ctx, makeService } from "../service-helpers.js";

const tree = treesRemovedAfter(after);

const FILES = 12;
const LINES = 40;

/** Files under a long directory path (repeated in every event), each line a match. */
function corpus(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let f = 0; f < FILES; f++) {
    const lines = Array.from({ length: LINES }, (_, i) => `needle ${f}-${i} ${"x".repeat(40)}\n`);
    files[`a/rather/long/directory/path/for/every/event/file-${f}.txt`] = lines.join("");
  }
  return files;
}

/**
 * What the bound counted before, from ripgrep's own output: each match event's bytes and
 * offsets, each file's overhead; and the matching lines' text alone (less than any record).
 */
function eventCost(root: string): { events: number; text: number } {
  const out = spawnSync(RG, ["--json", "--no-config", "needle", "."], { cwd: root, encoding: "utf8" });
  assert.equal(out.status, 0, out.stderr);
  let events = 0;
  let text = 0;
  for (const line of out.stdout.split("\n")) {
    if (!line.startsWith('{"type":"match"')) continue;
    events += Buffer.byteLength(line) + SNAPSHOT_MATCH_OVERHEAD_BYTES;
    text += Buffer.byteLength((JSON.parse(line) as { data: { lines: { text: string } } }).data.lines.text);
  }
  for (const line of out.stdout.split("\n")) {
    if (!line.startsWith('{"type":"begin"')) continue;
    const path = (JSON.parse(line) as { data: { path: { text: string } } }).data.path.text;
    events += SNAPSHOT_FILE_OVERHEAD_BYTES + 2 * path.length;
  }
  return { events, text };
}

async function search(root: string, maxBytes: number) {
  const s = makeService(root, { retention: { maxMatches: 1_000_000, maxOccurrences: 1_000_000, maxBytes } });
  try {
    return await s.run({ pattern: "needle", mode: "summary" }, ctx());
  } finally {
    await s.close();
  }
}

describe("the retention bound in kept bytes", () => {
  it("G04: a search whose records fit is complete, though its events would pass the bound", async () => {
    const root = await tree(corpus());
    const { events } = eventCost(root);
    const result = await search(root, events - 1);
    assert.equal(result.data.status, "complete");
    assert.equal(result.data.totalMatches, FILES * LINES);
    assert.equal(result.data.partialReason, undefined);
  });

  it("G04: a search whose records pass the bound is still cut, and says so", async () => {
    const root = await tree(corpus());
    const { text } = eventCost(root);
    const result = await search(root, Math.floor(text / 2));
    assert.equal(result.data.status, "partial");
    assert.equal(result.data.partialReason, "max_bytes");
    assert.ok((result.data.totalMatches ?? 0) < FILES * LINES);
    assert.ok((result.data.totalMatches ?? 0) > 0);
    assert.match(result.text, /retained text/);
  });
});
