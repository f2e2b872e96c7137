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

describe("direct reader: a shop's category that states nothing", () => {
  // A category of a shop with no structured data: a description in headed sections (as a
  // landing page is built), then a grid of product tiles, each a link with a price.
  const teas = [
    ["Assam Breakfast", "$8.50"],
    ["Darjeeling First Flush", "$14.00"],
    ["Keemun Hao Ya", "$11.25"],
    ["Yunnan Gold", "$12.75"],
    ["Ceylon Uva", "$9.00"],
    ["Nilgiri Frost", "$10.50"],
    ["Lapsang Souchong", "$9.75"],
  ];
  const section = (title: string, text: string) => `<section><h2>${title}</h2><p>${text}</p></section>`;
  const tile = ([name, price]: string[], n: number) =>
    `<li class="product-tile"><a href="/tea/${n}"><span class="name">${name}</span></a><span class="price">${price}</span><button>Add to cart</button></li>`;
  const page = `<!DOCTYPE html><html><head><title>Black teas</title></head><body>
    <header><nav><a href="/">Home</a><a href="/green">Green teas</a><a href="/black">Black teas</a></nav></header>
    <main><h1>Black teas</h1>
      ${section("Fully oxidised", "Black tea leaves are rolled and left to oxidise until they turn dark, which gives the cup its malty depth.")}
      ${section("Brewing", "Use water just off the boil and steep for three to five minutes; longer brings out the tannins.")}
      ${section("Storage", "Keep the leaves in an airtight tin away from light, and they will hold their flavour for a year.")}
      ${section("Shipping", "Orders over forty dollars ship free within the country, packed in recyclable paper.")}
      <ul class="grid">${teas.map(tile).join("")}</ul></main>
    <footer><p>Leaf and Kettle, tea merchants since 1998.</p></footer></body></html>`;

  it("is typed a collection by its priced tiles and read as them, not as its sections alone", async () => {
    const outcome = await readHtml(page, "https://leaf.example/black");
    assert.equal(outcome.pageType, "collection");
    const text = textOf(outcome);
    inOrder(
      text,
      teas.flatMap(([name, price]) => [name, price] as string[]),
    );
    assert.ok(!text.includes("tea merchants since 1998"), text);
  });

  it("leaves a page of sections with a few priced plans a service page", async () => {
    const plan = (name: string, price: string) =>
      `<div class="plan"><h3>${name}</h3><span>${price} a month</span><a href="/signup">Start</a></div>`;
    const html = page.replace(
      /<ul class="grid">[\s\S]*<\/ul>/,
      `<div class="plans">${plan("Solo", "$5")}${plan("Team", "$20")}${plan("Company", "$90")}</div>`,
    );
    const outcome = await readHtml(html, "https://leaf.example/plans");
    assert.equal(outcome.pageType, "service");
  });
});

describe("direct reader: a catalogue's pictures", () => {
  // A shop's category that states its products: a description of three paragraphs, as a
  // category's prose is written, then its products, each a photo with a long alt text, a name
  // and a price with a line. The prose makes the article extractor's reading the one kept.
  const lamps = [
    ["Arc floor lamp", "$129.00", "A tall brass arc lamp bending over a grey sofa in a bright room"],
    ["Mushroom table lamp", "$49.00", "A small white glass lamp shaped like a mushroom on a nightstand"],
    ["Pleated pendant", "$89.00", "A pleated paper shade hanging above a wooden dining table at dusk"],
    ["Clamp desk lamp", "$35.00", "A green metal lamp clamped to the edge of a cluttered work desk"],
  ];
  const about = (n: number) =>
    `<p>Lighting note ${n}: a room needs light at three heights, one overhead for the whole space, one at eye level for a corner you read in, and one low and warm for the evening, and each lamp below is chosen to do one of these jobs well for many years.</p>`;
  const item = ([name, price, alt]: string[], n: number) =>
    `<div class="item"><h3><a href="/lamps/${n}">${name}</a></h3><p><img src="/img/${n}.jpg" alt="${alt}">${price}: made to order in our own workshop and shipped within two weeks, with a five-year guarantee on every part.</p></div>`;
  const stated = lamps.map(([name]) => `{"@type":"Product","name":"${name}"}`).join(",");
  const page = `<!DOCTYPE html><html><head><title>Lamps</title>
    <script type="application/ld+json">[${stated}]</script></head><body>
    <header><nav><a href="/">Home</a><a href="/lamps">Lamps</a></nav></header>
    <main><article><h1>Lamps</h1>${[1, 2, 3].map(about).join("")}
    <div class="items">${lamps.map(item).join("")}</div></article></main>
    <footer><p>Lumen and Co., lighting since 1987.</p></footer></body></html>`;

  it("keeps the description and each product's name and price, without the photos' alt text", async () => {
    const outcome = await readHtml(page, "https://lumen.example/lamps");
    assert.equal(outcome.pageType, "collection");
    const text = textOf(outcome);
    inOrder(text, ["Lighting note 1", ...lamps.flatMap(([name, price]) => [name, price] as string[])]);
    for (const [, , alt] of lamps) assert.ok(!text.includes(alt as string), `kept: ${alt}\n${text}`);
  });
});

