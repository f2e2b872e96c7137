/**
 * The direct reader on service pages (a company's or a product's landing page): every block of
 * the page is read, whatever markup holds it, and its furniture stays out. Each case is a
 * small page written for the test.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readHtml } from "../../../src/web/providers/direct/html.js";
import { inOrder, textOf } from "./reader-text.js";

const paragraph = (topic: string) =>
  `<p>${topic} is planned with you in a first call, priced before any work starts, and reviewed every quarter against the goals you set, so that the work stays tied to what your business needs and nothing is billed that you did not agree to in writing beforehand.</p>`;

const card = (title: string, text: string) => `<div class="card"><h3>${title}</h3><span>${text}</span></div>`;

/**
 * A consultancy's service page of `<div>` blocks, no date or byline: a hero, cards of
 * services, a story in long paragraphs (the one block an article extractor keeps), an FAQ.
 */
const consultancy = (around = "") => `<!DOCTYPE html><html lang="en"><head>
  <title>Data consulting | Northwind Advisory</title></head><body>
  <header><a href="/">Northwind</a><nav><a href="/services">Services</a><a href="/contact">Contact</a></nav></header>
  ${around}<div class="page">
    <div class="hero"><h1>Data consulting for mid-sized manufacturers</h1><span>From the machine floor to the board report.</span></div>
    <div class="services"><h2>What we do</h2><div class="grid">
      ${card("Sensor data audits", "We list what your machines already record and what nobody reads yet.")}
      ${card("Data platforms", "One warehouse for production, quality and sales figures, run in your own cloud.")}
      ${card("Shift reports", "Each shift lead gets the three figures that matter on one screen at handover.")}
      ${card("Forecasting", "Orders and material needs for the next quarter, with the error of last quarter's forecast.")}
      ${card("Training", "Your engineers learn to keep the pipelines running without us after the first year.")}
      ${card("Quality checks", "Scrap and rework figures tied to the machine and the shift that produced them.")}
      ${card("Energy use", "What each line draws per part made, measured against the contract's price of power.")}
    </div></div>
    <div class="story"><h2>How we work</h2>${["Strategy", "Delivery", "Review"].map(paragraph).join("")}</div>
    <div class="faq"><h2>Questions</h2><dl><dt>Do you work on site?</dt><dd>Yes: the first two weeks are spent at your plant, with your shift leads.</dd><dt>Who owns the code?</dt><dd>You do, from the first commit, in a repository of your own.</dd><dt>What does it cost?</dt><dd>A fixed price per phase, agreed before the phase starts.</dd></dl></div>
  </div>
  <footer><p>Northwind Advisory GmbH, Hamburg. Imprint. Privacy.</p></footer></body></html>`;

