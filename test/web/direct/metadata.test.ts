/**
 * What a page states about itself reaches the envelope's metadata, and nothing is invented.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readHtml } from "../../../src/web/providers/direct/html.js";

const ARTICLE = `<p>${"The body of the article, long enough to be the main content. ".repeat(12)}</p>`;

describe("direct reader metadata", () => {
  it("reads title, byline, date, language, canonical URL and site name from meta, Open Graph and JSON-LD", async () => {
    const html = `<!doctype html><html lang="de-DE"><head>
      <title>Ein Artikel | Beispielzeitung</title>
      <meta property="og:title" content="Ein Artikel">
      <meta property="og:site_name" content="Beispielzeitung">
      <link rel="canonical" href="/artikel/1">
      <script type="application/ld+json">{"@context":"https://schema.org","@graph":[
        {"@type":"NewsArticle","headline":"Ein Artikel","datePublished":"2024-03-05T08:30:00+01:00",
         "author":[{"@type":"Person","name":"Erika Muster"},{"@type":"Person","name":"Max Beispiel"}]}]}</script>
      </head><body><article><h1>Ein Artikel</h1>${ARTICLE}</article></body></html>`;
    const outcome = await readHtml(html, "https://zeitung.example/artikel/1?utm=x");
    assert.equal(outcome.title, "Ein Artikel");
    assert.deepEqual(outcome.metadata, {
      byline: "Erika Muster, Max Beispiel",
      published: "2024-03-05T08:30:00+01:00",
      language: "de-DE",
      canonicalUrl: "https://zeitung.example/artikel/1",
      siteName: "Beispielzeitung",
    });
  });

  it("meta tags alone are enough; a page that states nothing gets no metadata", async () => {
    const stated = await readHtml(
      `<html><head><meta name="author" content="A. Writer"><meta property="article:published_time" content="2023-11-02">
       <meta property="og:locale" content="fr_FR"></head><body><article>${ARTICLE}</article></body></html>`,
      "https://blog.example/post",
    );
    assert.deepEqual(stated.metadata, { byline: "A. Writer", published: "2023-11-02", language: "fr-FR" });
    const silent = await readHtml(
      `<html><head><meta name="date" content="last tuesday"><meta name="author" content="https://blog.example/me"></head><body><article>${ARTICLE}</article></body></html>`,
      "https://blog.example/post",
    );
    assert.equal(silent.metadata, undefined);
  });
});