describe("direct reader: a shop's category grid, its controls and its description below", () => {
  // A category as shops build it: a filter panel named only by its id and label (hashed
  // classes), a grid of priced tiles with their buttons and links to act, then the category's
  // description and questions below the grid, and a cookie notice.
  const boots = [
    ["Ridge Mid Waterproof Boot", "$149.00"],
    ["Canyon Low Trail Shoe", "$119.00"],
    ["Summit GTX Mountaineering Boot", "$289.00"],
    ["Meadow Light Hiker", "$99.00"],
    ["Scree Approach Shoe", "$139.00"],
    ["Tundra Insulated Winter Boot", "$199.00"],
  ];
  const tile = ([name, price]: string[], n: number) =>
    `<li class="x7Qa"><a href="/boots/${n}"><span class="k2">${name}</span></a><span>${price}</span>
     <label><input type="checkbox"> Add to compare</label><a class="q" href="/cart?add=${n}">Add to cart</a>
     <span style="display:none">Only ${n} left in warehouse 7</span></li>`;
  const filter = (name: string) => `<li><label><input type="checkbox"> ${name}</label></li>`;
  const page = `<!DOCTYPE html><html><head><title>Hiking boots</title></head><body>
    <header><nav><a href="/">Home</a><a href="/boots">Boots</a></nav></header>
    <main><h1>Hiking boots</h1>
      <div class="p3Rt"><div id="modal-filters" aria-label="Filter results"><h2>Refine</h2>
        <ul>${["Waterproof", "Wide sizes", "Vegan materials", "On sale now"].map(filter).join("")}</ul></div>
      <ul class="g9Zk">${boots.map(tile).join("")}</ul></div>
      <section><h2>How to choose hiking boots</h2>
        <p>Choose a boot by the ground you walk on: a light hiker for groomed trails, a mid boot with ankle support for rocky paths, and a stiff boot for scrambles and snow.</p>
        <h3>Do waterproof boots breathe?</h3>
        <p>A waterproof membrane keeps rain out and lets some sweat through, but on a hot day a boot without one stays cooler and dries faster after a river crossing.</p>
      </section></main>
    <div class="cookie-notice"><p>We use cookies to understand how you use this shop and to show you offers; by continuing to browse you accept them.</p></div>
    <footer><p>Trailhead Outfitters, since 1979.</p></footer></body></html>`;

  it("reads the tiles without their controls and hidden text, then the description under its headings", async () => {
    const outcome = await readHtml(page, "https://trailhead.example/boots");
    assert.ok(["listing", "collection"].includes(outcome.pageType ?? ""), outcome.pageType);
    assert.equal(outcome.strategy, "cards");
    const text = textOf(outcome);
    inOrder(text, [
      "Hiking boots",
      ...boots.flatMap(([name, price]) => [name, price] as string[]),
      "How to choose hiking boots",
      "Choose a boot by the ground",
      "Do waterproof boots breathe?",
      "A waterproof membrane",
    ]);
    for (const dropped of [
      "Add to cart",
      "Add to compare",
      "warehouse 7",
      "Vegan materials",
      "We use cookies",
    ]) {
      assert.ok(!text.includes(dropped), `kept: ${dropped}\n${text}`);
    }
  });
});

