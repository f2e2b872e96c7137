/**
 * Pages nested deeper than WEB_READ_MAX_DEPTH: main-content extraction takes time that grows
 * with the cube of the depth (bench/web-read/RESULTS.md) and Markdown conversion recurses, so such a page is read as plain text, in document
 * order, with a warning; a page at the bound is extracted as usual. And very wide pages: a block
 * of 200,000 paragraphs becomes Markdown whole (its blocks were passed as one call's arguments,
 * which overflowed the stack), and a block's text is gathered once, not once per paragraph.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseHTML } from "linkedom";
import { WEB_READ_MAX_DEPTH } from "../../../src/core/limits.js";
import { readHtml } from "../../../src/web/providers/direct/html.js";
import { toMarkdown } from "../../../src/web/providers/direct/markdown.js";

const nested = (depth: number, inner: string) => `${"<div>".repeat(depth)}${inner}${"</div>".repeat(depth)}`;
const text = (outcome: Awaited<ReturnType<typeof readHtml>>) =>
  outcome.content.map((part) => ("text" in part ? part.text : "")).join("");

describe("direct reader: pages nested too deep, and very wide ones", () => {
  it("S16: a page nested 3,000 deep is read as its text in order, with its title and a warning saying why", async () => {
    const html = `<!doctype html><html><head><title>Deep</title><style>p { color: red }</style></head><body>
      <h1>Heading</h1><p>First paragraph.</p>
      ${nested(3_000, "<p>Deep <b>inside</b> it.</p><script>var hidden = 1;</script>")}
      <p>Last paragraph.</p></body></html>`;
    const outcome = await readHtml(html, "https://example.test/deep");
    assert.equal(outcome.title, "Deep");
    assert.equal(text(outcome), "Heading\n\nFirst paragraph.\n\nDeep inside it.\n\nLast paragraph.");
    assert.equal(outcome.warnings?.length, 1);
    assert.match(outcome.warnings?.[0] ?? "", new RegExp(`more than ${WEB_READ_MAX_DEPTH} deep`));
  });

  it("reads a page nested 20,000 deep (Markdown conversion would overflow the stack) and one never closed", async () => {
    const deep = await readHtml(
      `<html><body>${nested(20_000, "bottom")}</body></html>`.replace("<div>", "<div>top "),
      "https://example.test/deeper",
    );
    assert.equal(text(deep), "top\n\nbottom");
    const unclosed = await readHtml(
      `<html><body>${"<section>".repeat(500)}<p>never closed`,
      "https://e.test/",
    );
    assert.equal(text(unclosed), "never closed");
    assert.equal(unclosed.warnings?.length, 1);
  });

  it("a page at the bound is extracted and formatted as usual", async () => {
    // html and body are two levels; the paragraph sits at the bound.
    const html = `<html><head><title>At the bound</title></head><body>${nested(
      WEB_READ_MAX_DEPTH - 3,
      `<h2>Section</h2><p>${"A sentence of the article that is long enough to read as content. ".repeat(6)}</p>`,
    )}</body></html>`;
    const outcome = await readHtml(html, "https://example.test/bound");
    assert.equal(outcome.warnings, undefined);
    assert.match(text(outcome), /^## Section\n\nA sentence of the article/m);
  });

  it("S16: a block of 200,000 paragraphs becomes Markdown whole, in order (as one call's arguments its blocks overflowed the stack)", () => {
    // The conversion itself, on the page's parsed DOM: reading the page whole costs several times
    // more (its main content is looked for first) and adds nothing to what is tested here.
    const count = 200_000;
    const { document } = parseHTML(
      `<html><body><div>${Array.from({ length: count }, (_, i) => `<p>p${i}</p>`).join("")}</div></body></html>`,
    );
    const paragraphs = toMarkdown(document.body).split("\n\n");
    assert.equal(paragraphs.length, count);
    assert.equal(paragraphs[0], "p0");
    assert.equal(paragraphs[count - 1], `p${count - 1}`);
  });

  it("S16: a block of paragraphs is read whole, in order, its text gathered in proportion to its size", async () => {
    // Each paragraph used to gather its block's text: 20,000 paragraphs took 19.9 s. What is
    // counted is the text linkedom's elements hand out, for a page and one twice its size:
    // about twice as much in linear time, four times as much in quadratic.
    let proto = Object.getPrototypeOf(parseHTML("<p>x</p>").document.querySelector("p"));
    while (!Object.hasOwn(proto, "textContent")) proto = Object.getPrototypeOf(proto);
    const original = Object.getOwnPropertyDescriptor(proto, "textContent") as PropertyDescriptor;
    let gathered = 0;
    Object.defineProperty(proto, "textContent", {
      ...original,
      get() {
        const value = original.get?.call(this) as string | null;
        gathered += value?.length ?? 0;
        return value;
      },
    });
    const read = async (count: number) => {
      const html = `<html><body><div>${Array.from({ length: count }, (_, i) => `<p>p${i}</p>`).join("")}</div></body></html>`;
      gathered = 0;
      const paragraphs = text(await readHtml(html, "https://example.test/wide")).split("\n\n");
      assert.equal(paragraphs.length, count);
      assert.equal(paragraphs[0], "p0");
      assert.equal(paragraphs[count - 1], `p${count - 1}`);
      return gathered;
    };
    try {
      const once = await read(5_000);
      const twice = await read(10_000);
      assert.ok(once > 0, "no text was seen gathered");
      assert.ok(twice < once * 3, `${once} characters gathered for 5,000 paragraphs, ${twice} for 10,000`);
    } finally {
      Object.defineProperty(proto, "textContent", original);
    }
  });

  it("S16: a paragraph of 20,000 links is read whole, in order (its text is built in linear time)", async () => {
    // Built piece by piece, the paragraph was asked whether it ended with a line break before
    // each space: that copied all of it each time, 17 s for this page (bench/hardening/RESULTS.md).
    const count = 20_000;
    const links = Array.from({ length: count }, (_, i) => `<a href="/l${i}">link ${i}</a>`).join(" ");
    const outcome = await readHtml(
      `<html><body><article><p>Links: ${links}</p></article></body></html>`,
      "https://example.test/links",
    );
    const body = text(outcome);
    assert.ok(body.startsWith("Links: [link 0](https://example.test/l0) [link 1](https://example.test/l1) "));
    assert.ok(body.endsWith(`[link ${count - 1}](https://example.test/l${count - 1})`));
    assert.equal(body.match(/\]\(https:\/\/example\.test\/l\d+\)/g)?.length, count);
  });
});
