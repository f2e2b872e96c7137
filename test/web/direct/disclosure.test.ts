/**
 * Disclosure buttons (disclosure.ts) on a hostile page: thousands of buttons naming panels.
 * Each panel is found through one walk of the page and judged once, whatever the number of
 * buttons naming it; shown by counts, never by a clock.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseHTML } from "linkedom";
import { unwrapDisclosures } from "../../../src/web/providers/direct/disclosure.js";

describe("disclosure buttons on a page of many", () => {
  it("walks the page once for its panels and reads each panel's text once", () => {
    const count = 2000;
    const buttons = Array.from(
      { length: count },
      (_, i) => `<h3><button aria-expanded="false" aria-controls="answer">Question ${i}?</button></h3>`,
    ).join("");
    const { document } = parseHTML(
      `<html><body><main>${buttons}<div id="answer"><p>One answer for every question on the page.</p></div></main></body></html>`,
    );
    const root = document.body;
    let lookups = 0;
    const query = root.querySelector.bind(root);
    root.querySelector = (selector: string) => {
      lookups += 1;
      return query(selector);
    };
    const panel = document.getElementById("answer");
    let reads = 0;
    const getter = inherited(panel, "textContent");
    Object.defineProperty(panel, "textContent", {
      get() {
        reads += 1;
        return getter?.call(this);
      },
    });
    unwrapDisclosures(root);
    assert.equal(lookups, 0);
    assert.equal(reads, 1);
    assert.equal(root.querySelectorAll("button").length, 0);
    assert.match(root.textContent, /Question 1999\?/);
  });
});

/** The getter an object inherits for a property, from the nearest prototype that defines it. */
function inherited(object: object, name: string): (() => unknown) | undefined {
  for (let at = Object.getPrototypeOf(object); at !== null; at = Object.getPrototypeOf(at)) {
    const descriptor = Object.getOwnPropertyDescriptor(at, name);
    if (descriptor !== undefined) return descriptor.get;
  }
  return undefined;
}
