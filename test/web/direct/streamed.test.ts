/**
 * Pages streamed by React's server renderer: the shell comes first with empty templates where
 * parts will go (`B:x` boundaries with a "Loading…" fallback, `P:x` placeholders), and each part
 * follows at the end of the body in a hidden `div#S:x` that a script moves into place. The reader
 * runs no script; it must read each part where the page's script would put it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readHtml } from "../../../src/web/providers/direct/html.js";
import { inOrder, textOf } from "./reader-text.js";

const paragraph = (topic: string, n: number) =>
  `<p>${topic}, part ${n}: an index fund holds every stock of its index, so its return follows the market's, and its fees stay low because nobody picks the stocks.</p>`;

const page = (comments: boolean) => {
  const open = comments ? "<!--$?-->" : "";
  const close = comments ? "<!--/$-->" : "";
  return `<!DOCTYPE html><html lang="en"><head><title>Index funds</title></head><body>
  <header><nav><a href="/">Home</a><a href="/invest">Investing</a></nav></header>
  <main><article><h1>How to invest in index funds</h1>
    ${open}<template id="B:0"></template><div class="skeleton">Loading paragraph...</div>${close}
    <h2>Pick an index</h2>
    ${open}<template id="B:1"></template><div class="skeleton">Loading paragraph...</div>${close}
    <template id="P:2"></template>
  </article></main>
  <footer><p>Fool Weekly</p></footer>
  <div hidden id="S:1">${paragraph("Choosing", 1)}${paragraph("Choosing", 2)}</div>
  <div hidden id="S:0">${paragraph("Basics", 1)}${paragraph("Basics", 2)}${paragraph("Basics", 3)}</div>
  <div hidden id="S:2"><h2>Keep costs low</h2>${paragraph("Costs", 1)}</div>
  <div hidden id="S:9"><p>A part with no place on the page stays hidden, as the page's script would leave it.</p></div>
  <script>$RC("B:0","S:0");$RC("B:1","S:1");$RS("S:2","P:2")</script>
  </body></html>`;
};

describe("direct reader on pages streamed in parts", () => {
  it("reads each part in its place, without the fallbacks the parts replace", async () => {
    const text = textOf(await readHtml(page(true), "https://invest.example/index-funds"));
    inOrder(text, [
      "Basics, part 1",
      "Basics, part 3",
      "Pick an index",
      "Choosing, part 1",
      "Choosing, part 2",
      "Keep costs low",
      "Costs, part 1",
    ]);
    assert.doesNotMatch(text, /Loading paragraph|no place on the page/);
  });

  it("reads the parts in place on a page kept without its comments", async () => {
    const text = textOf(await readHtml(page(false), "https://invest.example/index-funds"));
    inOrder(text, ["Basics, part 1", "Pick an index", "Choosing, part 2", "Keep costs low"]);
  });
});

describe("direct reader on hostile streamed parts", () => {
  const prose =
    "<p>The page's own text, long enough to be read as its article: a reader returns it whatever the parts around it do.</p>".repeat(
      5,
    );

  it("leaves a part that holds its own place hidden, and reads the page", async () => {
    const html = `<html><body><main>${prose}<div hidden id="S:1"><p>Moved into itself</p><div><template id="B:1"></template></div></div></main></body></html>`;
    const text = textOf(await readHtml(html, "https://hostile.example/self"));
    assert.match(text, /The page's own text/);
    assert.doesNotMatch(text, /Moved into itself/);
  });

  it("places thousands of parts whose boundaries no comment closes", async () => {
    const count = 3000;
    const places = Array.from(
      { length: count },
      (_, i) => `<template id="B:${i.toString(36)}"></template><span>…</span>`,
    );
    const parts = Array.from(
      { length: count },
      (_, i) => `<div hidden id="S:${i.toString(36)}"><b>part${i}</b></div>`,
    );
    const html = `<html><body><main>${prose}<div>${places.join("")}</div></main>${parts.join("")}</body></html>`;
    const text = textOf(await readHtml(html, "https://hostile.example/many"));
    inOrder(text, ["The page's own text", "part0", "part1", `part${count - 1}`]);
  });
});
