/**
 * Skip links ("Skip to main content") jump to an anchor of the same page for keyboard users; a
 * browser shows them only on focus, and no reading of any kind of page keeps them.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readHtml } from "../../../src/web/providers/direct/html.js";
import { textOf } from "./reader-text.js";

const PROSE =
  "<p>A pond keeps clear water when its plants take up what the fish leave behind, and a pump moves the water through a filter every hour of the day.</p>".repeat(
    6,
  );

/** An article whose skip link sits inside the block the extractor keeps. */
const article = (skip: string, inner = "") =>
  `<!doctype html><html lang="en"><head><title>Pond</title></head><body><header><a href="/">Home</a></header>
<article>${skip}<h1>Tuning the garden pond</h1>${PROSE}
<p>Jump to <a href="#care">the care section</a> below for the winter steps.</p>${inner}
<h2 id="care">Care</h2><p>In winter the pump is taken out and stored dry until spring comes back again.</p>
</article></body></html>`;

/** A page of sections with no heading to start from: every block of the body is read. */
const sections = (skip: string) =>
  `<!doctype html><html lang="en"><head><title>Pond care</title></head><body>${skip}
<section><h2>Plans</h2><p>A basic plan for small ponds, with a visit every week.</p></section>
<section><h2>Care</h2><p>Full care for large ponds, the filter included.</p></section>
<section><h2>Questions</h2><p>We come every week in spring and in summer.</p></section></body></html>`;

const SKIPS = [
  '<a class="skip-link" href="#main">Skip to main content</a>',
  '<div><a href="#nav">Skip navigation links</a></div>',
  '<a href="#content" class="sr-only">Zum Inhalt springen</a>',
  '<ul class="skips"><li><a href="#main">Aller au contenu</a></li><li><a href="#main">Saltar al contenido</a></li></ul>',
];

describe("direct reader on skip links", () => {
  for (const skip of SKIPS) {
    it(`leaves out ${skip} from an article and from a page of sections`, async () => {
      const read = textOf(await readHtml(article(skip), "https://pond.example/care"));
      assert.match(read, /stored dry until spring/);
      assert.doesNotMatch(read, /skip|inhalt|contenu|contenido/i);
      const sectioned = textOf(await readHtml(sections(skip), "https://pond.example/plans"));
      assert.match(sectioned, /Full care for large ponds/);
      assert.doesNotMatch(sectioned, /skip|inhalt|contenu|contenido/i);
    });
  }

  it("keeps a same-page link that is the text's, and a skip-worded link to another page", async () => {
    const html = article(
      "",
      '<p>Anglers in a hurry can read <a href="/season">Skip to the end of the season</a>, our short guide for the cold months.</p>',
    );
    const text = textOf(await readHtml(html, "https://pond.example/care"));
    assert.match(text, /Jump to the care section below/);
    assert.match(text, /Skip to the end of the season/);
  });
});
