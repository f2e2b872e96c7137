/**
 * Pages whose markup does not start with `<html>` or has no `<body>` tag: browsers show their
 * text, and so must the reader (linkedom alone would give them an empty body).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseHTML } from "linkedom";
import { wellFormed } from "../../../src/web/providers/direct/document.js";
import { readHtml } from "../../../src/web/providers/direct/html.js";

const ARTICLE =
  "<p>Nach langer Pause geht das Blog wieder online, mit neuem Design und neuen Themen.</p><p>Der Anfang ist gemacht, weitere Beiträge folgen in den nächsten Wochen.</p>";

async function textOf(html: string): Promise<{ text: string; title?: string }> {
  const outcome = await readHtml(html, "https://blog.example/relaunch");
  return {
    text: (outcome.content[0] as { text: string }).text,
    ...(outcome.title ? { title: outcome.title } : {}),
  };
}

describe("direct reader on pages with a broken outline", () => {
  it("reads a page that a server warning precedes, without the warning", async () => {
    const html = `<br />\n<b>Warning</b>:  mysql_connect(): Access denied in <b>/www/blog/plugin.php</b> on line <b>12</b><br />\n<!DOCTYPE html><html lang="de"><head><title>Relaunch</title></head><body><article>${ARTICLE}</article></body></html>`;
    // The body a browser would give the page, with the article in it.
    const { document } = parseHTML(wellFormed(html));
    assert.match(document.body.textContent, /Der Anfang ist gemacht/);
    assert.equal(document.documentElement.getAttribute("lang"), "de");
    const { text, title } = await textOf(html);
    assert.match(text, /Der Anfang ist gemacht/);
    assert.doesNotMatch(text, /mysql_connect/);
    assert.equal(title, "Relaunch");
  });

  it("reads a page whose head comes without an html tag", async () => {
    const html = `<!DOCTYPE html><head><script src="/cmp.js"></script><title>Relaunch</title></head><body><div class="post">${ARTICLE}</div></body></html>`;
    assert.match(parseHTML(wellFormed(html)).document.body.textContent, /Der Anfang ist gemacht/);
    const { text, title } = await textOf(html);
    assert.match(text, /Nach langer Pause geht das Blog wieder online/);
    assert.equal(title, "Relaunch");
  });

  it("keeps the root's language when styles and metadata come before it", async () => {
    const outcome = await readHtml(
      `<!DOCTYPE html>\n<style>.a{color:red}</style>\n<title>Relaunch</title>\n<meta name="description" content="Neu">\n<html lang="de"><head></head><body><main>${ARTICLE}</main></body></html>`,
      "https://blog.example/relaunch",
    );
    assert.match((outcome.content[0] as { text: string }).text, /Der Anfang ist gemacht/);
    assert.equal(outcome.metadata?.language, "de");
    assert.equal(outcome.title, "Relaunch");
  });

  it("reads a page without a body tag", async () => {
    const { text } = await textOf(`<html><head><title>Relaunch</title></head>${ARTICLE}</html>`);
    assert.match(text, /weitere Beiträge folgen/);
  });

  it("leaves a page with the usual outline as it is", () => {
    const html = `<!doctype html>\n<!-- cached --><html><head><title>x</title></head><body>${ARTICLE}</body></html>`;
    assert.equal(wellFormed(html), html);
  });
});

describe("direct reader on a whole document pasted into a post", () => {
  const paragraphs = Array.from(
    { length: 8 },
    (_, i) =>
      `<p>Paragraph ${i + 1} of the post: a garden keeps its soil alive when leaves stay on the beds over winter and the worms take them down.</p>`,
  ).join("");
  // A converter's output kept as is: its doctype, html and body tags sit inside the post's block.
  const html = `<!DOCTYPE html><html lang="en"><head><title>Winter beds</title></head><body>
    <header><nav><a href="/">Home</a><a href="/garden">Garden</a></nav></header>
    <section class="hero"><h1>Winter beds</h1><p class="dek">Leave the leaves: what a garden gains from a messy winter.</p></section>
    <article class="post"><div class="sidebar-layout"><div class="wrap"><div class="sidebar-content"><!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.0 Transitional//EN" "http://www.w3.org/TR/REC-html40/loose.dtd">
    <html><body>${paragraphs}</body></html>
    <div class="share"><a href="https://share.example/?u=1">Share</a></div></div><aside class="sidebar"><p>Subscribe to the weekly letter.</p></aside></div></div></article>
    <footer><p>Garden Weekly</p></footer></body></html>`;

  it("reads the post's paragraphs as the block they are in, as a browser ignores the inner tags", async () => {
    const { text } = await textOf(html);
    assert.match(text, /^Paragraph 1 of the post/);
    assert.match(text, /Paragraph 8 of the post/);
    assert.doesNotMatch(text, /Leave the leaves|weekly letter/);
  });
});
