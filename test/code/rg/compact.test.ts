import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import type { SearchRun } from "../../../src/code/rg/content-search.js";
import { RgOutputIndexer } from "../../../src/code/rg/event-index.js";
import type { ParsedMatch } from "../../../src/code/rg/events.js";
import { allMatches, isMatchTable } from "../../../src/code/rg/match-table.js";
import { buildSnapshot } from "../../../src/code/snapshots/build.js";
import { makeTree, RG } from "../helpers.js";
import { query, target } from "../snapshots/store.contract.js";
import { eventBytes, rgOutput } from "./rg-events.js";

/** ripgrep's own output, indexed as a search does, fed in `chunk`-byte reads. */
function indexed(output: Buffer, chunk = 1 << 16): SearchRun {
  const indexer = new RgOutputIndexer({ maxMatches: 100_000, maxOccurrences: 100_000, maxBytes: 1 << 30 });
  let stopped = false;
  for (let at = 0; at < output.length && !stopped; at += chunk)
    stopped = indexer.push(output.subarray(at, at + chunk));
  if (!stopped) indexer.end();
  return { ...indexer.finish(), searchErrors: 0 };
}

function rg(root: string, ...args: string[]): Buffer {
  const out = spawnSync(RG, ["--json", "--sort", "path", ...args, "."], { cwd: root });
  assert.equal(out.status, 0, out.stderr.toString());
  return out.stdout;
}

/** Each file's matches, decoded, by file. */
function byFile(matches: readonly ParsedMatch[]): Map<string, ParsedMatch[]> {
  const files = new Map<string, ParsedMatch[]>();
  for (const m of matches) files.set(m.path, [...(files.get(m.path) ?? []), m]);
  return files;
}

describe("compact match records", () => {
  let root = "";
  before(async () => {
    const filler = Array.from({ length: 300 }, (_, i) => `line ${i} ${"x".repeat(60)}`).join("\n");
    root = await makeTree({
      "a.ts": 'export function needle(input: string) {\n  return input.split("needle needle");\n}\n',
      "crlf.txt": "needle with crlf\r\nother\r\n",
      "quotes.txt": 'say "needle" \\ back\tslash \u0001 control\n',
      "unicode.txt": "héllo needle ünï 😀 needle\n",
      "latin1.txt": Buffer.concat([Buffer.from("needle then "), Buffer.from([0xff, 0xfe, 0x0a])]),
      "noeol.txt": "the last needle has no line feed",
      "far.txt": `${filler}\nfar needle after ${filler.length} bytes\n`,
    });
    await writeFile(
      Buffer.concat([Buffer.from(`${root}/bad-`), Buffer.from([0xff]), Buffer.from(".txt")]),
      "a needle\n",
    );
  });
  after(() => rm(root, { recursive: true, force: true }));

  for (const [name, args] of [
    ["a pattern with one or more occurrences per line", ["needle"]],
    ["empty occurrences", ["^"]],
    ["several patterns", ["-e", "needle", "-e", "line"]],
  ] as const) {
    it(`G01: a page reads the same match from a record as from ripgrep's event: ${name}`, () => {
      const run = indexed(rg(root, ...args), 97);
      const snapshot = buildSnapshot(query, target, target, false, { run, trusted: {} });
      assert.equal(snapshot.matches.kind, "compact");
      assert.ok(isMatchTable(snapshot.matches));
      const kept = allMatches(snapshot.matches);
      const events = allMatches(run.table);
      assert.equal(kept.length, events.length);
      assert.deepEqual(byFile(kept), byFile(events));
    });
  }

  it("covers the lines it was meant for: not UTF-8, CRLF, escapes, far offsets, a name not UTF-8", () => {
    const run = indexed(rg(root, "needle"));
    const kept = allMatches(buildSnapshot(query, target, target, false, { run, trusted: {} }).matches);
    assert.ok(kept.some((m) => m.textLossy && m.rawText !== undefined));
    assert.ok(kept.some((m) => m.pathLossy));
    assert.ok(kept.some((m) => m.path === "./crlf.txt" && m.text === "needle with crlf"));
    assert.ok(
      kept.some((m) => m.path === "./quotes.txt" && m.text.includes('"needle" \\ back\tslash \u0001')),
    );
    assert.ok(kept.some((m) => m.path === "./far.txt" && m.line === 301 && m.absoluteOffset > 16_384));
    assert.ok(kept.some((m) => m.path === "./unicode.txt" && m.occurrences.length === 2));
  });

  it("keeps under half of what ripgrep's events hold, and none of its read chunks", () => {
    const output = rg(root, "needle");
    const run = indexed(output);
    const table = buildSnapshot(query, target, target, false, { run, trusted: {} }).matches;
    assert.equal(table.kind, "compact");
    if (table.kind !== "compact") return;
    const events = eventBytes(output);
    assert.ok(table.bytes.length * 2 < events, `${table.bytes.length} of ${events} bytes`);
    // The reads were cut from `output`: no byte of the snapshot is in them.
    assert.notEqual(table.bytes.buffer, output.buffer);
  });

  it("G04: a bound that falls inside a file keeps records of exactly the events retained", () => {
    const output = rg(root, "needle");
    for (const maxOccurrences of [1, 2, 3, 5]) {
      const indexer = new RgOutputIndexer({ maxMatches: 100_000, maxOccurrences, maxBytes: 1 << 30 });
      for (let at = 0; at < output.length; at += 61) if (indexer.push(output.subarray(at, at + 61))) break;
      const run = { ...indexer.finish(), searchErrors: 0 };
      assert.equal(run.partialReason, "max_occurrences");
      const table = buildSnapshot(query, target, target, false, { run, trusted: {} }).matches;
      assert.equal(table.kind, "compact");
      assert.deepEqual(byFile(allMatches(table)), byFile(allMatches(run.table)));
    }
  });

  it("an event of another shape keeps the events themselves, decoded the same", () => {
    const plain: ParsedMatch = {
      path: "./a",
      pathLossy: false,
      line: 3,
      absoluteOffset: 10,
      text: "a needle",
      textLossy: false,
      occurrences: [{ startByte: 2, endByte: 8, startColumn: 2, endColumn: 8 }],
    };
    // A field ripgrep does not write today, as a later version might.
    const output = rgOutput([plain]).replace('"submatches"', '"extra":1,"submatches"');
    const run = indexed(Buffer.from(output));
    const table = buildSnapshot(query, target, target, false, { run, trusted: {} }).matches;
    assert.equal(table.kind, "raw");
    assert.deepEqual(allMatches(table), [plain]);
  });
});
