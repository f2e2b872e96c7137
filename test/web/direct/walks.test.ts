/**
 * The walks that replace strings and selectors the reader built per element: `textLength`
 * counts a block's text as the reader's rules weigh it (white space runs as one, none at either
 * end) without building the text, and must give what the string would, whatever the white space
 * and wherever the node boundaries fall; `closestOf` and `firstUnder` find what linkedom's
 * `closest` and `querySelector` find, a template's content left out as linkedom leaves it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseHTML } from "linkedom";
import {
  closestOf,
  firstUnder,
  isLink,
  nextUnder,
  textLength,
} from "../../../src/web/providers/direct/document.js";

/** The definition: the text gathered, its white space collapsed, trimmed. */
function byString(element: { textContent: string | null }): number {
  return (element.textContent ?? "").replace(/\s+/g, " ").trim().length;
}

function body(html: string) {
  return parseHTML(`<!DOCTYPE html><html><head></head><body>${html}</body></html>`).document.body;
}

/** White space of every kind `\s` matches, and look-alikes it does not (zero width space, NEL). */
const PIECES = [
  " ",
  "\n",
  "\t",
  "\r\n",
  "\u00a0",
  "\u2003",
  "\u3000",
  "\ufeff",
  "\u2028",
  "\u200b",
  "\u0085",
  "é",
  "word",
  "𝒳",
  "<!-- c -->",
  "<b>",
  "</b>",
  "<i>x</i>",
  "<br>",
  "<span> </span>",
];

/** A small deterministic generator, so a failing case can be run again. */
function pseudoRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

describe("textLength", () => {
  it("counts runs of white space of any kind as one, across elements and text nodes, none at the ends", () => {
    const element = body(
      "<div>\u00a0 <p> Two\u3000\u3000words </p>\n<!-- a comment -->\t<span>and</span><b> </b><i>more\u2028</i>\ufeff</div>",
    ).firstElementChild;
    assert.equal(textLength(element), "Two words and more".length);
    assert.equal(textLength(element), byString(element));
  });

  it("gives 0 for an empty block and for one of white space and comments only", () => {
    assert.equal(textLength(body("<div></div>").firstElementChild), 0);
    assert.equal(textLength(body("<div> \n<!-- x --><span>\u00a0</span>\t</div>").firstElementChild), 0);
  });

  it("counts a zero width space and NEL as text, as the pattern does, and astral characters as two", () => {
    const element = body("<p>a\u200bb \u0085 𝒳</p>").firstElementChild;
    assert.equal(textLength(element), byString(element));
    assert.equal(textLength(element), 8);
  });

  it("agrees with the string's length on generated trees", () => {
    const next = pseudoRandom(33);
    for (let round = 0; round < 300; round++) {
      let html = "";
      const parts = 1 + Math.floor(next() * 30);
      for (let part = 0; part < parts; part++) html += PIECES[Math.floor(next() * PIECES.length)];
      const element = body(`<div>${html}</div>`).firstElementChild;
      assert.equal(textLength(element), byString(element), JSON.stringify(html));
    }
  });

  it("counts a text node and a fragment as their text", () => {
    const document = parseHTML("<!DOCTYPE html><html><body></body></html>").document;
    assert.equal(textLength(document.createTextNode("  a  b  ")), 3);
    const fragment = document.createDocumentFragment();
    fragment.appendChild(document.createTextNode(" one "));
    fragment.appendChild(document.createElement("p")).textContent = " two ";
    assert.equal(textLength(fragment), "one two".length);
  });
});

describe("closestOf and firstUnder", () => {
  const page = body(
    `<header><div id="a"><span id="b">x</span></div></header>
     <div role="navigation"><p id="c">y</p></div>
     <div role="Navigation"><p id="d">z</p></div>
     <section id="s1"><template><a href="/in-template">t</a></template><div><a id="e">no href</a></div></section>
     <section id="s2"><div><ul><li><a href="/x" id="f">x</a></li></ul></div></section>`,
  );
  const byId = (id: string) => page.querySelector(`#${id}`);

  it("finds the nearest element of a tag or role, as closest() does", () => {
    const chrome = new Set(["nav", "footer", "header", "aside"]);
    for (const id of ["a", "b", "c", "d", "e", "f"]) {
      const element = byId(id);
      assert.equal(
        closestOf(element, chrome, "navigation"),
        element.closest("nav, footer, header, aside, [role='navigation']"),
        id,
      );
    }
    assert.equal(closestOf(byId("b"), chrome, "navigation")?.localName, "header");
    // A role's value is matched as written, as the selector matches it.
    assert.equal(closestOf(byId("d"), chrome, "navigation"), null);
  });

  it("finds the first element under a root that a test accepts, leaving a template's content out", () => {
    assert.equal(firstUnder(byId("s1"), isLink), null);
    assert.equal(byId("s1").querySelector("a[href]"), null);
    assert.equal(firstUnder(byId("s2"), isLink), byId("f"));
    assert.equal(firstUnder(page, isLink), page.querySelector("a[href]"));
    assert.equal(firstUnder(byId("f"), isLink), null, "the root itself is not under itself");
  });

  it("walks the elements querySelectorAll('*') lists, in its order", () => {
    for (const root of [page, byId("s1"), byId("s2"), byId("f")]) {
      const walked = [];
      for (let element = nextUnder(root, root); element !== null; element = nextUnder(root, element))
        walked.push(element);
      const listed = Array.from(root.querySelectorAll("*"));
      assert.equal(walked.length, listed.length);
      for (const [at, element] of walked.entries()) assert.ok(element === listed[at], `element ${at}`);
    }
  });
});