describe("direct reader: a shop's menu drawn as columns beside its grid", () => {
  // A department menu built as sibling columns outside any `<nav>`, each a heading and many
  // short links, holding more text than the grid; then a screen reader's copy of the menu with
  // longer link names; then the grid of priced tiles. The tiles are the page's items.
  const socks = [
    ["Merino Hiking Crew Sock", "$24.00"],
    ["Cushioned Running Ankle Sock", "$18.00"],
    ["Compression Travel Knee Sock", "$32.00"],
    ["Everyday Cotton Quarter Sock", "$14.00"],
    ["Thermal Ski Over-the-Calf Sock", "$28.00"],
    ["Lightweight Dress Sock", "$16.00"],
  ];
  const places = ["Ankle", "Quarter", "Half Calf", "Knee High", "No Show", "Calf", "Compression", "Sport"];
  const column = (group: string) =>
    `<div class="menu-col"><h4>${group}</h4>${places.map((p) => `<a href="/${group}/${p}">${p}</a>`).join("")}<a href="/${group}">Shop all ${group}</a></div>`;
  const copy = (group: string) =>
    `<div class="sub"><a href="/${group}">Everything we make for ${group} in every size</a><a href="/${group}/new">The newest arrivals for ${group} this season</a></div>`;
  const tile = ([name, price]: string[], n: number) =>
    `<li class="tile"><a href="/socks/${n}">${name}</a><span class="price">${price}</span></li>`;
  const groups = ["Women", "Men", "Kids", "Babies", "Gifts", "Outlet"];
  const page = `<!DOCTYPE html><html><head><title>Socks</title></head><body>
    <div class="mega">${groups.map(column).join("")}</div>
    <div class="visually-hidden">${groups.map(copy).join("")}</div>
    <main><h1>Socks</h1><ul class="grid">${socks.map(tile).join("")}</ul></main>
    <footer><p>Good Socks Co.</p></footer></body></html>`;

  it("reads the priced tiles, not the menu's columns or its hidden copy", async () => {
    const outcome = await readHtml(page, "https://socks.example/socks");
    assert.equal(outcome.strategy, "cards");
    const text = textOf(outcome);
    inOrder(text, ["Socks", ...socks.flatMap(([name, price]) => [name, price] as string[])]);
    for (const dropped of ["Knee High", "Shop all Women", "Everything we make"])
      assert.ok(!text.includes(dropped), `kept: ${dropped}\n${text}`);
  });
});

describe("direct reader: a blog's front page whose story cards carry tags", () => {
  // Each story's card links its headline, its author twice, its date, four tags and its
  // comments: many short links, like a menu's column, but each card also links a headline.
  const stories = [
    "Why our deploys got slower after we moved to containers",
    "A field guide to reading somebody else's database schema",
    "What a year of pairing taught a team of four developers",
    "How we cut our test suite's running time from hours to minutes",
    "Notes from rewriting a payment service without downtime",
  ];
  const tags = ["#webdev", "#go", "#sql", "#career"];
  const story = (title: string, n: number) =>
    `<div class="story"><a href="/u${n}">Dana Writer</a> <a href="/u${n}">Dana Writer</a> <a href="/s/${n}">Mar ${n}</a>
    <h2><a href="/s/${n}">${title}</a></h2><div class="tags">${tags.map((t) => `<a href="/t/${t.slice(1)}">${t}</a>`).join(" ")}</div>
    <a href="/s/${n}#comments">${n} comments</a></div>`;
  const page = `<!DOCTYPE html><html><head><title>Posts</title></head><body>
    <header><nav><a href="/">Home</a><a href="/about">About</a></nav></header>
    <main><h1>Posts</h1><div class="feed">${stories.map(story).join("")}</div></main>
    <footer><p>A community of developers.</p></footer></body></html>`;

  it("reads every story's card, not a menu's columns", async () => {
    const outcome = await readHtml(page, "https://devs.example/");
    assert.equal(outcome.strategy, "cards");
    inOrder(textOf(outcome), ["Posts", ...stories]);
  });
});

