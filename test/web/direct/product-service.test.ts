/**
 * The direct reader on product and service pages: each case is a small page written for the
 * test in the markup its kind of site uses.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readHtml } from "../../../src/web/providers/direct/html.js";
import { fixture, inOrder, textOf } from "./reader-text.js";

describe("direct reader: product pages", () => {
  it("reads the product's name, description and specifications, without reviews or recommendations", async () => {
    const outcome = await readHtml(
      fixture("product-jsonld.html"),
      "https://ridgeline.example/p/trailhead-30",
    );
    const text = textOf(outcome);
    assert.equal(outcome.pageType, "product");
    assert.equal(outcome.strategy, "product");
    inOrder(text, [
      "# Trailhead 30 L Daypack",
      "the back panel stands off your spine",
      "side pockets take a one-litre bottle",
      "| Volume | 30 litres |",
      "210D recycled ripstop nylon",
    ]);
    for (const dropped of ["Cuillin ridge", "Summit 20 L", "roll-top lid", "free returns", "Tents"]) {
      assert.ok(!text.includes(dropped), `kept: ${dropped}\n${text}`);
    }
  });

  it("states the facts only the page's JSON-LD gives, as the data says them", async () => {
    const text = textOf(
      await readHtml(fixture("product-jsonld.html"), "https://ridgeline.example/p/trailhead-30"),
    );
    inOrder(text, [
      "## Product facts",
      "- Brand: Ridgeline",
      "- SKU: RL-TH30-SLT",
      "- Price: 129.00 EUR",
      "- Availability: In stock",
      "- Frame: Aluminium stay",
    ]);
    // Nothing the data does not state: no condition, no rating.
    assert.ok(!/Condition:|Rating:/.test(text), text);
  });

  it("does not repeat a stated fact the content already shows", async () => {
    const html = fixture("product-jsonld.html")
      .replace('<span class="js-price"></span>', "<span>129.00 EUR</span>")
      .replace("<p>The lid holds", "<p>SKU RL-TH30-SLT. The lid holds");
    const text = textOf(await readHtml(html, "https://ridgeline.example/p/trailhead-30"));
    assert.ok(!text.includes("- SKU:"), text);
    assert.ok(text.includes("- Price: 129.00 EUR"), text);
  });
});

describe("direct reader: a product page that states other products too", () => {
  const item = (name: string, price: string) =>
    `<li itemscope itemtype="https://schema.org/Product"><a itemprop="url" href="/p/${name.toLowerCase()}"><span itemprop="name">${name}</span></a>
      <span itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price">${price}</span></span></li>`;
  const page = (headlineInItem: boolean) => {
    const headline = '<h1 itemprop="name">Heron wall clock</h1>';
    return `<!DOCTYPE html><html lang="en"><head><title>Heron wall clock</title></head><body>
    ${headlineInItem ? "" : headline}
    <div itemscope itemtype="https://schema.org/Product">${headlineInItem ? headline : ""}
      <div class="product-summary"><p>A silent sweep movement in a solid oak case, thirty centimetres across, with brass hands and a hand-printed dial.</p>
      <p>The movement runs for a year on one AA battery, and the case is oiled, not lacquered, so it ages with the room it hangs in.</p></div>
    </div>
    <h2>You may also like</h2><ul>${item("Wren", "45")}${item("Finch", "52")}${item("Plover", "60")}</ul></body></html>`;
  };

  it("is read as the product whose microdata holds its headline", async () => {
    const outcome = await readHtml(page(true), "https://clocks.example/p/heron");
    assert.equal(outcome.pageType, "product");
    const text = textOf(outcome);
    inOrder(text, ["silent sweep movement", "runs for a year"]);
    assert.ok(!text.includes("Plover"), text);
  });

  it("stays a collection when its headline is no stated product's", async () => {
    const outcome = await readHtml(page(false), "https://clocks.example/p/heron");
    assert.equal(outcome.pageType, "collection");
  });
});

describe("direct reader: product pages, what is not the product", () => {
  const card = (name: string, price: string) =>
    `<li><a href="/p/${name.toLowerCase().replace(/ /g, "-")}">${name}</a><span>${price}</span></li>`;
  const page = (strip: string) => `<!DOCTYPE html><html lang="en"><head><title>Kestrel stove</title>
    <script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product", "name": "Kestrel stove",
      "offers": {"@type": "Offer", "price": "1299.00", "priceCurrency": "USD", "itemCondition": "https://schema.org/NewCondition"}}</script>
    </head><body><main>
    <h1>Kestrel stove</h1>
    <div class="product-details">
      <p>$1,299, delivered and fitted by our own installers.</p>
      <p>A cast-iron wood stove for rooms up to forty square metres, with a glass door kept clear by an air wash.</p>
      <p>The firebox takes logs of up to forty centimetres, and the secondary burn keeps the flue clean through a long winter.</p>
      ${strip}
    </div></main></body></html>`;

  it("leaves out a strip of other products' cards headed as such, and keeps the product's own text", async () => {
    const strip = `<h2>Customers who viewed this item also viewed</h2><ul>${card("Merlin stove", "$899")}${card("Osprey stove", "$1,050")}${card("Harrier stove", "$1,420")}</ul>`;
    const text = textOf(await readHtml(page(strip), "https://stoves.example/p/kestrel"));
    inOrder(text, ["# Kestrel stove", "cast-iron wood stove", "secondary burn keeps the flue clean"]);
    for (const dropped of ["also viewed", "Merlin stove", "Osprey", "$1,420"]) {
      assert.ok(!text.includes(dropped), `kept: ${dropped}\n${text}`);
    }
  });

  it("keeps a heading's links when they are not a strip of cards, and text after a strip's label", async () => {
    const notStrip = `<h2>Complete the set</h2><p>The <a href="/p/flue-kit">flue kit</a> fits this stove.</p>`;
    const text = textOf(await readHtml(page(notStrip), "https://stoves.example/p/kestrel"));
    inOrder(text, ["cast-iron wood stove", "## Complete the set", "flue kit"]);
  });

  it("leaves out pictures named as logos, icons or badges, and keeps the product's own", async () => {
    const pictures = `<p><img src="/img/klarna.svg" alt="Klarna logo"><img src="/img/check.svg" alt="check mark icon"> Pay in three instalments.</p><p><img src="/img/kestrel-black.jpg" alt="Kestrel stove in matt black"></p>`;
    const text = textOf(await readHtml(page(pictures), "https://stoves.example/p/kestrel"));
    assert.ok(text.includes("Kestrel stove in matt black"), text);
    assert.ok(text.includes("Pay in three instalments"), text);
    for (const dropped of ["Klarna logo", "check mark icon"])
      assert.ok(!text.includes(dropped), `kept: ${dropped}\n${text}`);
  });

  it("leaves out the buying controls a shop names as such, and keeps the stock line and a heading so named", async () => {
    const panel = `<div class="product-form__quantity"><label>Qty</label><span>1 2 3</span></div>
      <div class="product-add-to-cart"><span>Add to cart</span></div>
      <div class="wishlist-toggle">Add to wishlist</div>
      <div class="social-share"><span>Share</span><span>Pin it</span></div>
      <div class="store-availability">Pick up in store today</div>
      <h3 id="add-to-cart-title">Chimney kit included</h3>
      <div class="quantity-note">In stock: ships within two working days from our warehouse in Leeds.</div>`;
    const text = textOf(await readHtml(page(panel), "https://stoves.example/p/kestrel"));
    inOrder(text, [
      "cast-iron wood stove",
      "secondary burn",
      "Chimney kit included",
      "ships within two working days",
    ]);
    for (const dropped of ["Qty", "Add to cart", "wishlist", "Pin it", "Pick up in store"]) {
      assert.ok(!text.includes(dropped), `kept: ${dropped}\n${text}`);
    }
  });

  it("reads the blocks a shop names as the product's highlights, dimensions and materials", async () => {
    const html = `<!DOCTYPE html><html lang="en"><head><title>Linden desk</title>
      <script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product", "name": "Linden desk"}</script></head>
      <body><main><h1>Linden desk</h1>
      <section class="customer-reviews-summary"><h2>What buyers say</h2>${"<p>I have written at this desk every morning for a year and the finish still looks new, though the drawer sticks a little in damp weather.</p>".repeat(3)}</section>
      <ul class="top-highlights-module"><li>Solid beech top, oiled by hand in our workshop</li><li>Cable tray under the back edge keeps the floor clear</li><li>Adjustable feet level it on an old floor</li><li>Ships flat, assembled in twenty minutes with one key</li></ul>
      <div class="product-dimensions"><table><tr><th>Width</th><td>140 cm</td></tr><tr><th>Depth</th><td>70 cm</td></tr><tr><th>Height</th><td>74 cm</td></tr><tr><th>Weight</th><td>32 kg</td></tr><tr><th>Top thickness</th><td>3 cm</td></tr></table></div>
      <div class="product-materials"><p>Beech from managed forests in the Jura; steel legs powder-coated in graphite.</p></div>
      </main></body></html>`;
    const outcome = await readHtml(html, "https://desks.example/p/linden");
    assert.equal(outcome.strategy, "product");
    const text = textOf(outcome);
    inOrder(text, ["Solid beech top", "Cable tray", "| Width | 140 cm |", "steel legs powder-coated"]);
    assert.ok(!text.includes("drawer sticks"), text);
  });

  it("reads a details block that is a tab set's box, its panes included", async () => {
    const html = `<!DOCTYPE html><html lang="en"><head><title>Harrier 16 GB memory kit</title>
      <script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product", "name": "Harrier 16 GB memory kit"}</script></head>
      <body><main><h1>Harrier 16 GB memory kit</h1>
      <section class="customer-reviews-summary"><h2>What buyers say</h2>${"<p>Installed these in my old workstation over a weekend and the build times dropped noticeably, though the heat spreaders run warm under load.</p>".repeat(3)}</section>
      <div class="product-details tab-box" id="product-details">
        <div class="tab-nav"><a class="tab" href="#overview">Overview</a><a class="tab" href="#specs">Specs</a></div>
        <div class="tab-panes">
          <div class="tab-pane" id="overview"><p>Two 8 GB modules tuned for low latency, with aluminium heat spreaders and a lifetime warranty. Each kit is tested together at its rated speed, so both modules run in dual channel from the first boot.</p></div>
          <div class="tab-pane" id="specs"><table><tr><th>Capacity</th><td>16 GB (2 x 8 GB)</td></tr><tr><th>Speed</th><td>DDR4 3600</td></tr><tr><th>Voltage</th><td>1.35 V</td></tr></table></div>
        </div>
      </div>
      </main></body></html>`;
    const outcome = await readHtml(html, "https://parts.example/p/harrier-16");
    assert.equal(outcome.strategy, "product");
    const text = textOf(outcome);
    inOrder(text, [
      "# Harrier 16 GB memory kit",
      "Two 8 GB modules",
      "| Capacity | 16 GB (2 x 8 GB) |",
      "| Voltage | 1.35 V |",
    ]);
    assert.ok(!text.includes("build times dropped"), text);
  });

  it("reads a tab panel named for the description, though its names say tab", async () => {
    const html = `<!DOCTYPE html><html lang="en"><head><title>Wildflower honey, 500 g</title>
      <script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product", "name": "Wildflower honey, 500 g"}</script></head>
      <body><main><h1>Wildflower honey, 500 g</h1>
      <section class="customer-reviews-summary"><h2>What buyers say</h2>${"<p>We ordered a second jar within a fortnight because the children finished the first one on porridge, and it arrived well packed again.</p>".repeat(3)}</section>
      <div class="shop-tabs">
        <ul class="tabs" role="tablist"><li class="description_tab" role="tab"><a href="#tab-description">Description</a></li></ul>
        <div class="shop-Tabs-panel--description panel wc-tab" id="tab-description" role="tabpanel">
          <p>Raw honey from hives kept among the hay meadows of the upper valley, cold extracted and only coarsely strained, so it sets to a soft cream within a few weeks of the harvest.</p>
          <table><tr><th>Weight</th><td>500 g</td></tr><tr><th>Origin</th><td>Upper valley meadows</td></tr></table>
        </div>
      </div>
      </main></body></html>`;
    const outcome = await readHtml(html, "https://hives.example/p/wildflower-500");
    assert.equal(outcome.strategy, "product");
    const text = textOf(outcome);
    inOrder(text, ["# Wildflower honey, 500 g", "Raw honey from hives", "| Weight | 500 g |"]);
    assert.ok(!text.includes("second jar"), text);
  });

  it("does not state a price the content shows written its own way, nor a new item's condition", async () => {
    const text = textOf(await readHtml(page(""), "https://stoves.example/p/kestrel"));
    assert.ok(text.includes("$1,299"), text);
    assert.ok(!/Price:|Condition:/.test(text), text);
  });
});

describe("direct reader: service pages", () => {
  it("keeps every section of the main region in order, without navigation, banners or footer", async () => {
    const card = (title: string, text: string) =>
      `<div class="card"><h3>${title}</h3><span>${text}</span></div>`;
    const prose =
      "<p>Harbourline started on a pier in Kinsale, where the harbour master kept three ledgers and a shoebox of fuel receipts, and every season ended with a week of reconciling them by hand before the accountant would sign anything off. The first version was a spreadsheet with macros that matched fuel receipts to card slips; the second ran on a laptop in the harbour office, and the third is the service you can try today.</p>";
    const html = `<!DOCTYPE html><html lang="en"><head><title>Harbourline bookkeeping</title></head><body>
      <header class="site-header"><a href="/">Harbourline</a><nav><a href="/pricing">Pricing</a><a href="/about">About</a><a href="/login">Log in</a></nav></header>
      <div class="cookie-banner"><p>We use cookies to understand how visitors use this site and to improve it for everyone.</p></div>
      <main>
        <section class="hero"><h1>Bookkeeping for small harbours and marinas</h1><span>Berth fees, fuel sales and chandlery stock in one ledger.</span></section>
        <section class="features"><h2>What it does</h2><div class="grid">
          ${card("Reconciled every night", "Card payments from the fuel dock are matched against the bank feed overnight.")}
          ${card("Berth contracts", "Seasonal and visitor berths are billed from one calendar.")}
          ${card("Chandlery stock", "Counts drop as items are sold at the till, and reorders are drafted when a shelf runs low.")}
          ${card("Year-end accounts", "Your accountant receives the ledger in the format they already use, with every receipt attached.")}
          ${card("Harbour dues", "Dues for visiting yachts are charged by length and night, and receipts are sent by text message.")}
        </div></section>
        <section class="story"><article class="inner"><h2>Our story</h2>${prose.repeat(2)}</article></section>
        <section class="pricing"><h2>Pricing</h2><div class="plan"><span>49 euros a month</span><span>up to 300 berths</span></div></section>
        <section class="faq"><h2>Questions</h2><dl><dt>Can we keep our old accountant?</dt><dd>Yes: they get their own login and the exports they ask for.</dd><dt>Does it work offline?</dt><dd>The till keeps selling when the harbour's internet drops, and the sales are sent when it returns.</dd><dt>Can we move from spreadsheets?</dt><dd>We import last season's spreadsheets for you, berth by berth, at no charge.</dd></dl></section>
      </main>
      <footer><p>Harbourline Ltd, registered in Cork. Privacy policy. Terms of use.</p></footer>
    </body></html>`;
    const outcome = await readHtml(html, "https://harbourline.example/");
    const text = textOf(outcome);
    assert.equal(outcome.pageType, "service");
    inOrder(text, [
      "Bookkeeping for small harbours",
      "Reconciled every night",
      "matched against the bank feed",
      "Berth contracts",
      "started on a pier in Kinsale",
      "49 euros a month",
      "keep our old accountant",
    ]);
    for (const dropped of ["We use cookies", "Log in", "registered in Cork"]) {
      assert.ok(!text.includes(dropped), `kept: ${dropped}\n${text}`);
    }
    assert.equal(outcome.strategy, "sections");
  });
});

describe("direct reader: what the page does not show", () => {
  const page = (
    dialog: string,
  ) => `<!DOCTYPE html><html lang="en"><head><title>Tidewater freight</title></head><body>
    <header><nav><a href="/">Tidewater</a><a href="/rates">Rates</a></nav></header>
    <main><article><h1>Freight by sail between Brittany and Cornwall</h1>
      <p>Tidewater carries cider, salt and slate across the Channel on two restored ketches, and each crossing takes about thirty hours in a fair wind.</p>
      <p>Cargo is loaded at Douarnenez on Mondays and unloaded at Penzance by Wednesday; pallets are weighed on the quay and insured for the whole voyage.</p>
      <p>Shippers book a space by the cubic metre, and a crossing that is delayed by weather is charged at the same rate, however long the wait.</p>
      <button>Talk to us</button>${dialog}
    </article></main></body></html>`;
  const form = (open: string) =>
    `<dialog${open}><h2>Talk to an expert about your cargo</h2><div><label>First name *</label><label>Work email *</label><label>Company *</label></div><ul><li>Pallets</li><li>Barrels</li><li>Crates</li></ul><p>By sending this form you agree that we store your details.</p></dialog>`;

  it("leaves out a dialog the page keeps closed until a script opens it", async () => {
    const text = textOf(await readHtml(page(form("")), "https://tidewater.example/"));
    inOrder(text, ["Freight by sail", "restored ketches", "cubic metre"]);
    for (const dropped of ["Talk to an expert", "Work email", "Barrels", "agree that we store"]) {
      assert.ok(!text.includes(dropped), `kept: ${dropped}\n${text}`);
    }
  });

  it("keeps a dialog the page shows open", async () => {
    const text = textOf(await readHtml(page(form(" open")), "https://tidewater.example/"));
    assert.ok(text.includes("agree that we store"), text);
  });
});
