/**
 * The direct reader on kinds of page beyond the article: each case is a small page written for
 * the test in the markup its kind of site uses (a forum's script-free view, a forum theme's posts,
 * a page that a failed extraction would leave empty).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseHTML } from "linkedom";
import { readCards } from "../../../src/web/providers/direct/cards.js";
import { readHtml } from "../../../src/web/providers/direct/html.js";
import { toMarkdown } from "../../../src/web/providers/direct/markdown.js";
import { fixture, inOrder, textOf } from "./reader-text.js";

describe("direct reader: forum threads", () => {
  it("reads a thread carried in <noscript>, every post under its author line", async () => {
    const text = textOf(await readHtml(fixture("forum-noscript.html"), "https://bakers.example/t/812"));
    inOrder(text, [
      "RyeRita · March 2, 2026, 8:10am",
      "collapses flat the moment I score it",
      "starter doubles in six hours",
      "crumbshot · March 2, 2026, 9:40am",
      "That is over-proofing",
      "OvenSpring · March 3, 2026, 6:05pm",
      "poke test before baking",
    ]);
    for (const dropped of ["Terms of Service", "best viewed with JavaScript", "display: none"]) {
      assert.ok(!text.includes(dropped), `kept: ${dropped}\n${text}`);
    }
  });

  it("reads a forum theme's posts after a stray <![CDATA[ as a browser does, without signatures", async () => {
    const text = textOf(await readHtml(fixture("forum-messages.html"), "https://builders.example/threads/9"));
    inOrder(text, [
      "Quentin K · Nov 3, 2025",
      "stock fans whine at any speed above half",
      "Lena Voss · Nov 3, 2025",
      "Fluid dynamic bearing fans",
      "Quentin K · Nov 4, 2025",
      "the whine is gone",
    ]);
    assert.ok(!text.includes("too many cables"), text);
  });

  it("keeps a blog post whose comments carry posting microdata an article, not a thread", async () => {
    const comment = (who: string, said: string) =>
      `<li itemscope itemtype="https://schema.org/Comment"><span itemprop="author">${who}</span><div itemprop="text"><p>${said}</p></div></li>`;
    const html = `<html><head><title>Pruning apple trees</title></head><body><article><h1>Pruning apple trees</h1>
      ${"<p>Prune in late winter, while the tree is dormant, and never take more than a quarter of the canopy in one year. </p>".repeat(6)}
      </article><section class="comments"><ol>${comment("Ann", "Thanks, very clear.")}${comment("Bo", "Does this hold for pears?")}</ol></section></body></html>`;
    const text = textOf(await readHtml(html, "https://garden.example/pruning"));
    assert.equal(text.match(/Prune in late winter/g)?.length, 6, text);
  });

  it("leaves <noscript> out when the page has its own text", async () => {
    const html = `<html><body><article>${"<p>The council approved the new library budget on Tuesday after a long debate. </p>".repeat(5)}</article>
      <noscript><p>Please enable JavaScript to see the comments on this story and join the discussion with other readers of the paper.</p></noscript></body></html>`;
    const text = textOf(await readHtml(html, "https://paper.example/library"));
    assert.ok(text.includes("library budget"), text);
    assert.ok(!text.includes("enable JavaScript"), text);
  });
});

describe("direct reader: listings of cards", () => {
  const card = (n: number, title: string, line: string) =>
    `<article class="card">
      <h3 class="card__title"><a href="/releases/${n}">${title}</a></h3><p class="card__summary">${line}</p>
      <span class="card__date">May ${n}, 2026</span><button>Add to watchlist</button></article>`;
  const page = `<!DOCTYPE html><html><head><title>Releases</title></head><body>
    <header><nav><a href="/">Home</a><a href="/docs">Docs</a><a href="/community">Community</a></nav></header>
    <main><h1>Releases</h1><p>Every release of the Tern compiler, newest first, with what changed.</p>
    <form class="filters"><label>Sort by <select><option>Newest</option><option>Oldest</option></select></label><button>Apply filters</button></form>
    <div class="grid">
      ${card(5, "Tern 5.0: incremental builds", "Builds reuse unchanged modules, cutting rebuilds to a second.")}
      ${card(4, "Tern 4.2: faster type checks", "The checker caches generic instantiations across files.")}
      ${card(3, "Tern 4.1: source maps for macros", "Errors inside expanded macros point at the macro call.")}
      ${card(2, "Tern 4.0: a new module resolver", "Packages resolve through their exports map, as Node does.")}
      ${card(1, "Tern 3.9: the last 3.x release", "Security fixes only; upgrade to 4.0 for new work.")}
    </div>
    <div class="pagination"><a href="?page=1">1</a><a href="?page=2">2</a><a href="?page=2">Next page</a></div></main>
    <footer><p>Tern is released under the MIT licence. Contact the maintainers.</p></footer></body></html>`;

  it("keeps every card in order under the page's heading and introduction, without filters or pagination", async () => {
    const { document } = parseHTML(page);
    const text = toMarkdown(readCards(document.body)?.root);
    inOrder(text, [
      "Releases",
      "Every release of the Tern compiler",
      "Tern 5.0: incremental builds",
      "Builds reuse unchanged modules",
      "May 5, 2026",
      "Tern 4.2: faster type checks",
      "Tern 4.1: source maps for macros",
      "Tern 4.0: a new module resolver",
      "Tern 3.9: the last 3.x release",
      "Security fixes only",
    ]);
    for (const dropped of [
      "Sort by",
      "Apply filters",
      "Next page",
      "Add to watchlist",
      "MIT licence",
      "Community",
      "Screenshot",
    ])
      assert.ok(!text.includes(dropped), `kept: ${dropped}\n${text}`);
  });

  it("reads a listing whole through readHtml, whose one parse serves its cards and its extraction", async () => {
    const outcome = await readHtml(page, "https://tern.example/releases");
    assert.equal(outcome.pageType, "listing");
    inOrder(textOf(outcome), [
      "Tern 5.0: incremental builds",
      "Tern 4.2",
      "Tern 4.1",
      "Tern 4.0",
      "Tern 3.9",
    ]);
  });
});

describe("direct reader: a list the extraction cut to one card", () => {
  const names = [
    "Birch Hollow loop",
    "Quarry ridge",
    "Three lakes path",
    "Old mill track",
    "Heron marsh boardwalk",
    "Summit switchbacks",
    "Cedar creek walk",
    "Fox valley circuit",
  ];
  const featured = `<div class="trail trail-1 featured"><h3><a href="/trails/1">Birch Hollow loop</a></h3>
    <p>A walk of 3 kilometres from the birch car park. The loop crosses the birch wood on a boardwalk, climbs gently to a viewpoint over the reservoir and returns along the old railway line, which is level and dry in every season.</p>
    <p>Parking at the start is free. The café at the halfway point opens at weekends from Easter to October, and the trail club leads a guided walk here on the first Sunday of each month, starting at ten.</p>
    <p>In autumn the birches turn gold in the second half of October; the club asks walkers to stay on the boardwalk where the ground is boggy, since the wood floor is home to rare mosses.</p></div>`;
  // Whole cards are links, as on many listings: an article extractor drops them as link lists.
  const trail = (n: number, name: string) =>
    `<div class="trail trail-${n}"><a href="/trails/${n}"><h3>${name}</h3><p>A walk of ${n + 2} kilometres from the ${name.split(" ")[0]} car park, waymarked the whole way round.</p><span>${n + 3} km</span></a></div>`;
  const page = `<!DOCTYPE html><html><head><title>Trails near Millbrook</title></head><body>
    <header><nav><a href="/">Home</a><a href="/maps">Maps</a><a href="/events">Events</a></nav></header>
    <main><h1>Trails near Millbrook</h1><div class="intro"><p>Walks chosen by the trail club.</p></div>
    <div class="trails">${featured}${names
      .slice(1)
      .map((name, i) => trail(i + 2, name))
      .join("")}</div></main>
    <footer><p>Millbrook Trail Club, registered charity. Contact the volunteers.</p></footer></body></html>`;

  it("reads every card when the extraction kept one of them, on a page not typed a listing", async () => {
    const outcome = await readHtml(page, "https://trails.example/millbrook");
    assert.notEqual(outcome.pageType, "listing");
    // Cards, or the sections of a page without an article's signs: either holds every card.
    assert.ok(outcome.strategy === "cards" || outcome.strategy === "sections", outcome.strategy);
    const text = textOf(outcome);
    inOrder(text, [
      "Trails near Millbrook",
      "Walks chosen by the trail club",
      "Birch Hollow loop",
      "rare mosses",
      ...names.slice(1),
    ]);
    assert.ok(!text.includes("Contact the volunteers"), text);
  });

  it("keeps the introduction that sits in another block than the cards", () => {
    const { document } = parseHTML(page);
    inOrder(toMarkdown(readCards(document.body)?.root), [
      "Trails near Millbrook",
      "Walks chosen by the trail club",
      "Quarry ridge",
    ]);
  });
});

describe("direct reader: an article among cards", () => {
  it("keeps an article that states it is one an article, with its prose, not its related stories as cards", async () => {
    const story = (n: number) =>
      `<div class="related"><a href="/news/${n}">Related story number ${n} about the city budget and its vote</a><p>A short teaser for story ${n}, one line long.</p></div>`;
    const prose = (n: number) =>
      `<p>Paragraph ${n} of the council report: the budget vote was delayed again after members asked for an independent review of the transport spending, which the mayor's office said would take until spring.</p>`;
    const page = `<!DOCTYPE html><html><head><title>Budget vote delayed</title>
      <meta property="og:type" content="article"></head><body><main>
      <article><h1>Budget vote delayed</h1>${[1, 2, 3, 4].map(prose).join("")}</article>
      <section class="more">${[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map(story).join("")}</section>
      </main></body></html>`;
    const outcome = await readHtml(page, "https://news.example/budget");
    assert.equal(outcome.pageType, "article");
    assert.notEqual(outcome.strategy, "cards");
    inOrder(textOf(outcome), ["Paragraph 1 of the council report", "Paragraph 4 of the council report"]);
  });

  it("reads an article set among its site's teasers as its prose, never as the cards holding it", async () => {
    // A news site's page may set the story in the same blocks as the teasers around it: the
    // teasers' region then holds the whole story and more, yet a page typed article stays its prose.
    const teaser = (n: number) =>
      `<div class="block"><h3><a href="/news/${n}">Teaser ${n}: another story from the city desk today</a></h3><p>Teaser ${n} sums up another story of the day in a sentence or two, with a link to read it whole on its own page.</p></div>`;
    const prose = (n: number) =>
      `<p>Paragraph ${n} of the story: the council delayed the budget vote again after members asked for an independent review of the transport spending.</p>`;
    const page = `<!DOCTYPE html><html><head><title>Budget vote delayed</title>
      <meta property="og:type" content="article"></head><body><main>
      <div class="block"><h1>Budget vote delayed</h1>${[1, 2, 3, 4].map(prose).join("")}</div>
      ${Array.from({ length: 12 }, (_, n) => teaser(n + 1)).join("")}
      </main></body></html>`;
    const outcome = await readHtml(page, "https://news.example/budget");
    assert.equal(outcome.pageType, "article");
    assert.notEqual(outcome.strategy, "cards");
    inOrder(textOf(outcome), ["Paragraph 1 of the story", "Paragraph 4 of the story"]);
  });
});

describe("direct reader: when extraction finds almost nothing", () => {
  it("falls back to the whole body, cleaned of navigation, and says so", async () => {
    const items = Array.from({ length: 12 }, (_, i) => `<li><a href="/issue/${i}">Issue ${i}</a></li>`).join(
      "",
    );
    const html = `<!DOCTYPE html><html><head><title>Back issues</title></head><body>
      <nav><a href="/">Home</a> <a href="/about">About</a></nav>
      <main><h1>Back issues</h1><ul>${items}</ul></main></body></html>`;
    const outcome = await readHtml(html, "https://harbour.example/issues");
    const text = textOf(outcome);
    for (let i = 0; i < 12; i++)
      assert.ok(text.includes(`[Issue ${i}](https://harbour.example/issue/${i})`), text);
    assert.ok(!text.includes("About"), text);
    assert.match(
      outcome.warnings?.join("\n") ?? "",
      /whole page body, cleaned of navigation, was converted instead/,
    );
  });

  it("gives a page drawn by scripts no content, its stated description in the metadata, and says so", async () => {
    const html = `<!DOCTYPE html><html><head><title>Best first telescope?</title>
      <meta property="og:description" content="I am new to astronomy and would like advice on a first telescope for planets, on a budget of about 400 euros.">
      </head><body><section id="splash"><div class="dots"></div></section><section id="main"></section>
      <script src="/app.js"></script></body></html>`;
    const outcome = await readHtml(html, "https://stars.example/t/1555");
    assert.equal(textOf(outcome), "");
    assert.equal(outcome.strategy, "none");
    assert.equal(
      outcome.metadata?.description,
      "I am new to astronomy and would like advice on a first telescope for planets, on a budget of about 400 euros.",
    );
    const warnings = outcome.warnings?.join("\n") ?? "";
    assert.match(warnings, /extracted no text from the page: .*drawn by scripts/);
    assert.match(warnings, /description the page states about itself is in metadata\.description/);
  });

  it("says why when a page yields no text at all, never an empty success", async () => {
    const html = `<!DOCTYPE html><html><head><title>App</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`;
    const outcome = await readHtml(html, "https://app.example/");
    assert.equal(textOf(outcome), "");
    assert.equal(outcome.strategy, "none");
    assert.equal(outcome.metadata?.description, undefined);
    assert.match(outcome.warnings?.join("\n") ?? "", /extracted no text from the page: .*drawn by scripts/);
  });
});

/** A shop's footer: link columns under headings, a language list, a sign-up blurb. */
const SHOP_FOOTER = `<footer><div class="site-footer">
  <dl><dt><h5>Help</h5></dt><dd><a href="/help">Help Center</a>, <a href="/returns">Returns and refunds</a>, <a href="/report">Report a listing</a>, <a href="/recalls">Product recalls</a></dd></dl>
  <dl><dt><h5>Our sites in other languages</h5></dt><dd><a href="https://de.shop.example/">German</a>, <a href="https://fr.shop.example/">French</a>, <a href="https://es.shop.example/">Spanish</a>, <a href="https://it.shop.example/">Italian</a>, <a href="https://nl.shop.example/">Dutch</a></dd></dl>
  <dl><dt><h5>Browse by category</h5></dt><dd><a href="/c/garden">Garden tools</a>, <a href="/c/kitchen">Kitchen</a>, <a href="/c/lamps">Lamps and lighting</a>, <a href="/c/rugs">Rugs</a></dd></dl>
  <p>Copyright 2026 Shop Example. All rights reserved. Prices include value added tax where it applies.</p>
</div></footer>`;