describe("direct reader: a blog's category page whose posts are classed by their terms", () => {
  // A blog engine classes each post with its own categories and tags (`category-dinner`,
  // `tag-fish`): the posts are one list of cards even though no two share all their classes.
  const recipes = [
    ["Sticky oven chicken thighs", "dinner tag-chicken"],
    ["Cottage cheese breakfast bagels", "breakfast tag-bread"],
    ["Maple roasted squash wedges", "sides tag-squash tag-autumn"],
    ["Crispy salmon bites with lime", "dinner tag-fish"],
    ["Sweet potato fries without oil", "sides"],
  ];
  const post = ([title, terms]: string[], n: number) =>
    `<article class="post-${n} post type-post status-publish ${(terms as string)
      .split(" ")
      .map((term) => (term.startsWith("tag-") ? term : `category-${term}`))
      .join(
        " ",
      )} entry"><header class="entry-header"><h2 class="entry-title"><a href="/r/${n}">${title}</a></h2></header></article>`;
  const page = `<!DOCTYPE html><html><head><title>Oven recipes</title>
    <script type="application/ld+json">{"@context":"https://schema.org","@type":"CollectionPage","name":"Oven recipes"}</script>
    </head><body><header><nav><a href="/">Home</a><a href="/recipes">Recipes</a></nav></header>
    <div class="archive-description"><h1>Oven recipes</h1><p>Quick and healthy recipes for the oven, from breakfast to snacks to dinners for the whole family on busy weekdays.</p></div>
    <main class="content">${recipes.map(post).join("")}</main>
    <footer><p>A food blog.</p></footer></body></html>`;

  it("reads every post's title under the category's heading", async () => {
    const outcome = await readHtml(page, "https://food.example/category/oven/");
    assert.equal(outcome.pageType, "listing");
    assert.equal(outcome.strategy, "cards");
    inOrder(textOf(outcome), [
      "Oven recipes",
      "Quick and healthy",
      ...recipes.map(([title]) => title as string),
    ]);
  });
});

describe("direct reader: a listing whose cards are sent in two layouts", () => {
  // Each event's card holds a layout for small screens (title, date, organiser) and one for
  // large screens repeating its title and date; a style sheet shows one of them.
  const events = [
    ["Testing legacy code without fear", "Tue, Mar 17, 11:00 AM", "Quality Guild"],
    ["An evening of lightning talks on databases", "Wed, Mar 18, 6:30 PM", "Data Night"],
    ["Writing documentation people actually read", "Thu, Mar 19, 5:00 PM", "Docs Circle"],
    ["From monolith to modules in one quarter", "Fri, Mar 20, 1:00 PM", "Arch Club"],
  ];
  const card = ([title, when, host]: string[], n: number) =>
    `<li class="result"><div class="card"><div class="card-mobile"><h3><a href="/e/${n}">${title}</a></h3><p>${when}</p><p>${host}</p></div>
    <div class="card-desktop"><h3><a href="/e/${n}">${title}</a></h3><p>${when}</p></div></div></li>`;
  // Two sessions of one meet-up share their text but link two pages: both are items.
  const twice = ["Open-source office hours for maintainers", "Every Monday, 5:00 PM", "OSS Hub"];
  const page = `<!DOCTYPE html><html><head><title>Online events</title>
    <script type="application/ld+json">{"@context":"https://schema.org","@type":"SearchResultsPage","name":"Online events"}</script>
    </head><body><main><h1>Online events</h1><ul class="results">${[...events, twice, twice].map(card).join("")}</ul></main></body></html>`;

  it("reads each card once, and two items of one name twice", async () => {
    const outcome = await readHtml(page, "https://events.example/online");
    assert.equal(outcome.strategy, "cards");
    const text = textOf(outcome);
    inOrder(text, ["Online events", ...events.flat(), ...twice, ...twice]);
    for (const [title] of events) assert.equal(text.split(title as string).length, 2, text);
    assert.equal(text.split(twice[0] as string).length, 3, text);
  });
});

