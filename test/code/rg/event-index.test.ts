import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { type RetentionBounds, RgOutputIndexer } from "../../../src/code/rg/event-index.js";
import { fullMatch } from "../../../src/code/rg/events.js";
import { allMatches } from "../../../src/code/rg/match-table.js";
import { EvidentError } from "../../../src/core/errors.js";
import { SNAPSHOT_FILE_OVERHEAD_BYTES, SNAPSHOT_MATCH_OVERHEAD_BYTES } from "../../../src/core/limits.js";

function errorCode(fn: () => unknown): string {
  try {
    fn();
    return "no error";
  } catch (error) {
    return error instanceof EvidentError ? error.code : String(error);
  }
}

const UNBOUNDED: RetentionBounds = { maxMatches: 1e9, maxOccurrences: 1e9, maxBytes: 1e12 };

interface FileEvents {
  readonly path: { text: string } | { bytes: string };
  readonly matches: readonly string[];
}

function matchEvent(path: string, text: string, subs: readonly [number, number][], line = 1): string {
  return JSON.stringify({
    type: "match",
    data: {
      path: { text: path },
      lines: { text },
      line_number: line,
      absolute_offset: 0,
      submatches: subs.map(([start, end]) => ({ match: { text: "x" }, start, end })),
    },
  });
}

/** A stream as ripgrep prints it: begin, match events, end with statistics, then a summary. */
function stream(files: readonly FileEvents[]): Buffer {
  const lines: string[] = [];
  for (const file of files) {
    lines.push(JSON.stringify({ type: "begin", data: { path: file.path } }));
    lines.push(...file.matches);
    const occurrences = file.matches.reduce((n, m) => n + fullMatch(m).occurrences.length, 0);
    lines.push(
      JSON.stringify({
        type: "end",
        data: {
          path: file.path,
          binary_offset: null,
          stats: {
            elapsed: { secs: 0, nanos: 5, human: "0s" },
            matched_lines: file.matches.length,
            matches: occurrences,
          },
        },
      }),
    );
  }
  const total = files.flatMap((f) => f.matches).length;
  lines.push(
    JSON.stringify({ type: "summary", data: { stats: { matched_lines: total, matches: 0, searches: 1 } } }),
  );
  return Buffer.from(`${lines.join("\n")}\n`);
}

/** Feeds `bytes` cut at `cuts`, as a pipe would deliver it. */
function index(
  bytes: Buffer,
  cuts: readonly number[] = [],
  bounds = UNBOUNDED,
  maxLine?: number,
  records?: boolean,
) {
  const indexer = new RgOutputIndexer(bounds, {
    maxLineBytes: maxLine,
    ...(records === undefined ? {} : { records }),
  });
  let last = 0;
  let stopped = false;
  for (const point of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    stopped = indexer.push(bytes.subarray(last, point));
    last = point;
    if (stopped) break;
  }
  if (!stopped && !indexer.push(bytes.subarray(last))) indexer.end();
  return { out: indexer.finish(), summary: indexer.summary };
}

/**
 * How many of 20 read chunks fed one by one (the last ending inside an unfinished line) are still
 * reachable after a full collection, while the search is still open: in a node of its own with
 * --expose-gc, over the built indexer (tests run after the build).
 */
function chunksStillHeld(records: boolean): number {
  const built = pathToFileURL(resolve(import.meta.dirname, "../../../dist/code/rg/event-index.js")).href;
  const script = `
    const { RgOutputIndexer } = await import(${JSON.stringify(built)});
    const indexer = new RgOutputIndexer({ maxMatches: 1e9, maxOccurrences: 1e9, maxBytes: 1e12 }, { records: ${records} });
    indexer.push(Buffer.from(JSON.stringify({ type: "begin", data: { path: { text: "a" } } }) + "\\n"));
    const held = [];
    for (let i = 0; i < 20; i++) {
      const event = JSON.stringify({ type: "match", data: { path: { text: "a" }, lines: { text: "line " + i + "\\n" },
        line_number: i + 1, absolute_offset: 0, submatches: [{ match: { text: "l" }, start: 0, end: 1 }] } });
      const chunk = Buffer.from(event + "\\n" + (i === 19 ? '{"type":"end"' : ""));
      held.push(new WeakRef(chunk));
      indexer.push(chunk);
    }
    // A WeakRef made in this job keeps its target until the job ends.
    await new Promise((done) => setImmediate(done));
    globalThis.gc();
    process.stdout.write(String(held.filter((ref) => ref.deref() !== undefined).length));
    if (indexer.count !== 20) throw new Error("indexed " + indexer.count);
  `;
  const out = execFileSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script]);
  return Number(out.toString());
}

