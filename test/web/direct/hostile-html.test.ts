/**
 * Hostile HTML (issue 31, sections 3, 4 and 7): pages whose cost the old thread decision did not
 * see (`x</p>` and `</br>` make elements without a start tag), pages whose parse grew with the
 * square of their depth or whose DOM cost minutes (a million paragraphs), an attribute too long
 * for the DOM, and a prolog of comments that made a pattern backtrack for hours. Costs are
 * shown by counts (elements the parser's stack moved, the shape found), never by a clock.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runInNewContext } from "node:vm";
import {
  WEB_READ_MAX_ATTRIBUTE_CHARS,
  WEB_READ_MAX_DEPTH,
  WEB_READ_MAX_ELEMENT_ATTRIBUTES,
  WEB_READ_MAX_ELEMENTS,
  WEB_READ_MAX_NODES,
  WEB_READ_THREAD_MIN_CHARS,
  WEB_READ_THREAD_MIN_ELEMENTS,
} from "../../../src/core/limits.js";
import { wellFormed } from "../../../src/web/providers/direct/document.js";
import { readHtml } from "../../../src/web/providers/direct/html.js";
import { plainText } from "../../../src/web/providers/direct/plain.js";
import { heavyHtml } from "../../../src/web/providers/direct/reader-thread.js";
import { boundedAttributes, pageShape } from "../../../src/web/providers/direct/shape.js";

const text = (outcome: Awaited<ReturnType<typeof readHtml>>) =>
  outcome.content.map((part) => ("text" in part ? part.text : "")).join("");

/**
 * Elements moved by `Array.prototype.unshift` while `work` runs: htmlparser2 keeps its open
 * elements in an array it grows at the front, so this is the parser's cost in its depth.
 */
async function unshifted(work: () => Promise<unknown>): Promise<number> {
  const original = Array.prototype.unshift;
  let moved = 0;
  Array.prototype.unshift = function (this: unknown[], ...items: unknown[]) {
    moved += this.length;
    return original.apply(this, items);
  };
  try {
    await work();
  } finally {
    Array.prototype.unshift = original;
  }
  return moved;
}

