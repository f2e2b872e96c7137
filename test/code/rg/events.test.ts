import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  fastMatch,
  fullMatch,
  LineSplitter,
  ProtocolLineTooLong,
  utf8Columns,
} from "../../../src/code/rg/events.js";

describe("rg JSON decoding", () => {
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

  it("line splitting refuses a line over the cap, complete or still pending", () => {
    const splitter = new LineSplitter(0x0a, 8);
    assert.throws(() => splitter.push(Buffer.from("0123456789\n"), () => {}), ProtocolLineTooLong);
    const pending = new LineSplitter(0x0a, 8);
    pending.push(Buffer.from("01234"), () => {});
    assert.throws(() => pending.push(Buffer.from("56789"), () => {}), ProtocolLineTooLong);
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
