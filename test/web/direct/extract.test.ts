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
});
