/**
 * The direct reader on listings and catalogues: when their cards, not what an article extractor
 * keeps, are the page's content. Each page is small and written for the test.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readHtml } from "../../../src/web/providers/direct/html.js";
import { inOrder, textOf } from "./reader-text.js";

const talks = [
  "Caching at the edge without tears",
  "Schema migrations on a live database",
  "Profiling a slow build step by step",
  "What we learned from a year of on-call",
  "Feature flags that do not rot",
  "Reading flame graphs with confidence",
];

describe("direct reader: a page that states it is a list", () => {
  // A conference's programme: a featured talk of two paragraphs, then the list of talks, shorter
  // than three times the featured text; the page states a CollectionPage.
  const lead = (n: number) =>
    `<p>Part ${n} of the keynote abstract: the speaker walks through how the team moved its build farm to a shared cache, what broke on the way, and which measurements convinced the rest of the company that the move was worth the months it took.</p>`;
  const talk = (n: number, title: string) =>
    `<li class="talk"><h3><a href="/talks/${n}">${title}</a></h3><p>Room ${n}, 10:${n}0.</p><a class="button" href="/talks/${n}#save">Save</a></li>`;
  const page = `<!DOCTYPE html><html><head><title>Programme</title>
    <script type="application/ld+json">{"@context":"https://schema.org","@type":"CollectionPage","name":"Programme"}</script>
    </head><body><header><nav><a href="/">Home</a><a href="/tickets">Tickets</a></nav></header>
    <main><h1>Programme</h1><div class="keynote"><h2>Keynote</h2>${[1, 2].map(lead).join("")}</div>
    <ul class="talks">${talks.map((title, i) => talk(i + 1, title)).join("")}</ul></main>
    <footer><p>Buildconf is run by volunteers. Contact the organisers.</p></footer></body></html>`;

  it("reads every card, not only the featured prose the extraction kept", async () => {
    const outcome = await readHtml(page, "https://buildconf.example/programme");
    assert.equal(outcome.pageType, "listing");
    assert.equal(outcome.strategy, "cards");
    const text = textOf(outcome);
    inOrder(text, ["Programme", ...talks]);
    assert.ok(!text.includes("Contact the organisers"), text);
  });
});