describe("rg JSON stream index", () => {
  it("lets go of ripgrep's read chunks as their lines are indexed, when records keep the matches", () => {
    // Only the chunk an unfinished line began in is still needed.
    assert.equal(chunksStillHeld(true), 1);
    // Without records (analyses' scans) the table refers to the chunks themselves.
    assert.equal(chunksStillHeld(false), 20);
  });

  it("survives chunks split anywhere, also inside multi-byte characters", () => {
    const bytes = stream([
      { path: { text: "é/ü.txt" }, matches: [matchEvent("é/ü.txt", "héllo 😀 wörld\r\n", [[7, 11]])] },
      { path: { text: "b" }, matches: [matchEvent("b", "plain\n", [[0, 5]], 2)] },
    ]);
    fc.assert(
      fc.property(fc.array(fc.nat(bytes.length), { maxLength: 12 }), (cuts) => {
        const { out, summary } = index(bytes, cuts);
        const seen = allMatches(out.table);
        assert.equal(seen.length, 2);
        assert.equal(seen[0]?.path, "é/ü.txt");
        assert.equal(seen[0]?.text, "héllo 😀 wörld");
        assert.deepEqual(seen[0]?.occurrences, [{ startByte: 7, endByte: 11, startColumn: 6, endColumn: 8 }]);
        assert.equal(seen[1]?.line, 2);
        assert.deepEqual(
          out.runs.map((r) => [r.key, r.first, r.count, r.occurrences]),
          [
            ["é/ü.txt", 0, 1, 1],
            ["b", 1, 1, 1],
          ],
        );
        assert.equal(summary?.matchedLines, 2);
      }),
      { numRuns: 200 },
    );
  });

  it("names each retained file as ripgrep reports it done, before the stream ends, and no other", () => {
    const bytes = stream([
      { path: { text: "a" }, matches: [matchEvent("a", "one\n", [[0, 3]])] },
      { path: { text: "none" }, matches: [] },
      { path: { text: "b" }, matches: [matchEvent("b", "two\n", [[0, 3]])] },
    ]);
    const done: string[] = [];
    const indexer = new RgOutputIndexer(UNBOUNDED, { onRun: (key) => done.push(key) });
    const afterA = bytes.indexOf('{"type":"begin"', bytes.indexOf('"type":"end"'));
    indexer.push(bytes.subarray(0, afterA));
    assert.deepEqual(done, ["a"]);
    indexer.push(bytes.subarray(afterA));
    indexer.end();
    indexer.finish();
    assert.deepEqual(done, ["a", "b"]);
  });

  it("names the file a bound stopped the search in, once", () => {
    const bytes = stream([
      {
        path: { text: "a" },
        matches: [matchEvent("a", "one\n", [[0, 3]]), matchEvent("a", "two\n", [[0, 3]], 2)],
      },
    ]);
    const done: string[] = [];
    const indexer = new RgOutputIndexer({ ...UNBOUNDED, maxMatches: 1 }, { onRun: (key) => done.push(key) });
    assert.equal(indexer.push(bytes), true);
    indexer.finish();
    assert.deepEqual(done, ["a"]);
  });

  it("G10: decoded matches agree with a full parse of each event, split anywhere", () => {
    const piece = fc.oneof(
      fc.string({ unit: fc.constantFrom("a", " ", "~", "{", "}", ",", ":", "[", "]", "0"), maxLength: 30 }),
      fc.constantFrom(
        '"',
        "\\",
        "\t",
        "\r",
        "\u0000",
        "\u007f",
        "é",
        "😀",
        "\ud800",
        '"},"start":1,"end":2}]}}',
      ),
    );
    const text = fc.tuple(fc.array(piece, { maxLength: 4 }), fc.constantFrom("", "\n", "\r\n", "\r", "\n\n"));
    const record = fc.record({
      path: fc.oneof(fc.constantFrom("./a.ts", "./b/c.ts"), fc.string({ maxLength: 12 })),
      text: text.map(([parts, end]) => parts.join("") + end),
      line: fc.oneof(fc.nat(), fc.constant(null)),
      offset: fc.oneof(fc.nat(), fc.constant(2 ** 53 + 2)),
      subs: fc.array(fc.tuple(fc.nat(60), fc.nat(60)), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(
        fc.array(record, { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(4000)),
        (records, cuts) => {
          const events = records.map((r) =>
            JSON.stringify({
              type: "match",
              data: {
                path: { text: r.path },
                lines: { text: r.text },
                line_number: r.line,
                absolute_offset: r.offset,
                submatches: r.subs.map(([start, end]) => ({ match: { text: "x" }, start, end })),
              },
            }),
          );
          const bytes = stream(
            records.map((r, i) => ({ path: { text: r.path }, matches: [events[i] as string] })),
          );
          const { out } = index(bytes, cuts);
          assert.deepEqual(
            allMatches(out.table),
            events.map((e) => fullMatch(e)),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it("decodes non-UTF-8 lines and names as lossy views", () => {
    const path = { bytes: Buffer.from([0x61, 0xfe]).toString("base64") };
    const event = JSON.stringify({
      type: "match",
      data: {
        path,
        lines: { bytes: Buffer.from([0x66, 0xff, 0x6f, 0x6f, 0x0a]).toString("base64") },
        line_number: 3,
        absolute_offset: 9,
        submatches: [{ match: { text: "oo" }, start: 2, end: 4 }],
      },
    });
    const [seen] = allMatches(index(stream([{ path, matches: [event] }])).out.table);
    assert.equal(seen?.pathLossy, true);
    assert.equal(seen?.path, "a\uFFFD");
    assert.equal(seen?.textLossy, true);
    assert.equal(seen?.text, "f\uFFFDoo");
    assert.deepEqual(seen?.occurrences[0], { startByte: 2, endByte: 4, startColumn: 2, endColumn: 4 });
  });

  it("stops at a protocol line over the cap, complete or still pending, keeping what came before", () => {
    const event = matchEvent("a", "x\n", [[0, 1]]);
    const begin = JSON.stringify({ type: "begin", data: { path: { text: "a" } } });
    const cap = event.length + 1;
    for (const tail of [`${"y".repeat(cap + 1)}\n`, "y".repeat(cap + 1)]) {
      const { out } = index(
        Buffer.from(`${begin}\n${event}\n${tail}`),
        [],
        UNBOUNDED,
        Math.max(cap, begin.length),
      );
      assert.equal(out.partialReason, "protocol_line_limit");
      assert.equal(out.longLineKey, "a", "the file that held the line is named");
      assert.deepEqual(allMatches(out.table), [fullMatch(event)]);
      assert.deepEqual(
        out.runs.map((r) => [r.key, r.count, r.occurrences]),
        [["a", 1, 1]],
      );
    }
    const pending = new RgOutputIndexer(UNBOUNDED, { maxLineBytes: 8 });
    assert.equal(pending.push(Buffer.from("01234")), false);
    assert.equal(pending.push(Buffer.from("56789")), true);
    assert.equal(pending.partialReason, "protocol_line_limit");
  });

  it("G11: output it cannot account for is an error, never an empty or short result", () => {
    const begin = JSON.stringify({ type: "begin", data: { path: { text: "a" } } });
    const event = matchEvent("a", "x\n", [[0, 1]]);
    const end = (lines: number) =>
      JSON.stringify({
        type: "end",
        data: { path: { text: "a" }, stats: { matched_lines: lines, matches: lines } },
      });
    const cases = [
      '{"type":"begin",garbage',
      event,
      `${begin}\n${event}\n${end(2)}`,
      `${begin}\n${begin}`,
      end(0),
    ];
    for (const text of cases) {
      assert.equal(
        errorCode(() => index(Buffer.from(`${text}\n`))),
        "internal_error",
        text,
      );
    }
  });

  it("drops the files a filter excludes, as if ripgrep had not printed them, and still checks their counts", () => {
    const files: FileEvents[] = ["a", ".SSH/key", "b"].map((path) => ({
      path: { text: path },
      matches: [
        matchEvent(
          path,
          "x x\n",
          [
            [0, 1],
            [2, 3],
          ],
          1,
        ),
        matchEvent(path, "x\n", [[0, 1]], 2),
      ],
    }));
    for (const bounds of [UNBOUNDED, { ...UNBOUNDED, maxMatches: 3 }]) {
      const indexer = new RgOutputIndexer(bounds, { exclude: (key) => key.toLowerCase().includes(".ssh") });
      if (!indexer.push(stream(files))) indexer.end();
      const out = indexer.finish();
      // With a bound of 3, the excluded file's two matches do not count towards it.
      assert.deepEqual(
        out.runs.map((run) => run.key),
        ["a", "b"],
      );
      assert.equal(out.table.length, bounds === UNBOUNDED ? 4 : 3);
      assert.equal(out.occurrences, bounds === UNBOUNDED ? 6 : 5);
      assert.equal(indexer.count, out.table.length);
      assert.equal(out.partialReason, bounds === UNBOUNDED ? undefined : "max_matches");
    }
    // An excluded file whose events disagree with its end statistics is still an error.
    const lying = Buffer.from(
      [
        JSON.stringify({ type: "begin", data: { path: { text: ".ssh/key" } } }),
        matchEvent(".ssh/key", "x\n", [[0, 1]]),
        JSON.stringify({
          type: "end",
          data: { path: { text: ".ssh/key" }, stats: { matched_lines: 2, matches: 2 } },
        }),
        "",
      ].join("\n"),
    );
    assert.equal(
      errorCode(() => new RgOutputIndexer(UNBOUNDED, { exclude: () => true }).push(lying)),
      "internal_error",
    );
  });
});

/** Bytes of a varint (7 bits a byte). */
function varintBytes(value: number): number {
  let n = 1;
  for (let v = value; v >= 0x80; v = Math.floor(v / 0x80)) n++;
  return n;
}

/**
 * What a snapshot keeps of an event as a compact record (rg/compact.ts): its line number, offset
 * and submatch ranges as varints, and its line's value as ripgrep wrote it.
 */
function recordBytes(event: string): number {
  const { data } = JSON.parse(event) as {
    data: {
      lines: unknown;
      line_number: number | null;
      absolute_offset: number;
      submatches: { start: number; end: number }[];
    };
  };
  let n = varintBytes(data.line_number ?? 0) + varintBytes(data.absolute_offset);
  n += varintBytes(data.submatches.length);
  for (const s of data.submatches) n += varintBytes(s.start) + varintBytes(s.end - s.start);
  return n + Buffer.byteLength(JSON.stringify(data.lines));
}

/**
 * The reference: decode every event as it arrives and apply the bounds in order (matches, then
 * occurrences, then bytes), which is what retention promises. Bytes count what the snapshot
 * keeps: each event's compact record, or the event itself where no records are made.
 */
function reference(files: readonly FileEvents[], bounds: RetentionBounds, records = true) {
  const kept: string[] = [];
  let occurrences = 0;
  let bytes = 0;
  for (const file of files) {
    let first = true;
    for (const event of file.matches) {
      const n = fullMatch(event).occurrences.length;
      const cost =
        (records ? recordBytes(event) : Buffer.byteLength(event)) +
        SNAPSHOT_MATCH_OVERHEAD_BYTES +
        (first ? SNAPSHOT_FILE_OVERHEAD_BYTES + 2 * fullMatch(event).path.length : 0);
      if (kept.length + 1 > bounds.maxMatches) return { kept, reason: "max_matches" };
      if (occurrences + n > bounds.maxOccurrences) return { kept, reason: "max_occurrences" };
      if (bytes + cost > bounds.maxBytes) return { kept, reason: "max_bytes" };
      kept.push(event);
      occurrences += n;
      bytes += cost;
      first = false;
    }
  }
  return { kept, reason: undefined };
}

describe("retention while indexing", () => {
  it("G07: bounds cut exactly where a decode-as-you-go reader would, inside a file or at its end", () => {
    const file = fc.record({
      name: fc.constantFrom("a", "b", "c", "d"),
      lines: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 6 }),
    });
    fc.assert(
      fc.property(
        fc.array(file, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 100, max: 3000 }),
        fc.array(fc.nat(5000), { maxLength: 6 }),
        fc.boolean(),
        (specs, maxMatches, maxOccurrences, maxBytes, cuts, records) => {
          const files: FileEvents[] = specs.map((spec, f) => ({
            path: { text: spec.name },
            matches: spec.lines.map((n, i) =>
              matchEvent(
                spec.name,
                `${"ab".repeat(4)}\n`,
                Array.from({ length: n }, (_, k) => [k, k + 1] as [number, number]),
                f * 10 + i + 1,
              ),
            ),
          }));
          const bounds = { maxMatches, maxOccurrences, maxBytes };
          const expected = reference(files, bounds, records);
          const { out } = index(stream(files), cuts, bounds, undefined, records);
          assert.deepEqual(
            allMatches(out.table),
            expected.kept.map((e) => fullMatch(e)),
          );
          assert.equal(out.partialReason, expected.reason);
          assert.equal(
            out.occurrences,
            expected.kept.reduce((n, e) => n + fullMatch(e).occurrences.length, 0),
          );
          assert.equal(
            out.runs.reduce((n, r) => n + r.occurrences, 0),
            out.occurrences,
          );
        },
      ),
      { numRuns: 400 },
    );
  });

  it("G04: where the records end, the bound counts the events kept instead, cut back to fit", () => {
    const file = fc.record({
      name: fc.constantFrom("a", "b", "c", "d"),
      lines: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 6 }),
    });
    fc.assert(
      fc.property(
        fc.array(file, { minLength: 1, maxLength: 5 }),
        fc.nat(40),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 100, max: 3000 }),
        fc.array(fc.nat(5000), { maxLength: 6 }),
        (specs, odd, maxMatches, maxBytes, cuts) => {
          let position = 0;
          const files: FileEvents[] = specs.map((spec, f) => ({
            path: { text: spec.name },
            matches: spec.lines.map((n, i) => {
              const event = matchEvent(
                spec.name,
                `${"ab".repeat(4)}\n`,
                Array.from({ length: n }, (_, k) => [k, k + 1] as [number, number]),
                f * 10 + i + 1,
              );
              // One event of another shape (a field records do not know): the records end there.
              return position++ === odd ? event.replace(/\]\}\}$/, '],"more":1}}') : event;
            }),
          }));
          const bounds = { maxMatches, maxOccurrences: 1e9, maxBytes };
          const byRecords = reference(files, bounds, true);
          // Stopped before the records ended (or, at that event, by the match count, checked
          // first): records are kept; else the events are, within the bound as events.
          const expected =
            odd >= position ||
            byRecords.kept.length < odd ||
            (byRecords.kept.length === odd && byRecords.reason === "max_matches")
              ? byRecords
              : reference(files, bounds, false);
          const { out } = index(stream(files), cuts, bounds);
          assert.deepEqual(
            allMatches(out.table).map((m) => m.line),
            expected.kept.map((e) => fullMatch(e).line),
          );
          assert.equal(out.partialReason, expected.reason);
          assert.equal(
            out.runs.reduce((n, r) => n + r.occurrences, 0),
            out.occurrences,
          );
          assert.equal(
            out.occurrences,
            expected.kept.reduce((n, e) => n + fullMatch(e).occurrences.length, 0),
          );
        },
      ),
      { numRuns: 400 },
    );
  });
});
