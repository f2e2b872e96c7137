/**
 * Regression cases of the direct reader's main-content extraction: the article's text stays,
 * the furniture around it inside the article block goes (share bar, byline line, newsletter
 * box, "related" list under its heading, author box, copyright, comments, navigation).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { readHtml } from "../../../src/web/providers/direct/html.js";

const fixture = (name: string) => readFileSync(new URL(`fixtures/${name}`, import.meta.url), "utf8");

describe("direct reader main content", () => {
  it("keeps the article and leaves out the furniture inside and around it", async () => {
    const outcome = await readHtml(fixture("article-furniture.html"), "https://lokalblatt.example/radwege");
    const text = (outcome.content[0] as { text: string }).text;
    for (const kept of [
      "Der Stadtrat hat am Dienstagabend mit großer Mehrheit beschlossen",
      "Besonders umstritten war die Verbindung zwischen Bahnhof und Universität",
      "Baubeginn ist für den Herbst geplant.",
      "![Ein neuer Radweg an der Hauptstraße]",
    ]) {
      assert.ok(text.includes(kept), `missing: ${kept}\n${text}`);
    }
    for (const dropped of [
      "Facebook",
      "Von Erika Muster",
      "Newsletter",
      "Das könnte Sie auch interessieren",
      "Neue Buslinie ab Montag",
      "schreibt seit 2010",
      "Alle Rechte vorbehalten",
      "Endlich! Das war überfällig.",
      "Impressum",
      "Foto: Max Beispiel",
    ]) {
      assert.ok(!text.includes(dropped), `kept: ${dropped}\n${text}`);
    }
  });

  it("never drops a block that holds most of the text, whatever its class says", async () => {
    const html = `<html><body><div class="post-share-wrapper"><article>${"<p>Substantial article text that must stay. </p>".repeat(20)}</article></div></body></html>`;
    const text = ((await readHtml(html, "https://blog.example/p")).content[0] as { text: string }).text;
    assert.equal(text.match(/Substantial article text that must stay\./g)?.length, 20);
  });

  it("takes the block the page names as its article body when Readability picks a comment form", async () => {
    const outcome = await readHtml(
      fixture("wordpress-comment-form.html"),
      "https://wissen-im-ohr.example/folge-41",
    );
    const text = (outcome.content[0] as { text: string }).text;
    assert.ok(text.startsWith("Auch auf dem [Wissenstag 2023]"), text);
    assert.ok(text.includes("Download: [mp3](https://media.wissen-im-ohr.example/folge-41.mp3)"), text);
    for (const dropped of [
      "Du kommentierst mit deinem Gast-Konto",
      "Abmelden, ändern",
      "Teilen mit",
      "Twitter",
    ]) {
      assert.ok(!text.includes(dropped), `kept: ${dropped}\n${text}`);
    }
  });

  it("leaves out image captions and keeps the image with its alt text, unless captions are the text", async () => {
    const paragraphs =
      "<p>Die Gemeinde hat den alten Bahnhof nach zwei Jahren Umbau als Bürgerhaus eröffnet, mit Café, Bibliothek und Räumen für Vereine.</p>".repeat(
        4,
      );
    const figure = `<figure><img src="/bahnhof.jpg" alt="Der umgebaute Bahnhof"><figcaption>Der umgebaute Bahnhof am Eröffnungstag. Foto: Stadtarchiv</figcaption></figure>`;
    const article = await readHtml(
      `<html><body><article>${paragraphs}${figure}${paragraphs}</article></body></html>`,
      "https://blatt.example/a",
    );
    const text = (article.content[0] as { text: string }).text;
    assert.ok(text.includes("![Der umgebaute Bahnhof](https://blatt.example/bahnhof.jpg)"), text);
    assert.ok(!text.includes("am Eröffnungstag"), text);

    const photos = [
      "Der Marktplatz im Nebel kurz nach Sonnenaufgang, noch ohne Stände",
      "Die Brücke über die Saale, von der Altstadt aus gesehen",
      "Das Rathaus mit seinem neuen Dach aus Schiefer, frisch gedeckt",
    ];
    const gallery = photos
      .map(
        (caption, index) =>
          `<figure><img src="/${index}.jpg" alt=""><figcaption>${caption}</figcaption></figure>`,
      )
      .join("");
    const galleryText = (
      (
        await readHtml(
          `<html><body><article><h1>Bilder der Woche</h1><p>Unsere Leser haben fotografiert.</p>${gallery}</article></body></html>`,
          "https://blatt.example/g",
        )
      ).content[0] as { text: string }
    ).text;
    for (const caption of photos)
      assert.ok(galleryText.includes(caption), `missing: ${caption}\n${galleryText}`);
  });

  it("leaves out a labelled link to another article inside the text, not a sentence with a link", async () => {
    const body =
      "<p>Der Landkreis will bis 2026 alle Schulen an das Glasfasernetz anschließen, sagte der Landrat am Montag vor dem Kreistag.</p>".repeat(
        3,
      );
    const html = `<html><body><article>${body}<p>Auch spannend: <a href="/breitband-dörfer">Warum Dörfer beim Breitband warten</a></p><p>Kosten: <a href="/haushalt">rund 40 Millionen Euro aus dem Kreishaushalt</a>, dazu kommen Fördermittel des Landes, deren Höhe noch offen ist und im Frühjahr feststehen soll.</p>${body}</article></body></html>`;
    const text = (
      (await readHtml(html, "https://kreisblatt.example/glasfaser")).content[0] as { text: string }
    ).text;
    assert.ok(!text.includes("Warum Dörfer beim Breitband warten"), text);
    assert.ok(text.includes("Fördermittel des Landes"), text);
  });

  it("puts back the lead that sits in the article's header, once, above the body", async () => {
    const outcome = await readHtml(fixture("news-lead.html"), "https://nordkurier.example/fernwaerme");
    const text = (outcome.content[0] as { text: string }).text;
    const lead = "Rund 12.000 Haushalte zahlen ab Januar weniger für ihre Heizung";
    assert.ok(text.startsWith(lead), text);
    assert.equal(text.split(lead).length, 2, text);
    assert.ok(text.includes("Der Aufsichtsrat der Stadtwerke hat die neuen Preise"), text);
    assert.ok(!text.includes("Lokales"), text);
  });

  it("takes no block named summary below the article's first long paragraph as its lead", async () => {
    const paragraph =
      "Die Kreisverwaltung hat am Dienstag den Entwurf für den Nahverkehrsplan vorgestellt, der bis 2030 gelten soll und mehr Busse am Abend vorsieht. Die Gemeinden können bis Ende Januar Stellung nehmen, danach entscheidet der Kreistag.";
    const body = `<p>${paragraph}</p>`.repeat(4);
    const html = `<html><body><article><h1>Nahverkehrsplan</h1>${body}</article><div class="comment-list"><p class="entry-summary">Ein anderer Beitrag aus dem Archiv, der nur als Vorschau neben dem Artikel steht und nichts mit ihm zu tun hat.</p></div></body></html>`;
    const text = ((await readHtml(html, "https://kreis.example/plan")).content[0] as { text: string }).text;
    assert.ok(!text.includes("Ein anderer Beitrag aus dem Archiv"), text);
  });

  it("leaves out a paragraph that is only a link to another article", async () => {
    const body =
      "<p>Die Feuerwehr rückte am Sonntagmorgen zu einem Brand in einer Lagerhalle am Hafen aus, verletzt wurde niemand, der Schaden ist hoch.</p>".repeat(
        3,
      );
    const html = `<html><body><article>${body}<p><a href="/brand-2022">Großbrand im Hafen hält Feuerwehr zwei Tage in Atem</a></p><p>Mehr dazu im <a href="/liveblog">Liveblog der Redaktion</a>, den wir laufend aktualisieren und in dem die Polizei am Abend eine erste Bilanz ziehen will.</p>${body}</article></body></html>`;
    const text = ((await readHtml(html, "https://hafenblatt.example/brand")).content[0] as { text: string })
      .text;
    assert.ok(!text.includes("Großbrand im Hafen"), text);
    assert.ok(text.includes("[Liveblog der Redaktion](https://hafenblatt.example/liveblog)"), text);
  });

  it("leaves out a blog post's disclosure, credit, advert label, follow and rating prompts, comment policy and post meta line", async () => {
    const outcome = await readHtml(fixture("blog-post-furniture.html"), "https://muddyfork.example/no-dig");
    const text = (outcome.content[0] as { text: string }).text;
    for (const kept of [
      "Three winters ago we stopped turning the soil on plot 14.",
      "![Four raised beds covered in dark compost]",
      "It is not free of work.",
      "the time we used to spend digging now goes into sowing and picking.",
    ]) {
      assert.ok(text.includes(kept), `missing: ${kept}\n${text}`);
    }
    for (const dropped of [
      "This post contains references to products",
      "Photograph by",
      "Advertisement",
      "Was this article helpful?",
      "Follow The Muddy Fork",
      "Comments are moderated",
      "This entry was posted in",
      "You must be logged in",
    ]) {
      assert.ok(!text.includes(dropped), `kept: ${dropped}\n${text}`);
    }
  });

  it("leaves out page widgets' labels: reading time, view counts, load more, back links, cookie notes", async () => {
    const paragraph =
      "<p>The county council voted on Tuesday to keep the night bus running through the winter, after more than two thousand residents signed a petition to save it.</p>";
    const html = `<html><body><article><h1>Night bus saved</h1><span class="rt">4 min read</span>${paragraph.repeat(3)}<div class="counter">Views: 1204</div><p>This website uses cookies to improve your experience.</p>${paragraph}<a class="more" href="/news">Back to all news</a><button>Load more</button></article></body></html>`;
    const text = ((await readHtml(html, "https://county.example/night-bus")).content[0] as { text: string })
      .text;
    assert.equal(text.match(/The county council voted on Tuesday/g)?.length, 4, text);
    for (const dropped of ["4 min read", "Views: 1204", "uses cookies", "Back to all news", "Load more"]) {
      assert.ok(!text.includes(dropped), `kept: ${dropped}\n${text}`);
    }
  });

  it("keeps an article's sentences about newsletters, and drops a call to sign up for one", async () => {
    const prose =
      "<p>I run a small studio that helps writers reach readers, and most of those writers send a letter by email every week to the people who follow them.</p>".repeat(
        3,
      );
    const html = `<html><body><article><h1>Who reads your letter</h1>${prose}
      <p>The newsletter industry has never been healthier, on paper:</p>
      <ul><li>One paper added 680,000 newsletter readers in a single year.</li><li>Half of readers leave newsletters because they get too many.</li></ul>
      <h2>What this means for newsletter writers</h2>${prose}
      <p>Sign up for our free weekly newsletter.</p>
      <p>Get the newsletter in your inbox every Friday</p></article></body></html>`;
    const text = ((await readHtml(html, "https://letters.example/who-reads")).content[0] as { text: string })
      .text;
    for (const kept of [
      "The newsletter industry has never been healthier",
      "680,000 newsletter readers",
      "leave newsletters because",
      "What this means for newsletter writers",
    ])
      assert.ok(text.includes(kept), `missing: ${kept}\n${text}`);
    for (const dropped of ["Sign up for our free weekly newsletter", "in your inbox every Friday"])
      assert.ok(!text.includes(dropped), `kept: ${dropped}\n${text}`);
  });
  it("drops the writer's box at an article's end, and keeps an article's own heading about its author", async () => {
    const prose =
      "<p>The garden beds were dug in early spring, when the soil was still cold and wet under the boards, and the first seedlings went in a week later.</p>".repeat(
        3,
      );
    const box = `<div class="box"><h2>About the Author</h2><div><img src="/p.jpg" alt="photo of Ann Gray">
      <p>Ann Gray is the senior editor of the gardening pages and has grown vegetables for twenty years.</p>
      <a href="/authors/ann-gray">View all posts by Ann Gray</a></div></div>`;
    const html = `<html><body><article><h1>Raised beds in a wet spring</h1>${prose}
      <p>What we learned from the first harvest is below, bed by bed.</p>${prose}${box}
      <p>About the reviewer:</p><p>Ben Lowe checked the article's advice on soil.</p></article></body></html>`;
    const text = ((await readHtml(html, "https://garden.example/raised-beds")).content[0] as { text: string })
      .text;
    assert.ok(text.includes("the first seedlings went in a week later"), text);
    assert.ok(text.includes("What we learned from the first harvest"), text);
    for (const dropped of [
      "About the Author",
      "Ann Gray is the senior editor",
      "View all posts",
      "About the reviewer",
      "Ben Lowe",
    ])
      assert.ok(!text.includes(dropped), `kept: ${dropped}\n${text}`);

    const essay =
      "<p>His letters, written over forty years to his publisher and friends, show a man who doubted every book he finished and rewrote most of them twice before they went to print.</p>".repeat(
        12,
      );
    const own = `<html><body><article><h1>The novelist's letters</h1><p>A new edition collects them.</p>
      <h2>About the author</h2>${essay}</article></body></html>`;
    const kept = ((await readHtml(own, "https://books.example/letters")).content[0] as { text: string }).text;
    assert.ok(kept.includes("About the author") && kept.includes("rewrote most of them twice"), kept);
  });

  it("keeps an article's FAQ questions written as the buttons that open their answers, not other buttons", async () => {
    const contents = `<div class="toc"><button aria-expanded="true" aria-controls="toc"><h2>On this page</h2></button><div id="toc"><nav><a href="#repairs">Repairs</a> <a href="#questions">Questions</a></nav></div></div>`;
    const para = (text: string) =>
      `<p>${text} The council will publish the figures each spring, ward by ward, so that residents can see where the money went and which streets come next on the list of repairs.</p>`;
    const faq = (id: string, question: string, answer: string) =>
      `<div class="faq-item"><button class="faq-toggle" aria-expanded="false" aria-controls="${id}">${question}</button><div id="${id}" class="faq-answer"><p>${answer}</p></div></div>`;
    const page = `<!DOCTYPE html><html lang="en"><head><title>Pothole repairs: what changes</title></head><body>
      <article><h1>Pothole repairs: what changes this year</h1>${contents}
      ${para("The city doubles its budget for road repairs this year.")}
      ${para("Crews will work at night on the main roads to keep traffic moving during the day.")}
      ${para("Side streets are repaired in the order residents report them through the new form.")}
      <h2>Questions</h2>
      ${faq("q1", "How do I report a pothole?", "Through the city's form, with a photo and the nearest house number.")}
      ${faq("q2", "Who pays for a damaged tyre?", "The city, when the hole was reported and left open for more than a week.")}
      <div class="faq-item"><button aria-expanded="false" aria-controls="q3"><h3>When will my street be next?</h3></button><div id="q3" hidden></div></div>
      <button aria-expanded="false" aria-controls="more">Show more</button><button>Subscribe to updates</button>
      </article></body></html>`;
    const outcome = await readHtml(page, "https://city.example/news/potholes");
    const text = (outcome.content[0] as { text: string }).text;
    assert.equal(outcome.strategy, "article");
    let at = 0;
    for (const part of [
      "How do I report a pothole?",
      "with a photo and the nearest house number",
      "Who pays for a damaged tyre?",
      "left open for more than a week",
    ]) {
      const found = text.indexOf(part, at);
      assert.ok(found >= 0, `missing after ${at}: ${part}\n${text}`);
      at = found + part.length;
    }
    // A question whose answer the page does not serve labels nothing.
    for (const control of [
      "Show more",
      "Subscribe to updates",
      "On this page",
      "When will my street be next?",
    ])
      assert.ok(!text.includes(control), `kept: ${control}\n${text}`);
  });

  it("leaves out the site's licence notice under a page, and keeps the page's own words about licences", async () => {
    const prose =
      "<p>The model calls functions: give it the tools' descriptions, and it answers with the call to make and its arguments, which your code runs before it asks again.</p>".repeat(
        4,
      );
    const html = `<html><body><article><h1>Function calling</h1>${prose}
      <p>The weights are licensed under open terms that allow commercial use, so you can fine-tune and deploy the model in your own products.</p>
      <p>Except as otherwise noted, the content of this page is licensed under the Creative Commons Attribution 4.0 License, and code samples are licensed under the Apache 2.0 License. For details, see the Site Policies. Java is a registered trademark of Oracle and/or its affiliates.</p>
      </article></body></html>`;
    const text = (
      (await readHtml(html, "https://models.example/docs/calling")).content[0] as { text: string }
    ).text;
    assert.ok(text.includes("The weights are licensed under open terms"), text);
    assert.ok(!text.includes("content of this page is licensed"), text);
  });
});
