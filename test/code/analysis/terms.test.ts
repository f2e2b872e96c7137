import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { alternation, termIgnoresCase, termMatcher } from "../../../src/code/analysis/terms.js";
import type { ParsedMatch } from "../../../src/code/rg/events.js";

function line(text: string, raw?: Buffer): ParsedMatch {
  return {
    path: "a.ts",
    pathLossy: false,
    line: 1,
    absoluteOffset: 0,
    text,
    textLossy: raw !== undefined,
    ...(raw === undefined ? {} : { rawText: raw }),
    occurrences: [],
  };
}

const spans = (found: readonly { startByte: number; endByte: number }[]) =>
  found.map((o) => [o.startByte, o.endByte]);

describe("anyOf term matching", () => {
  it("finds every non-overlapping occurrence of one term, byte-exact", () => {
    const m = termMatcher("aa", "sensitive", false);
    assert.deepEqual(spans(m.find(line("aaaa aa"))), [
      [0, 2],
      [2, 4],
      [5, 7],
    ]);
  });

  it("gives byte offsets and UTF-16 columns on non-ASCII lines", () => {
    const m = termMatcher("bé", "sensitive", false);
    const [found] = m.find(line("😀 bé"));
    // "😀" is 4 bytes and 2 UTF-16 units; the space one each.
    assert.deepEqual(found, { startByte: 5, endByte: 8, startColumn: 3, endColumn: 5 });
  });

  it("smart case is per term: an uppercase letter makes that term exact", () => {
    assert.equal(termIgnoresCase("foo", "smart"), true);
    assert.equal(termIgnoresCase("Foo", "smart"), false);
    assert.equal(termIgnoresCase("Foo", "insensitive"), true);
    assert.equal(termIgnoresCase("foo", "sensitive"), false);
    assert.equal(termMatcher("foo", "smart", false).find(line("FOO Foo foo")).length, 3);
    assert.equal(termMatcher("Foo", "smart", false).find(line("FOO Foo foo")).length, 1);
  });

  it("whole words need non-word characters (or the line's ends) around them", () => {
    const m = termMatcher("foo", "sensitive", true);
    assert.deepEqual(spans(m.find(line("foo foobar _foo foo.x éfoo"))), [
      [0, 3],
      [16, 19],
    ]);
  });

  it("compares a non-UTF-8 line byte for byte, folding ASCII case only", () => {
    const raw = Buffer.concat([Buffer.from([0xff]), Buffer.from("FOO foo")]);
    const m = termMatcher("foo", "insensitive", false);
    assert.deepEqual(spans(m.find(line(raw.toString("utf8"), raw))), [
      [1, 4],
      [5, 8],
    ]);
  });

  it("escapes every character ripgrep's regex syntax gives a meaning to", () => {
    assert.equal(
      alternation(["a.b", "(x)|[y]{2}^$#&-~\\"]),
      "a\\.b|\\(x\\)\\|\\[y\\]\\{2\\}\\^\\$\\#\\&\\-\\~\\\\",
    );
  });
});
