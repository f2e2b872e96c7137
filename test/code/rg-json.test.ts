import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  fastMatch,
  fullMatch,
  LineSplitter,
  type ParsedMatch,
  ProtocolLineTooLong,
  RgJsonParser,
  utf8Columns,
} from "../../src/code/rg-json.js";

function event(path: string, text: string, subs: [number, number][], line = 1): string {
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

describe("rg JSON stream", () => {
  it("survives chunks split anywhere, also inside multi-byte characters", () => {
    const lines = [
      JSON.stringify({ type: "begin", data: { path: { text: "a" } } }),
      event("é/ü.txt", "héllo 😀 wörld\r\n", [[7, 11]]),
      event("b", "plain\n", [[0, 5]], 2),
      JSON.stringify({ type: "summary", data: { stats: { matched_lines: 2, matches: 2, searches: 2 } } }),
    ];
    const stream = Buffer.from(`${lines.join("\n")}\n`);
    fc.assert(
      fc.property(fc.array(fc.nat(stream.length), { maxLength: 12 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const seen: ParsedMatch[] = [];
        const parser = new RgJsonParser((m) => seen.push(m));
        let last = 0;
        for (const point of [...points, stream.length]) {
          parser.push(stream.subarray(last, point));
          last = point;
        }
        parser.end();
        assert.equal(seen.length, 2);
        assert.equal(seen[0]?.path, "é/ü.txt");
        assert.equal(seen[0]?.text, "héllo 😀 wörld");
        assert.deepEqual(seen[0]?.occurrences, [{ startByte: 7, endByte: 11, startColumn: 6, endColumn: 8 }]);
        assert.equal(seen[1]?.line, 2);
        assert.equal(parser.summary?.matches, 2);
      }),
      { numRuns: 200 },
    );
  });

  it("maps byte offsets to UTF-16 columns across 1-4 byte characters", () => {
    const text = "aé€😀b";
    // bytes: a=0, é=1..2, €=3..5, 😀=6..9, b=10
    assert.deepEqual(
      utf8Columns(text, [
        { start: 10, end: 11 },
        { start: 6, end: 10 },
        { start: 1, end: 3 },
      ]).map((o) => [o.startColumn, o.endColumn]),
      [
        [5, 6],
        [3, 5],
        [1, 2],
      ],
    );
  });

  it("G10: every byte offset maps to the column of the character containing it, in order or not", () => {
    /**
     * Independent reference: UTF-16 units of the characters wholly before byte `target` (an
     * ASCII line maps one to one, also past its end).
     */
    const reference = (text: string, target: number): number => {
      if (Buffer.byteLength(text, "utf8") === text.length) return target;
      let byte = 0;
      let unit = 0;
      for (const ch of text) {
        const width = Buffer.byteLength(ch, "utf8");
        if (byte + width > target) break;
        byte += width;
        unit += ch.length;
      }
      return unit;
    };
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "é", "€", "😀", "\ud800", "\udc00", "\n"), maxLength: 30 }),
        fc.array(fc.tuple(fc.nat(130), fc.nat(130)), { maxLength: 5 }),
        fc.boolean(),
        (text, pairs, sorted) => {
          let subs = pairs.map(([a, b]) => ({ start: a, end: b }));
          if (sorted) {
            const points = pairs.flat().sort((x, y) => x - y);
            subs = [];
            for (let i = 0; i + 1 < points.length; i += 2) {
              subs.push({ start: points[i] as number, end: points[i + 1] as number });
            }
          }
          assert.deepEqual(
            utf8Columns(text, subs),
            subs.map((m) => ({
              startByte: m.start,
              endByte: m.end,
              startColumn: reference(text, m.start),
              endColumn: reference(text, m.end),
            })),
          );
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("decodes non-UTF-8 lines and names as lossy views", () => {
    const raw = Buffer.from([0x66, 0xff, 0x6f, 0x6f, 0x0a]);
    const line = JSON.stringify({
      type: "match",
      data: {
        path: { bytes: Buffer.from([0x61, 0xfe]).toString("base64") },
        lines: { bytes: raw.toString("base64") },
        line_number: 3,
        absolute_offset: 9,
        submatches: [{ match: { text: "oo" }, start: 2, end: 4 }],
      },
    });
    const seen: ParsedMatch[] = [];
    new RgJsonParser((m) => seen.push(m)).push(Buffer.from(`${line}\n`));
    assert.equal(seen[0]?.pathLossy, true);
    assert.equal(seen[0]?.textLossy, true);
    assert.equal(seen[0]?.text, "f\uFFFDoo");
    assert.deepEqual(seen[0]?.occurrences[0], { startByte: 2, endByte: 4, startColumn: 2, endColumn: 4 });
  });

  it("refuses a protocol line over the cap, complete or still pending", () => {
    const splitter = new LineSplitter(0x0a, 8);
    assert.throws(() => splitter.push(Buffer.from("0123456789\n"), () => {}), ProtocolLineTooLong);
    const pending = new LineSplitter(0x0a, 8);
    pending.push(Buffer.from("01234"), () => {});
    assert.throws(() => pending.push(Buffer.from("56789"), () => {}), ProtocolLineTooLong);
  });

  it("G11: a protocol line that is not JSON is an error, never an empty result", () => {
    const parser = new RgJsonParser(() => {});
    assert.throws(() => parser.push(Buffer.from('{"type":"match",garbage\n')), /not JSON/);
  });
});

describe("fast match decoding", () => {
  it("agrees with a full JSON parse on arbitrary paths, lines and submatches", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 40 }),
        fc.string({ unit: "binary", maxLength: 200 }),
        fc.oneof(fc.nat(), fc.constant(null)),
        fc.array(fc.tuple(fc.nat(300), fc.nat(300), fc.string({ maxLength: 10 })), {
          minLength: 1,
          maxLength: 5,
        }),
        (path, text, lineNumber, subs) => {
          const line = JSON.stringify({
            type: "match",
            data: {
              path: { text: path },
              lines: { text },
              line_number: lineNumber,
              absolute_offset: 17,
              submatches: subs.map(([start, end, t]) => ({ match: { text: t }, start, end })),
            },
          });
          assert.deepEqual(fastMatch(line), fullMatch(line));
          assert.deepEqual(fastMatch(line, { raw: "", path: "" }), fullMatch(line));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("G10: the stream agrees with a full parse line by line, ASCII chunks or not, split anywhere", () => {
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
          const matches = records.map((r) =>
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
          const lines = matches.flatMap((m) => [
            JSON.stringify({ type: "begin", data: { path: { text: "z" } } }),
            m,
          ]);
          const stream = Buffer.from(`${lines.join("\n")}\n`);
          const seen: ParsedMatch[] = [];
          const parser = new RgJsonParser((m) => seen.push(m));
          let last = 0;
          for (const point of [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b)) {
            parser.push(stream.subarray(last, point));
            last = point;
          }
          parser.push(stream.subarray(last));
          parser.end();
          assert.deepEqual(
            seen,
            matches.map((m) => fullMatch(m)),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it("declines shapes it does not know, leaving them to the full parse", () => {
    const bytes = JSON.stringify({
      type: "match",
      data: {
        path: { bytes: "YQ==" },
        lines: { text: "x\n" },
        line_number: 1,
        absolute_offset: 0,
        submatches: [],
      },
    });
    assert.equal(fastMatch(bytes), undefined);
    assert.equal(fullMatch(bytes).pathLossy, true);
    assert.equal(fastMatch('{"type":"match","data":{"path":{"text":"a"}}}'), undefined);
  });
});