describe("direct reader: a page typed service that lists its items in two lists", () => {
  // A programme of two days, each a short list of talks (a title and a line); nothing states
  // a list and no list is long enough to make the page a listing. The article extractor keeps
  // the first day's abstracts; the cards hold all of that and the second day's talks.
  const abstract = (topic: string) =>
    `How the team moved ${topic} to a shared cache, what broke on the way, and which measurements convinced everyone the move was worth it.`;
  const monday = ["Caching at the edge", "Schema migrations on a live database", "Profiling a slow build"];
  const tuesday = ["Feature flags that do not rot", "Reading flame graphs", "A year of on-call"];
  const talk = (title: string, n: number, long: boolean) =>
    `<div class="talk"><a href="/t/${n}">${title}</a>\n<p>${long ? abstract(title.toLowerCase()) : `Room ${n}`}</p></div>\n`;
  const page = `<!DOCTYPE html><html><head><title>Programme</title></head><body>
    <div class="top"><a href="/">Home</a><a href="/tickets">Tickets</a></div>
    <div class="wrap"><h1>Programme</h1>
    <div class="day"><h2>Monday</h2>\n${monday.map((t, i) => talk(t, i + 1, true)).join("")}</div>
    <div class="day"><h2>Tuesday</h2>\n${tuesday.map((t, i) => talk(t, i + 11, false)).join("")}</div></div>
    <footer><p>Run by volunteers.</p></footer></body></html>`;

  it("reads both days' talks, not the one day the extractor kept", async () => {
    const outcome = await readHtml(page, "https://conf.example/");
    assert.equal(outcome.pageType, "service");
    assert.equal(outcome.strategy, "cards");
    inOrder(textOf(outcome), ["Programme", "Monday", ...monday, "Tuesday", ...tuesday]);
  });
});

describe("direct reader: a front page whose extraction kept its consent notice", () => {
  // A section's front page: a consent notice of three paragraphs drawn outside the page's
  // `<main>`, which holds the stories' cards (a linked title and a date each) and little else;
  // the site's menus make the cards too small a share of the page to type it a listing.
  const stories = [
    "Rocket engine test ends early",
    "A new map of the ocean floor",
    "Batteries that survive the cold",
    "The quiet return of film cameras",
    "Why bridges sing in the wind",
    "Lost city found under a lake",
    "Teaching robots to fold laundry",
    "The oldest tree in the valley",
  ];
  const titles = [
    ...stories,
    ...stories.map((t) => `${t}, part two`),
    ...stories.map((t) => `${t}: the follow-up`),
  ];
  const card = (title: string, n: number) =>
    `<div class="card"><h3><a href="/s/${n}">${title}</a></h3>\n<span>March ${n}</span></div>\n`;
  const sections = [
    "Health",
    "Climate",
    "Space",
    "Technology",
    "Archaeology",
    "Animals",
    "Oceans",
    "Physics",
  ];
  const menu = (at: string) =>
    `<nav>${[...sections, "About us", "Contact the newsroom", "Corrections and clarifications", "Newsletters and alerts"].map((s) => `<a href="/${at}/${s}">${s}</a> `).join("")}</nav>`;
  const page = `<!DOCTYPE html><html><head><title>Science</title></head><body>
    <div id="consent-banner"><p>We and our partners use cookies and similar methods to recognise visitors, remember their preferences, measure how the site is used, and show advertising; you can change your choices at any time.</p>
    <p>Accepting lets us and our partners store and read identifiers on your device, such as cookies and similar methods.</p>
    <p>Rejecting keeps only what the site needs to work; your choice applies to this site only, on this device.</p></div>
    <main><h1>Science</h1>\n<div class="grid">${titles.map(card).join("")}</div></main>
    ${["a", "b", "c", "d", "e", "f"].map(menu).join("")}</body></html>`;

  it("reads the stories' cards in the page's main region, not the notice", async () => {
    const outcome = await readHtml(page, "https://news.example/science");
    assert.equal(outcome.pageType, "service");
    assert.equal(outcome.strategy, "cards");
    const text = textOf(outcome);
    inOrder(text, ["Science", ...titles]);
    assert.ok(!text.includes("use cookies"), text);
  });
});

