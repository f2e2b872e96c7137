/**
 * The direct reader on product and service pages: each case is a small page written for the
 * test in the markup its kind of site uses.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { readHtml } from "../../../src/web/providers/direct/html.js";

const fixture = (name: string) => readFileSync(new URL(`fixtures/${name}`, import.meta.url), "utf8");
const textOf = (outcome: Awaited<ReturnType<typeof readHtml>>) =>
  outcome.content.map((part) => (part.type === "text" ? part.text : "")).join("");

/** Asserts that each of `parts` occurs in `text`, in this order. */
function inOrder(text: string, parts: readonly string[]): void {
  let at = 0;
  for (const part of parts) {
    const found = text.indexOf(part, at);
    assert.ok(found >= 0, `missing after character ${at}: ${part}\n${text}`);
    at = found + part.length;
  }
}

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