describe("direct reader: a page served as a shell of its site's chrome", () => {
  it("returns no content when the HTML holds only the site's header, footer and notices", async () => {
    const html = `<!DOCTYPE html><html><head><title>Folding garden chair</title>
      <meta name="description" content="A folding garden chair of oiled oak, delivered flat.">
      </head><body><div style="display:none"><h1>Shop Example</h1></div>
      <header class="site-header"><a href="/">Shop Example</a><nav><a href="/c/garden">Garden</a><a href="/c/kitchen">Kitchen</a></nav><a href="/cart">Cart</a></header>
      <div id="root"></div>
      <div class="newsletter-signup"><h3>Stay in the loop</h3><p>Sign up for our newsletter and hear first about new arrivals, seasonal offers and the stories behind our makers.</p><form><input type="email"><button>Subscribe</button></form></div>
      <div class="cookie-banner"><p>We use cookies to make this site work and, with your consent, to measure how it is used.</p><button>Accept</button></div>
      ${SHOP_FOOTER}<script src="/app.js"></script></body></html>`;
    const outcome = await readHtml(html, "https://shop.example/item/1005");
    assert.equal(textOf(outcome), "");
    assert.equal(outcome.strategy, "none");
    assert.equal(outcome.metadata?.description, "A folding garden chair of oiled oak, delivered flat.");
    assert.match(
      outcome.warnings?.join("\n") ?? "",
      /holds almost no text: .*site's chrome, not the page's content/,
    );
  });

  it("reads a short page whose few sentences sit outside the chrome", async () => {
    const html = `<!DOCTYPE html><html><head><title>Order received</title></head><body>
      <header><a href="/">Shop Example</a><nav><a href="/c/garden">Garden</a></nav></header>
      <div class="content"><h2>Thank you, your order is on its way</h2>
      <p>We have sent a confirmation to your e-mail address. Your chair leaves our workshop within three working days.</p></div>
      ${SHOP_FOOTER}</body></html>`;
    const outcome = await readHtml(html, "https://shop.example/order/received");
    const text = textOf(outcome);
    assert.ok(text.includes("Your chair leaves our workshop within three working days."), text);
    assert.notEqual(outcome.strategy, "none");
  });

  it("is no shell when the main region a page marks holds text, however little", async () => {
    const items = ["Spring", "Summer", "Autumn"].map(
      (season) => `<li><a href="/issues/${season}">${season}</a></li>`,
    );
    const html = `<!DOCTYPE html><html><head><title>Back issues</title></head><body>
      <main><h1>Back issues</h1><ul>${items.join("")}</ul></main>${SHOP_FOOTER}</body></html>`;
    const outcome = await readHtml(html, "https://shop.example/issues");
    assert.notEqual(textOf(outcome), "");
    assert.notEqual(outcome.strategy, "none");
    assert.doesNotMatch(outcome.warnings?.join("\n") ?? "", /site's chrome/);
  });

  it("reads a page whose markup leaves its header open around the article", async () => {
    const article = Array.from(
      { length: 4 },
      (_, i) =>
        `<p>Paragraph ${i + 1}: the lock gates of the old canal were rebuilt by hand, stone by stone, over three winters while the water was low.</p>`,
    ).join("");
    const html = `<!DOCTYPE html><html><head><title>The canal</title></head><body>
      <header class="site-header"><a href="/">Canal News</a><nav><a href="/">Home</a></nav>
      <h1>How the canal was rebuilt</h1>${article}
      ${SHOP_FOOTER}</body></html>`;
    const outcome = await readHtml(html, "https://canal.example/rebuilt");
    const text = textOf(outcome);
    assert.ok(text.includes("Paragraph 4: the lock gates"), text);
    assert.notEqual(outcome.strategy, "none");
  });
});

describe("direct reader: the page's body", () => {
  it("reads the real body when a script stands between </head> and <body>", async () => {
    // A thread: its posts are found in the body only (an article extractor reads the document).
    const post = (who: string, said: string) =>
      `<article class="message" data-author="${who}"><div class="message-body"><div class="bbWrapper">${said}</div></div></article>`;
    const html = `<!DOCTYPE html><html lang="en"><head><title>Renting a car abroad</title></head>
      <script>document.documentElement.className = "js";</script>
      <body><header><a href="/">Travel words</a></header><main><h1>Renting a car abroad</h1>
      ${post("Mira", "At the rental desk, ask whether the deposit is held on a credit card and when it is released.")}
      ${post("Tomas", "Also photograph every scratch before you drive off, with the time stamp visible.")}
      </main></body></html>`;
    const outcome = await readHtml(html, "https://words.example/renting");
    const text = textOf(outcome);
    inOrder(text, ["Mira", "ask whether the deposit is held", "Tomas", "photograph every scratch"]);
    assert.ok(!text.includes("className"), text);
    assert.equal(outcome.warnings, undefined);
  });

  it("reads the real body when scripts come before the head, and the page has no head tag", async () => {
    const html = `<!DOCTYPE html><html lang="en"><script>window.pageData = {};</script>
      <meta charset="utf-8"><title>Ferry news</title></head>
      <body><main><h1>Ferry news</h1>${"<p>The harbour ferry adds an evening crossing from the east pier on weekdays this summer. </p>".repeat(4)}</main></body></html>`;
    const text = textOf(await readHtml(html, "https://harbour.example/ferry"));
    assert.equal(text.match(/adds an evening crossing/g)?.length, 4, text);
    assert.ok(!text.includes("pageData"), text);
  });
});
