/**
 * Pages made with a page builder: Elementor wraps every block of a page, the article's
 * paragraphs included, in an `elementor-widget`. A widget is furniture on most sites (a sidebar's
 * recent posts); a builder's widget is the article's text unless its other words say otherwise.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readHtml } from "../../../src/web/providers/direct/html.js";
import { inOrder, textOf } from "./reader-text.js";

const widget = (kind: string, inner: string) =>
  `<div class="elementor-element elementor-widget elementor-widget-${kind}"><div class="elementor-widget-container">${inner}</div></div>`;

const section = (step: number) =>
  `<section class="elementor-section elementor-top-section"><div class="elementor-container"><div class="elementor-column"><div class="elementor-widget-wrap">
    ${widget("heading", `<h2>Step ${step}: pair the tracker</h2>`)}
    ${widget("text-editor", `<p>Step ${step} begins in the companion app: open the devices page, choose the room sensor you placed in step ${step}, and wait until its light blinks twice before you go on.</p><p>When the sensor answers, give it the room's name; the automations of step ${step} will use that name to decide who is in the room.</p>`)}
  </div></div></div></section>`;

const INTRO =
  "Unlike a presence sensor, a room sensor tells you who is in each room, so lights and heating can follow the person and not only the fact that someone is home. This guide pairs the trackers, names the rooms and writes the automations, one step at a time.";

const html = `<!DOCTYPE html><html lang="en"><head><title>Room presence with Bluetooth</title><meta property="og:type" content="article"><meta property="article:published_time" content="2025-12-01T10:00:00Z"></head><body>
  <header><nav><a href="/">Home</a><a href="/guides">Guides</a></nav></header>
  <div class="site-content"><div class="elementor elementor-theme">
    ${widget("theme-post-title", "<h1>Room presence with Bluetooth</h1>")}
    ${widget("theme-post-content", `<div class="entry-content"><p>${INTRO}</p><div class="elementor">${[1, 2, 3, 4, 5].map(section).join("")}</div></div>`)}
    ${widget("share-buttons", '<a href="https://share.example/?u=1">Share on social</a>')}
  </div>
  <aside class="sidebar"><div class="widget widget_recent_entries"><h3>Recent posts</h3><ul><li><a href="/a">Smart plugs compared</a></li><li><a href="/b">Zigbee or Wi-Fi</a></li><li><a href="/c">Energy dashboards</a></li></ul></div></aside></div>
  <footer><p>Home Lab Weekly</p></footer></body></html>`;

describe("direct reader on a page builder's article", () => {
  it("reads every block the builder calls a widget, and leaves out its share buttons and the sidebar's widgets", async () => {
    const text = textOf(await readHtml(html, "https://homelab.example/room-presence"));
    inOrder(text, [
      "Step 1: pair the tracker",
      "Step 1 begins",
      "Step 3 begins",
      "Step 5 begins",
      "step 5 will use",
    ]);
    assert.doesNotMatch(text, /Share on social|Recent posts|Smart plugs/);
  });
});