describe("direct reader: a category's buying guide folded under its headings", () => {
  // A category grid, then the shop's guide below it as an accordion: each heading's button opens
  // a panel hidden until clicked. Each tile also hides a stock note that no button opens.
  const tents = [
    ["Ridgeline Two-Person Tent", "$329.00"],
    ["Basecamp Six Family Tent", "$549.00"],
    ["Featherlite Solo Shelter", "$249.00"],
    ["Stormguard Four-Season Tent", "$699.00"],
    ["Trekker Pole Tarp", "$119.00"],
    ["Meadow Pop-Up Shade", "$89.00"],
  ];
  const tile = ([name, price]: string[], n: number) =>
    `<li class="tile"><a href="/tents/${n}">${name}</a><span class="price">${price}</span><span aria-hidden="true">Only ${n} left in store 12</span></li>`;
  const fold = (n: number, question: string, answer: string) =>
    `<div class="fold"><h3><button aria-expanded="false" aria-controls="fold-${n}">${question}</button></h3>
     <div id="fold-${n}" aria-hidden="true" style="max-height:0"><p>${answer}</p></div></div>`;
  const page = `<!DOCTYPE html><html><head><title>Tents</title></head><body>
    <header><nav><a href="/">Home</a><a href="/tents">Tents</a></nav></header>
    <main><h1>Tents</h1><ul class="grid">${tents.map(tile).join("")}</ul>
      <section><h2>Tent buying guide</h2>
        ${fold(1, "How many people should a tent sleep?", "Choose a tent rated for one more sleeper than your group: the rating assumes shoulder to shoulder sleeping bags and leaves no room for packs or a dog.")}
        ${fold(2, "What does a four-season tent add?", "Steeper walls that shed snow, more poles to stand up to wind, and less mesh, which keeps warmth in but makes a summer night stuffy.")}
      </section></main>
    <footer><p>Basecamp Outfitters.</p></footer></body></html>`;

  it("keeps the guide's headings and the answers their buttons open, not the tiles' hidden notes", async () => {
    const outcome = await readHtml(page, "https://basecamp.example/tents");
    assert.equal(outcome.strategy, "cards");
    const text = textOf(outcome);
    inOrder(text, [
      "Tents",
      ...tents.flatMap(([name, price]) => [name, price] as string[]),
      "How many people should a tent sleep?",
      "Choose a tent rated for one more sleeper",
      "What does a four-season tent add?",
      "Steeper walls that shed snow",
    ]);
    assert.ok(!text.includes("left in store 12"), text);
  });
});

describe("direct reader: a promotion bar that repeats one notice beside a small grid", () => {
  // A shop's promotion bar: one shipping notice written for each country, each a paragraph with
  // the same link, more text than the category's four tiles.
  const countries = ["Canada", "Australia", "Germany", "France", "Japan", "Brazil", "India"];
  const notice = (country: string) =>
    `<span class="promo-text"><p>Free standard shipping to ${country} on qualifying orders. For more information on rates and delivery times, please visit our <a href="/pages/shipping">shipping page</a>.</p></span>`;
  const kits = [
    ["Hydrating Balm Trio", "€49,95"],
    ["Serum Discovery Pack", "€104,95"],
    ["Dewy Look Duo", "€51,95"],
    ["Smile Lip Duo", "€35,95"],
  ];
  const tile = ([name, price]: string[], n: number) =>
    `<div class="card"><a href="/products/${n}">${name}</a><p class="price">Sale price: ${price}</p></div>`;
  const page = `<!DOCTYPE html><html><head><title>Skincare sets</title></head><body>
    <div class="bar"><div class="slides">${countries.map(notice).join("")}</div></div>
    <main><h1>Skincare sets</h1><p>4 items</p><div class="cards">${kits.map(tile).join("")}</div></main>
    </body></html>`;

  it("reads the tiles, not the notices that all lead to one page", async () => {
    const outcome = await readHtml(page, "https://skin.example/collections/sets");
    assert.equal(outcome.strategy, "cards");
    const text = textOf(outcome);
    inOrder(text, ["Skincare sets", ...kits.flatMap(([name, price]) => [name, price] as string[])]);
    assert.ok(!text.includes("Free standard shipping"), text);
  });
});