describe("direct reader: hostile HTML", () => {
  it("every tag-like token counts toward the thread, end tags and comments included: x</p> and </br> pages go to the thread", () => {
    // 200,000 `x</p>` is a megabyte, under the size bound, with no start tag at all.
    const paragraphs = "x</p>".repeat(200_000);
    assert.ok(paragraphs.length < WEB_READ_THREAD_MIN_CHARS);
    assert.equal(heavyHtml(paragraphs), true);
    assert.equal(heavyHtml("</br>".repeat(WEB_READ_THREAD_MIN_ELEMENTS)), true);
    assert.equal(heavyHtml("x</p>".repeat(WEB_READ_THREAD_MIN_ELEMENTS)), true);
    assert.equal(heavyHtml("<!--c-->".repeat(WEB_READ_THREAD_MIN_ELEMENTS)), true);
    assert.equal(heavyHtml("x</p>".repeat(WEB_READ_THREAD_MIN_ELEMENTS - 1)), false, "one under the bound");
    // What the parser reads as text is not counted: `<` before a space, a digit or `=`.
    assert.equal(heavyHtml("a < b, 1<2, x<=y ".repeat(WEB_READ_THREAD_MIN_ELEMENTS)), false);
  });

  it("S16: a page of 200,000 x</p> is read, as its text in order, with a warning saying why it was not formatted", async () => {
    const outcome = await readHtml("x</p>".repeat(200_000), "https://example.test/p");
    const lines = text(outcome).split("\n\n");
    assert.equal(lines.length, 200_000);
    assert.ok(lines.every((line) => line === "x"));
    assert.match(outcome.warnings?.[0] ?? "", /more than [\d,]+ elements/);
  });

  for (const [shape, open, close] of [
    ["divs", "<div>", "</div>"],
    ["lists", "<ul><li>", "</li></ul>"],
    ["blockquotes", "<blockquote>", "</blockquote>"],
  ] as const) {
    it(`nested ${shape}: the parser's work grows with the page, not with the square of its depth`, async () => {
      const page = (depth: number) =>
        `<html><body>${open.repeat(depth)}bottom${close.repeat(depth)}<p>after</p></body></html>`;
      const read = async (depth: number) => {
        let outcome: Awaited<ReturnType<typeof readHtml>> | undefined;
        const moved = await unshifted(async () => {
          outcome = await readHtml(page(depth), "https://example.test/deep");
        });
        return { moved, outcome: outcome as Awaited<ReturnType<typeof readHtml>> };
      };
      // Parsed whole, the stack moves about depth²/2 elements: 4,000 levels move four times
      // what 2,000 do. Stopped at the depth bound, both move the same.
      const small = await read(2_000);
      const large = await read(4_000);
      assert.ok(large.moved <= 2.5 * small.moved + 1, `moved ${small.moved}, then ${large.moved}`);
      assert.ok(large.moved < 2_000 * 2_000, `moved ${large.moved}`);
      assert.equal(text(large.outcome), "bottom\n\nafter");
      assert.match(large.outcome.warnings?.[0] ?? "", new RegExp(`more than ${WEB_READ_MAX_DEPTH} deep`));
    });
  }

  it("reads 200,000 nested divs, never closed, as text", async () => {
    const outcome = await readHtml(`${"<div>".repeat(200_000)}the end`, "https://example.test/deep");
    assert.equal(text(outcome), "the end");
    assert.equal(outcome.warnings?.length, 1);
  });

  it("S16: a page of more elements than the bound is read as text, in order, without a DOM; at the bound it is not", async () => {
    const page = (count: number) =>
      `<html><head><title>Many</title><style>p{}</style></head><body>${"<p>a &amp; b".repeat(count)}</body></html>`;
    // html, head, title, style and body are elements too.
    assert.equal(pageShape(page(WEB_READ_MAX_ELEMENTS - 5)).tooMany, false);
    assert.equal(pageShape(page(WEB_READ_MAX_ELEMENTS - 4)).tooMany, true);
    const outcome = await readHtml(page(2 * WEB_READ_MAX_ELEMENTS), "https://example.test/many");
    assert.equal(outcome.title, "Many");
    const lines = text(outcome).split("\n\n");
    assert.equal(lines.length, 2 * WEB_READ_MAX_ELEMENTS);
    assert.ok(lines.every((line) => line === "a & b"));
    assert.match(outcome.warnings?.[0] ?? "", /more than 25,000 elements or 200,000 nodes/);
  });

  it("nodes other than elements count too: a page of comments or of attributes past the bound is read as text", async () => {
    assert.equal(pageShape(`<p>${"<!---->".repeat(WEB_READ_MAX_NODES)}</p>`).tooMany, true);
    assert.equal(
      pageShape(`<p${Array.from({ length: WEB_READ_MAX_NODES }, (_, i) => ` a${i}`).join("")}>x</p>`).tooMany,
      true,
    );
    assert.equal(pageShape(`<p>${"<!---->".repeat(WEB_READ_MAX_NODES / 2)}</p>`).tooMany, false);
    const outcome = await readHtml(
      `<p>before${"<!--c-->".repeat(WEB_READ_MAX_NODES)}after</p>`,
      "https://e.test/",
    );
    assert.equal(text(outcome), "beforeafter");
  });

  it("S16: text read without a DOM keeps the page's text in order, a line per block, and nothing hidden", () => {
    assert.deepEqual(
      plainText(
        "<html><head><title>T &amp; U</title><script>x<p>no</p></script><style>p{}</style></head><body><nav>Menu</nav><svg/><p>A &amp; B</p><svg><text>no</text></svg><br>line<template><p>t</p></template><textarea>no</textarea>end</body></html>",
      ),
      { title: "T & U", text: "Menu\n\nA & B\n\nline\n\nend" },
    );
    assert.deepEqual(
      plainText(
        "<head><meta charset=utf-8><body><p>one<li>two</li><td>three</td></p><noscript>no</noscript>",
      ),
      {
        text: "one\n\ntwo\n\nthree",
      },
    );
  });

  it("a class attribute of 300,000 tokens is cut out and the page read (linkedom's className overflowed the stack)", async () => {
    const classes = "a ".repeat(300_000);
    const outcome = await readHtml(
      `<html><head><title>Classy</title></head><body><article><p class="${classes}" id="keep">A paragraph of the article that is long enough to be its content.</p></article></body></html>`,
      "https://example.test/class",
    );
    assert.equal(outcome.title, "Classy");
    assert.match(text(outcome), /^A paragraph of the article that is long enough to be its content\.$/);
  });

  it("attributes up to the bound are kept; a longer one is cut, whatever its quotes, and the tag around it stays", () => {
    const at = "x".repeat(WEB_READ_MAX_ATTRIBUTE_CHARS);
    const over = `${at}x`;
    assert.equal(boundedAttributes(`<p class="${at}">a</p>`), `<p class="${at}">a</p>`);
    assert.equal(boundedAttributes(`<p id=k class="${over}" title=t>a</p>`), `<p id=k  title=t>a</p>`);
    assert.equal(boundedAttributes(`<p class='${over}'>a</p><b data-x=${over}>b</b>`), `<p >a</p><b >b</b>`);
    assert.equal(pageShape(`<p class="${at}">a</p>`).excessAttributes, false);
    assert.equal(pageShape(`<p class="${over}">a</p>`).excessAttributes, true);
  });

  it("an element keeps its first attributes up to the bound; the rest are cut, and one of 100,000 attributes is read", async () => {
    const names = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => ` a${from + i}="v"`).join("");
    const kept = `<p${names(0, WEB_READ_MAX_ELEMENT_ATTRIBUTES)}`;
    assert.equal(boundedAttributes(`${kept}>x</p>`), `${kept}>x</p>`);
    assert.equal(pageShape(`${kept}>x</p>`).excessAttributes, false);
    assert.equal(pageShape(`${kept} b>x</p><i>`).excessAttributes, true);
    assert.equal(
      boundedAttributes(`${kept}${names(WEB_READ_MAX_ELEMENT_ATTRIBUTES, 1_000)}>x</p><i c=d>y</i>`),
      `${kept}${" ".repeat(1_000 - WEB_READ_MAX_ELEMENT_ATTRIBUTES)}>x</p><i c=d>y</i>`,
    );
    // linkedom finds an attribute by walking its element's list: every lookup costs the whole list.
    const outcome = await readHtml(`<p${names(0, 100_000)}>many</p>`, "https://example.test/attributes");
    assert.equal(text(outcome), "many");
  });

  it("a prolog of comments not followed by <html> is rewritten in linear time (the pattern backtracked exponentially)", async () => {
    // Forty comments took hours; the guard turns a hang into a named failure.
    const page = `${"<!--x-->".repeat(40)}<p>text</p>`;
    const run = (source: string) =>
      runInNewContext("wellFormed(page)", { wellFormed, page: source }, { timeout: 20_000 }) as string;
    assert.match(run(page), /<body><p>text<\/p><\/body>$/);
    const titles = `${"<title>a</title>".repeat(40)}<p>text`;
    assert.match(run(titles), /^<!DOCTYPE html><html><head><title>a<\/title>/);
    assert.equal(text(await readHtml(page, "https://example.test/comments")), "text");
  });
});
