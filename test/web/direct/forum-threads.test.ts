/**
 * The direct reader on discussion threads beyond the platforms' post markup: quotes of earlier
 * posts, comment threads named by their class words, Q&A pages. Each page is small and written
 * for the test in the markup its kind of site uses.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readHtml } from "../../../src/web/providers/direct/html.js";
import { inOrder, textOf } from "./reader-text.js";

/** A post in a XenForo theme's markup. */
const xenPost = (author: string, date: string, body: string) =>
  `<article class="message message--post" data-author="${author}">
    <div class="message-cell message-cell--user"><h4 class="message-name"><a href="/members/1/" class="username">${author}</a></h4></div>
    <div class="message-cell message-cell--main"><header class="message-attribution"><time datetime="2026-01-01">${date}</time></header>
    <article class="message-body js-selectToQuote"><div class="bbWrapper">${body}</div></article></div></article>`;

/** A XenForo quote block: its title names the quoted author, its content the quoted words. */
const xenQuote = (author: string, words: string) =>
  `<blockquote class="bbCodeBlock bbCodeBlock--expandable bbCodeBlock--quote"><div class="bbCodeBlock-title"><a href="/goto/post?id=1">${author} said:</a></div>
    <div class="bbCodeBlock-content"><div class="bbCodeBlock-expandContent">${words}</div><div class="bbCodeBlock-expandLink"><a>Click to expand...</a></div></div></blockquote>`;

describe("direct reader: quotes in a thread", () => {
  const opening =
    "My sourdough rises well overnight in the fridge but spreads flat on the stone as soon as it is scored and baked at high heat.";
  const outside = "Shape tightly and bake cold straight from the fridge, the book says on page forty.";
  const html = `<!DOCTYPE html><html><head><title>Flat loaves</title></head><body><div class="p-body">
    ${xenPost("RyeRita", "Jan 1, 2026", opening)}
    ${xenPost("crumbshot", "Jan 1, 2026", `${xenQuote("RyeRita", opening)}That is over-proofing: shorten the cold retard to twelve hours.`)}
    ${xenPost("OvenSpring", "Jan 2, 2026", `${xenQuote("Hamelman", outside)}Try a tighter shape before anything else.`)}
    </div></body></html>`;

  it("cuts a quote of an earlier post to its attribution, and keeps a quote from elsewhere whole", async () => {
    const text = textOf(await readHtml(html, "https://bakers.example/threads/flat.7"));
    assert.equal(text.split("spreads flat on the stone").length - 1, 1, text);
    inOrder(text, [
      "RyeRita · Jan 1, 2026",
      "spreads flat on the stone",
      "crumbshot · Jan 1, 2026",
      "RyeRita said: …",
      "shorten the cold retard",
      "OvenSpring · Jan 2, 2026",
      "Hamelman said:",
      "bake cold straight from the fridge",
      "tighter shape",
    ]);
  });
});