describe("direct reader: a ranking of products whose names run past a paragraph's length", () => {
  // A best-sellers list: each item its rank, a product name longer than a paragraph, and a link
  // to its offers. The extraction keeps the names as list items; no paragraph of prose is there.
  const names = [
    "Wireless Earbuds with Active Noise Cancellation, Transparency Mode, Spatial Audio, a USB-C Charging Case that also charges wirelessly, and up to thirty hours of listening on one charge",
    "Surge Protector Power Strip with Eight Outlets and Four USB Ports, a Six Foot Braided Extension Cord, a Flat Plug for tight spaces and Wall Mount Holes for the desk or the workbench",
    "Streaming Stick for any TV with a Voice Remote, Free and Live Channels, Parental Controls and a Private Listening Mode through the phone app, set up in minutes over home Wi-Fi",
    "Item Tracker for Keys, Wallets and Luggage, a Four Pack with Replaceable Batteries, Precision Finding on a Phone, a Loud Speaker and a Lost Mode that shares your number with finders",
    "Portable Charger with a Ten Thousand Milliamp Hour Battery, Two USB-C Ports, a Built-In Cable and a Display of the charge left, small enough for a pocket and allowed on planes",
    "Smart Plug that works with Voice Assistants, a Two Pack with Schedules, Away Mode, Energy Monitoring and No Hub Required, rated for lamps, fans and small kitchen appliances",
  ];
  const item = (name: string, n: number) =>
    `<li class="rank-item"><span class="rank">#${n + 1}</span><div class="title">${name}, sold and shipped by the store</div><div><a href="/dp/${n}">${n + 2} offers from $${n + 10}.99</a></div></li>`;
  const page = `<!DOCTYPE html><html><head><title>Best Sellers in Electronics</title></head><body>
    <header><nav><a href="/">Home</a><a href="/deals">Deals</a></nav></header>
    <main><h1>Best Sellers in Electronics</h1><ol class="ranking">${names.map(item).join("")}</ol></main>
    <footer><p>Shop Co.</p></footer></body></html>`;

  it("reads the items as cards, a long item name being no paragraph of prose", async () => {
    const outcome = await readHtml(page, "https://shop.example/best-sellers/electronics");
    assert.ok(["listing", "collection"].includes(outcome.pageType ?? ""), outcome.pageType);
    assert.equal(outcome.strategy, "cards");
    inOrder(
      textOf(outcome),
      names.flatMap((name, n) => [name, `${n + 2} offers from $${n + 10}.99`]),
    );
  });
});

describe("direct reader: a catalogue's ratings drawn as hidden text inside a labelled link", () => {
  // Each tile's rating is a link labelled for screen readers ("4.5 out of 5 stars, 120
  // ratings") whose shown stars and count are hidden from them; beside it, a hidden duplicate
  // that nothing labels.
  const lamps = [
    "Arc Floor Lamp",
    "Brass Desk Lamp",
    "Paper Pendant Shade",
    "Clip-On Reading Light",
    "Rattan Table Lamp",
    "Glass Globe Sconce",
  ];
  const tile = (name: string, n: number) =>
    `<li class="tile"><a href="/lamps/${n}">${name}</a>
     <a aria-label="4.${n} out of 5 stars, ${n + 1}20 ratings" href="/lamps/${n}#reviews"><i aria-hidden="true"><span>4.${n} out of 5 stars</span></i> <span aria-hidden="true">${n + 1}20</span></a>
     <span aria-hidden="true">(${n + 1}20 bought)</span><span class="price">$${n + 40}.00</span></li>`;
  const page = `<!DOCTYPE html><html><head><title>Lamps</title></head><body>
    <main><h1>Lamps</h1><ul class="grid">${lamps.map(tile).join("")}</ul></main></body></html>`;

  it("keeps the shown rating and count, not the unlabelled hidden copy", async () => {
    const outcome = await readHtml(page, "https://lights.example/lamps");
    assert.equal(outcome.strategy, "cards");
    const text = textOf(outcome);
    inOrder(
      text,
      lamps.flatMap((name, n) => [name, `4.${n} out of 5 stars`, `${n + 1}20`, `$${n + 40}.00`]),
    );
    assert.ok(!text.includes("bought)"), text);
  });
});

describe("direct reader: a catalogue whose tiles are each drawn as a figure", () => {
  // Each tile is one `<figure>`: its picture, a link to act over it, its linked name, its kind
  // and its price. A figure of the description below is a picture and its caption.
  const shoes = [
    ["Pegasus Road Runner", "Men's Road Running Shoes", "$140"],
    ["Vomero Cushioned Trainer", "Men's Road Running Shoes", "$160"],
    ["Alpha Racing Flat", "Men's Road Racing Shoes", "$285"],
    ["Structure Stability Shoe", "Men's Road Running Shoes", "$150"],
    ["Kiger Trail Runner", "Men's Trail Running Shoes", "$145"],
    ["Streak Track Spike", "Men's Track Shoes", "$110"],
  ];
  const tile = ([name, kind, price]: string[], n: number) =>
    `<div class="card"><figure><a class="overlay" href="/t/${n}">View options</a><img src="/i/${n}.png" alt="A photo of the ${name}">
     <a href="/t/${n}">${name}</a><div class="kind">${kind}</div><div class="price">${price}</div></figure></div>`;
  const page = `<!DOCTYPE html><html><head><title>Men's running shoes</title></head><body>
    <main><h1>Men's running shoes</h1><div class="grid">${shoes.map(tile).join("")}</div></main></body></html>`;

  it("reads each figure's name, kind and price, without its picture or its link to act", async () => {
    const outcome = await readHtml(page, "https://run.example/w/mens-running-shoes");
    assert.equal(outcome.strategy, "cards");
    const text = textOf(outcome);
    inOrder(text, ["Men's running shoes", ...shoes.flat()]);
    for (const dropped of ["View options", "A photo of"])
      assert.ok(!text.includes(dropped), `kept: ${dropped}\n${text}`);
  });
});

