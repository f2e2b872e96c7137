/**
 * The page's profile (profile.ts) stands for the queries the reader's first steps made on their
 * own: each of its answers must be the one linkedom's query gives, on markup that trips a naive
 * walk (a `<template>`'s content, attribute values in another case, a body that is itself a
 * navigation, elements before the body).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseHTML } from "linkedom";
import { settleBody } from "../../../src/web/providers/direct/document.js";
import { readHtml } from "../../../src/web/providers/direct/html.js";
import { pageProfile } from "../../../src/web/providers/direct/profile.js";

const PAGE = `<!DOCTYPE html><html lang="en"><head>
<title>Release notes</title>
<meta property="og:type" content="article"><meta name="generator" content="Hugo 0.120">
<meta name="description"><meta name="author" content="Ada Lovelace">
<link rel="alternate Canonical" href="/notes"><link rel="stylesheet" href="/site.css">
<script type="Application/LD+JSON">{"@type": "TechArticle", "headline": "Notes"}</script>
<script type="application/ld+json">{broken</script>
<a rel="Author" href="/ada">Ada in the head</a><p>Not in the body</p><pre>head</pre>
</head><body role="navigation">
<template><meta name="date" content="2024-01-01"><a href="/hidden">hidden</a><img src="/hidden.png"><section>in a template</section><time>1</time></template>
<div itemscope itemtype="https://schema.org/Offer https://schema.org/Thing"><p>An offer</p></div>
<section><h2>One</h2><p>Text</p><section><h3>Inner</h3></section></section>
<article><p>An article.</p><time itemprop="datePublished" datetime="2024-02-03">3 Feb</time></article>
<ul><li><a href="/a">A</a></li><li><a>no href</a></li></ul><main><img src="/b.png"></main>
</body><p>After the body</p><section>after</section></html>`;

const same = (found: readonly unknown[], queried: ArrayLike<unknown>) => {
  assert.equal(found.length, queried.length);
  Array.from(queried).forEach((element, at) => {
    assert.equal(found[at], element, `element ${at}`);
  });
};

describe("the page's profile answers as the queries it replaces", () => {
  const { document } = parseHTML(PAGE);
  settleBody(document);
  const profile = pageProfile(document);
  const body = document.body;

  it("finds the head's elements as document queries do, a template's content left out", () => {
    same(profile.metas, document.querySelectorAll("meta[content]"));
    assert.equal(profile.title, document.querySelector("title"));
    assert.equal(profile.relAuthor, document.querySelector('[rel="author"]'));
    assert.equal(profile.canonical, document.querySelector('link[rel~="canonical"]'));
    assert.equal(profile.ogType, document.querySelector('meta[property="og:type"]'));
    assert.equal(profile.generator, document.querySelector('meta[name="generator"]'));
    assert.equal(profile.publishedTime, document.querySelector('time[itemprop="datePublished"]'));
    same(profile.anchors, document.querySelectorAll("a[href]"));
    same(profile.images, document.querySelectorAll("img"));
    assert.equal(
      profile.statesPublished,
      document.querySelector(
        'meta[property="article:published_time"], meta[name="date"], meta[itemprop="datePublished"], [itemprop="datePublished"]',
      ) !== null,
    );
  });

  it("parses each JSON-LD script once, whatever the case of its type, and skips a broken one", () => {
    assert.deepEqual(profile.jsonLd, [{ "@type": "TechArticle", headline: "Notes" }]);
    const itemTypes = document.querySelectorAll("[itemtype]") as ArrayLike<{
      getAttribute(name: string): string | null;
    }>;
    assert.deepEqual(
      profile.itemTypes,
      Array.from(itemTypes, (element) => element.getAttribute("itemtype")),
    );
  });

  it("finds the body's elements as the body's queries do: under the body, not the body itself", () => {
    same(profile.body.sections, body.querySelectorAll("section"));
    same(profile.body.articles, body.querySelectorAll("article"));
    same(profile.body.paragraphs, body.querySelectorAll("p"));
    same(profile.body.blocks, body.querySelectorAll("ul, ol, div, section, main"));
    assert.equal(profile.body.hasPre, body.querySelector("pre code, pre") !== null);
    assert.equal(profile.body.hasNavigation, body.querySelector("nav, aside, [role='navigation']") !== null);
    assert.equal(profile.body.hasTime, body.querySelector("time") !== null);
  });

  it("gives the reader the same metadata as before: the canonical link, the author and the type", async () => {
    const outcome = await readHtml(PAGE, "https://docs.example/notes/2024");
    assert.equal(outcome.metadata?.canonicalUrl, "https://docs.example/notes");
    assert.equal(outcome.metadata?.published, "2024-02-03");
    assert.equal(outcome.pageType, "documentation");
    assert.deepEqual(outcome.links, ["https://docs.example/ada", "https://docs.example/a"]);
  });
});