describe("direct reader: service pages", () => {
  it("reads every block of a landing page built of <div>s, not one block of it", async () => {
    const outcome = await readHtml(consultancy(), "https://northwind.example/data");
    const text = textOf(outcome);
    inOrder(text, [
      "Data consulting for mid-sized",
      "Sensor data audits",
      "Shift reports",
      "Strategy is planned",
      "Review is planned",
      "Who owns the code",
    ]);
    for (const dropped of ["Contact", "Imprint"])
      assert.ok(!text.includes(dropped), `kept: ${dropped}\n${text}`);
    assert.equal(outcome.strategy, "sections");
    assert.equal(outcome.pageType, "service");
  });

  it("reads a page that states a publication date as an article", async () => {
    const dated = consultancy().replace(
      "</head>",
      '<meta property="article:published_time" content="2026-03-02T09:00:00Z"></head>',
    );
    const outcome = await readHtml(dated, "https://northwind.example/data");
    assert.equal(outcome.pageType, "article");
    assert.notEqual(outcome.strategy, "sections");
    assert.ok(textOf(outcome).includes("Strategy is planned"));
  });

  it("reads a WordPress site's standing page as sections, whatever dates its SEO plugin stamps on it", async () => {
    // The same stamps on a post (`postid-24`) keep it an article.
    const stamped = (bodyClass: string) =>
      consultancy()
        .replace(
          "</head>",
          '<meta property="article:published_time" content="2026-03-02T09:00:00Z"><script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","headline":"Data consulting"}</script></head>',
        )
        .replace("<body>", `<body class="${bodyClass}">`);
    const page = await readHtml(
      stamped("wp-singular page-template-default page page-id-24"),
      "https://northwind.example/data",
    );
    assert.equal(page.pageType, "service");
    assert.equal(page.strategy, "sections");
    inOrder(textOf(page), [
      "Data consulting for mid-sized",
      "Sensor data audits",
      "Review is planned",
      "Who owns the code",
    ]);
    const post = await readHtml(
      stamped("post-template-default single single-post postid-24"),
      "https://northwind.example/data",
    );
    assert.equal(post.pageType, "article");
    assert.notEqual(post.strategy, "sections");
  });

  it("keeps blocks a page builder names widgets: they are the page, not a sidebar", async () => {
    const page = consultancy()
      .replace(/<div class="(hero|services|story|faq)">/g, '<div class="builder-widget builder-widget-$1">')
      .replace(/<div class="card">/g, '<div class="builder-widget-wrap card">');
    const outcome = await readHtml(page, "https://northwind.example/data");
    const text = textOf(outcome);
    inOrder(text, [
      "Data consulting for mid-sized",
      "Sensor data audits",
      "Strategy is planned",
      "Who owns the code",
    ]);
    assert.equal(outcome.strategy, "sections");
  });

  it("keeps a page a form wraps whole, and drops a strip of logos", async () => {
    const logos = `<div class="clients">${["Acme", "Globex", "Initech", "Umbrella"]
      .map((name) => `<img src="/logos/${name}.svg" alt="${name} logo">`)
      .join("")}</div>`;
    const page = consultancy(logos)
      .replace(
        '<div class="page">',
        '<form id="form1" action="/data" method="post"><input type="hidden" name="state" value="x"><div class="page">',
      )
      .replace("<footer>", "</form><footer>");
    const outcome = await readHtml(page, "https://northwind.example/data");
    const text = textOf(outcome);
    inOrder(text, [
      "Data consulting for mid-sized",
      "Sensor data audits",
      "Strategy is planned",
      "Who owns the code",
    ]);
    assert.ok(!text.includes("Globex logo"), text);
    assert.equal(outcome.strategy, "sections");
  });

  it("drops a landing page's pictures, keeps one it presents in a figure", async () => {
    const page = consultancy()
      .replace(
        "<h2>How we work</h2>",
        '<h2>How we work</h2><img src="/team/anna.jpg" alt="Portrait of Anna Berg smiling">',
      )
      .replace(
        '<div class="faq">',
        '<figure><img src="/plant.png" alt="Dashboard of the Kiel plant"><figcaption>The Kiel plant</figcaption></figure><div class="faq">',
      );
    const outcome = await readHtml(page, "https://northwind.example/data");
    const text = textOf(outcome);
    assert.equal(outcome.strategy, "sections");
    assert.ok(!text.includes("Portrait of Anna"), text);
    assert.ok(text.includes("Dashboard of the Kiel plant"), text);
  });
  it("keeps the answers of a collapsed FAQ and the hidden slides of a carousel, not a carousel's clones", async () => {
    // Collapsed panels and slides not on screen are the page's content, one click away.
    const accordion = `<div class="faq"><h2>Questions</h2>
      <div class="accordion"><button aria-expanded="false">Do you work on site?</button>
        <div class="panel" aria-hidden="true" hidden><p>Yes: the first two weeks are spent at your plant, with your shift leads.</p></div>
        <button aria-expanded="false">Who owns the code?</button>
        <div class="panel" aria-hidden="true" hidden><p>You do, from the first commit, in a repository of your own.</p></div></div></div>
      <div class="quotes"><h2>What clients say</h2><div class="slick-track">
        <div class="slide slick-cloned" aria-hidden="true"><blockquote>Our scrap rate halved within a year of the audit.</blockquote></div>
        <div class="slide slick-active"><blockquote>The shift report is the first screen our leads open.</blockquote></div>
        <div class="slide" aria-hidden="true"><blockquote>Our scrap rate halved within a year of the audit.</blockquote></div>
        <div class="slide slick-cloned" aria-hidden="true"><blockquote>The shift report is the first screen our leads open.</blockquote></div>
      </div></div>`;
    const page = consultancy().replace(/<div class="faq">.*?<\/dl><\/div>/s, accordion);
    const outcome = await readHtml(page, "https://northwind.example/data");
    const text = textOf(outcome);
    assert.equal(outcome.strategy, "sections");
    inOrder(text, [
      "Data consulting for mid-sized",
      "the first two weeks are spent at your plant",
      "in a repository of your own",
      "The shift report is the first screen",
      "Our scrap rate halved",
    ]);
    for (const quote of ["Our scrap rate halved", "The shift report is the first screen"])
      assert.equal(text.split(quote).length, 2, `not once: ${quote}\n${text}`);
  });
  it("keeps an FAQ's questions that are the buttons opening their answers, not other buttons", async () => {
    const accordion = `<div class="faq"><h2>Questions</h2>
      <div class="item"><button aria-expanded="false" aria-controls="a1">Do you work on site?</button>
        <div id="a1" class="panel" hidden><p>Yes: the first two weeks are spent at your plant, with your shift leads.</p></div></div>
      <div class="item"><button class="toggle"><h3>Who owns the code?</h3></button>
        <div class="panel" hidden><p>You do, from the first commit, in a repository of your own.</p></div></div>
      <button aria-expanded="false">Show more</button><button>Book a call with us today</button></div>`;
    const page = consultancy().replace(/<div class="faq">.*?<\/dl><\/div>/s, accordion);
    const outcome = await readHtml(page, "https://northwind.example/data");
    const text = textOf(outcome);
    assert.equal(outcome.strategy, "sections");
    inOrder(text, [
      "Do you work on site?",
      "the first two weeks are spent at your plant",
      "Who owns the code?",
      "in a repository of your own",
    ]);
    for (const control of ["Show more", "Book a call"])
      assert.ok(!text.includes(control), `kept: ${control}\n${text}`);
  });
  it("weighs a page of parts with its collapsed panels: an FAQ's hidden answers are its parts", async () => {
    // Typed service (few long paragraphs, no <section>s); its answers make the parts outweigh the story.
    const answer = (topic: string) =>
      `<div class="panel" hidden><div>${topic}: we agree the scope in a first call, fix a price per phase before it starts, and send a written report after each phase that says what was done, what it cost and what comes next.</div></div>`;
    const questions = ["Site visits", "Code ownership", "Pricing", "Support", "Training", "Hosting"]
      .map((topic) => `<h3><button aria-expanded="false">${topic}?</button></h3>${answer(topic)}`)
      .join("");
    const page = `<!DOCTYPE html><html lang="en"><head><title>Data consulting | Northwind Advisory</title></head><body>
      <div class="hero"><h1>Data consulting for mid-sized manufacturers</h1><span>From the machine floor to the board report.</span></div>
      <div class="story"><h2>How we work</h2>${["Strategy", "Delivery"].map(paragraph).join("")}</div>
      <div class="faq"><h2>Questions</h2>${questions}</div></body></html>`;
    const outcome = await readHtml(page, "https://northwind.example/data");
    assert.equal(outcome.pageType, "service");
    assert.equal(outcome.strategy, "sections");
    inOrder(textOf(outcome), [
      "Data consulting for mid-sized",
      "Delivery is planned",
      "Site visits: we agree",
      "Hosting: we agree",
    ]);
  });
  it("weighs a reading by what the page shows: a hidden transcript does not make an article a page of sections", async () => {
    // Undated, with an article's many subheadings: read as sections only if they hold far more than it shows.
    const topics = [
      "Roof",
      "Kitchen",
      "Garden",
      "Hall",
      "Cellar",
      "Stairs",
      "Windows",
      "Heating",
      "Lights",
      "Doors",
    ];
    const transcript = Array.from(
      { length: 12 },
      (_, i) => `Spoken part ${i}: ${paragraph("The video")}`,
    ).join("");
    const page = `<!DOCTYPE html><html><head><title>Our club house</title></head><body>
      <header><a href="/">Club of friends</a><nav><a href="/club">Club</a><a href="/dates">Dates</a></nav></header>
      <div class="post"><h1>The new club house is open</h1>${topics.map((topic) => `<h2>${topic}</h2>${paragraph(topic)}`).join("")}
      <div class="transcript" hidden><h3>Transcript</h3><p>${transcript}</p></div></div>
      <footer>Club of friends, Lindenweg 3. Imprint.</footer></body></html>`;
    const outcome = await readHtml(page, "https://club.example/house");
    assert.equal(outcome.pageType, "article");
    assert.notEqual(outcome.strategy, "sections");
    assert.ok(textOf(outcome).includes("Doors is planned"), textOf(outcome));
  });
  it("reads a service page that marks no menu or footer as sections when they hold much more", async () => {
    // No landmark tags: the sections must hold half again the article reading, and all of it.
    const page = consultancy()
      .replace(/<header>(.*?)<\/header>/s, '<div class="top">$1</div>')
      .replace(/<nav>(.*?)<\/nav>/s, "<span>$1</span>")
      .replace(/<footer>(.*?)<\/footer>/s, '<div class="bottom">$1</div>')
      .replace(paragraph("Review"), "");
    const outcome = await readHtml(page, "https://northwind.example/data");
    const text = textOf(outcome);
    assert.equal(outcome.pageType, "service");
    assert.equal(outcome.strategy, "sections");
    inOrder(text, [
      "Data consulting for mid-sized",
      "Sensor data audits",
      "Delivery is planned",
      "Who owns the code",
    ]);
  });
  it("reads an older page that marks no menu or footer, and has no date, as an article", async () => {
    // Columns of <div>s, no landmark tags: a sections reading would keep the menu and the side column.
    const events = [
      "Spring fair on the market square",
      "Choir evening in the town hall",
      "Cycling tour to the lake",
      "Book swap in the library",
      "Summer party of the club",
      "Harvest market at the mill",
      "Lantern walk for the children",
      "Winter concert in the church",
    ]
      .map((event) => `<li><a href="/dates">${event}</a>: music, food and stalls run by the members.</li>`)
      .join("");
    const page = `<!DOCTYPE html><html><head><title>Our club house</title></head><body>
      <div class="col1"><a href="/">Home</a><br><a href="/club">Club</a><br><a href="/dates">Dates</a></div>
      <div class="col2"><h1>The new club house is open</h1>${["The roof", "The kitchen", "The garden"].map(paragraph).join("")}</div>
      <div class="col3"><b>Dates</b><ul>${events}</ul></div>
      <div class="bottom">Club of friends, Lindenweg 3. Imprint.</div></body></html>`;
    const outcome = await readHtml(page, "https://club.example/house");
    const text = textOf(outcome);
    assert.equal(outcome.pageType, "article");
    assert.notEqual(outcome.strategy, "sections");
    assert.ok(text.includes("The garden is planned"), text);
    assert.ok(!text.includes("Choir evening"), text);
  });
  it("reads an undated article with a few subheadings and a column of dates as an article, not as sections", async () => {
    // Four subheadings make an article's outline, not a page of parts: the column is not its text.
    const events = [
      "Spring fair on the market square",
      "Choir evening in the town hall",
      "Cycling tour to the lake",
      "Book swap in the library",
      "Summer party of the club",
      "Harvest market at the mill",
      "Lantern walk for the children",
      "Winter concert in the church",
    ]
      .map((event) => `<li><a href="/dates">${event}</a>: music, food and stalls run by the members.</li>`)
      .join("");
    const page = `<!DOCTYPE html><html><head><title>Our club house</title></head><body>
      <header><a href="/">Club of friends</a><nav><a href="/club">Club</a><a href="/dates">Dates</a></nav></header>
      <div class="col2"><h1>The new club house is open</h1>${["The roof", "The kitchen", "The garden", "The hall"].map((topic) => `<h2>${topic}</h2>${paragraph(topic)}`).join("")}</div>
      <div class="col3"><b>Dates</b><ul>${events}</ul></div>
      <footer>Club of friends, Lindenweg 3. Imprint.</footer></body></html>`;
    const outcome = await readHtml(page, "https://club.example/house");
    const text = textOf(outcome);
    assert.equal(outcome.pageType, "article");
    assert.notEqual(outcome.strategy, "sections");
    assert.ok(text.includes("The hall is planned"), text);
    assert.ok(!text.includes("Choir evening"), text);
  });
});