describe("direct reader: a catalogue whose tiles draw their name and price twice", () => {
  // A theme's tile carries one copy of the name and price for small screens and one for large
  // ones, both in the HTML; the page shows each once.
  const coffees = [
    ["Dark Roast Coffee", "$19.99"],
    ["Medium Roast Coffee", "$18.99"],
    ["Hazelnut Single-Serve Pods", "$15.99"],
    ["Decaf Whole Beans", "$17.49"],
    ["Espresso Blend", "$21.00"],
    ["Cold Brew Packs", "$12.50"],
  ];
  const tile = ([name, price]: string[], n: number) =>
    `<li class="tile"><div class="small"><h3><a href="/p/${n}">${name}</a></h3><span class="price">${price}</span></div>
     <div class="large"><h3><a href="/p/${n}">${name}</a></h3><span class="price">${price}</span><span>Whole bean or ground</span></div></li>`;
  const page = `<!DOCTYPE html><html><head><title>Coffee</title></head><body>
    <main><h1>Coffee</h1><ul class="grid">${coffees.map(tile).join("")}</ul></main></body></html>`;

  it("reads each name and price once", async () => {
    const outcome = await readHtml(page, "https://roast.example/collections/coffee");
    assert.equal(outcome.strategy, "cards");
    const text = textOf(outcome);
    inOrder(text, ["Coffee", ...coffees.flat()]);
    for (const [name, price] of coffees) {
      assert.equal(text.split(name as string).length, 2, `${name} twice\n${text}`);
      assert.equal(text.split(price as string).length, 2, `${price} twice\n${text}`);
    }
    assert.equal(text.split("Whole bean or ground").length, coffees.length + 1, text);
  });
});

describe("direct reader: a community feed whose extraction kept a stray block", () => {
  // A feed of posts (a linked title and a date each) among the site's many menus, which make
  // the cards too small a share of the page to type it a listing. The extraction keeps a short
  // promotion beside the feed; the whole body, cleaned, drops some of the feed's posts.
  const posts = [
    "Rocket engine test ends early",
    "A new map of the ocean floor",
    "Batteries that survive the cold",
    "The quiet return of film cameras",
    "Why bridges sing in the wind",
    "Lost city found under a lake",
    "Teaching robots to fold laundry",
    "The oldest tree in the valley",
  ];
  const titles = [
    ...posts,
    ...posts.map((t) => `${t}, part two`),
    ...posts.map((t) => `${t}: the follow-up`),
  ];
  const card = (title: string, n: number) =>
    `<div class="story"><h3><a href="/s/${n}">${title}</a></h3>\n<span>March ${n}</span></div>\n`;
  const topics = ["Health", "Climate", "Space", "Technology", "Archaeology", "Animals", "Oceans", "Physics"];
  const menu = (at: string) =>
    `<nav>${[...topics, "About us", "Contact the team", "Code of conduct", "Newsletters and alerts"].map((s) => `<a href="/${at}/${s}">${s}</a> `).join("")}</nav>`;
  const page = `<!DOCTYPE html><html><head><title>Community</title></head><body>
    ${["a", "b", "c"].map(menu).join("")}
    <div class="layout"><div class="promo"><h2>Write for the community</h2><p>Share what you learned this week with readers who build things too.</p></div>
    <div class="feed">${titles.map(card).join("")}</div></div>
    ${["d", "e", "f", "g", "h"].map(menu).join("")}</body></html>`;

  it("reads the feed's cards, not the whole body", async () => {
    const outcome = await readHtml(page, "https://community.example/");
    assert.equal(outcome.pageType, "service");
    assert.equal(outcome.strategy, "cards");
    inOrder(textOf(outcome), titles);
  });
});
