/**
 * What the parser will make of a page, found before a DOM is built: how deep its elements nest,
 * how many nodes it makes (elements, attributes, text runs, comments: linkedom makes a node of
 * each), and whether attributes are too long or too many for the DOM to take.
 *
 * The DOM costs far more per element than the parse (Readability and the Markdown walk it many
 * times), and htmlparser2, under linkedom, keeps its open elements in an array it grows at the
 * front: each element costs as much as the depth it opens at, so 200,000 nested elements take
 * tens of seconds. This scan runs the same parser with the same rules, counting what it opens and
 * closes, and stops as soon as a bound is passed: the parser's stack never grows beyond the
 * depth bound here, so the scan is linear in the page. A page past a bound is read as plain
 * text without a DOM (plain.ts). Over-long attributes (linkedom passes a class's tokens to
 * one call as arguments: 250,000 of them overflow the stack) and an element's attributes past
 * WEB_READ_MAX_ELEMENT_ATTRIBUTES are cut out of the page instead (boundedAttributes).
 */
import { Parser, Tokenizer } from "htmlparser2";
import {
  WEB_READ_MAX_ATTRIBUTE_CHARS,
  WEB_READ_MAX_DEPTH,
  WEB_READ_MAX_ELEMENT_ATTRIBUTES,
  WEB_READ_MAX_ELEMENTS,
  WEB_READ_MAX_NODES,
} from "../../../core/limits.js";

export interface PageShape {
  /** Some element lies more than WEB_READ_MAX_DEPTH levels below the root element. */
  readonly tooDeep: boolean;
  /** The page makes more than WEB_READ_MAX_ELEMENTS elements or WEB_READ_MAX_NODES nodes. */
  readonly tooMany: boolean;
  /** Some attribute value is longer than WEB_READ_MAX_ATTRIBUTE_CHARS, or some element has more than WEB_READ_MAX_ELEMENT_ATTRIBUTES. */
  readonly excessAttributes: boolean;
}

/** The shape of `html` as linkedom's parser reads it (its options: HTML, entities decoded). */
export function pageShape(html: string): PageShape {
  let depth = 0;
  let elements = 0;
  let nodes = 0;
  let tooDeep = false;
  let tooMany = false;
  let excessAttributes = false;
  let attributes = 0;
  const node = () => {
    if (++nodes > WEB_READ_MAX_NODES) {
      tooMany = true;
      parser.pause();
    }
  };
  const parser: Parser = new Parser(
    {
      onopentagname() {
        attributes = 0;
        // The root element is level 0 (linkedom's documentElement), so the stack holds depth + 1.
        if (++depth - 1 > WEB_READ_MAX_DEPTH) {
          tooDeep = true;
          parser.pause();
        }
        if (++elements > WEB_READ_MAX_ELEMENTS) {
          tooMany = true;
          parser.pause();
        }
        node();
      },
      onclosetag() {
        depth--;
      },
      onattribute(_name, value) {
        if (value.length > WEB_READ_MAX_ATTRIBUTE_CHARS || ++attributes > WEB_READ_MAX_ELEMENT_ATTRIBUTES)
          excessAttributes = true;
        node();
      },
      // Each run the parser hands over is a node of its own (an entity splits a text in three).
      ontext: node,
      oncomment: node,
      oncdatastart: node,
      onprocessinginstruction: node,
    },
    { lowerCaseAttributeNames: false, decodeEntities: true },
  );
  // Paused past a bound, the parser reads no further: what is left of the page is not scanned.
  parser.write(html);
  return { tooDeep, tooMany, excessAttributes };
}

/**
 * The page without the attributes whose value is longer than WEB_READ_MAX_ATTRIBUTE_CHARS, nor an
 * element's attributes past its first WEB_READ_MAX_ELEMENT_ATTRIBUTES.
 */
export function boundedAttributes(html: string): string {
  const cuts: [number, number][] = [];
  let start = -1;
  let valueLength = 0;
  let count = 0;
  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      ...ignored,
      onopentagname() {
        count = 0;
      },
      onattribname(nameStart) {
        start = nameStart;
        valueLength = 0;
        count++;
      },
      onattribdata(dataStart, endIndex) {
        valueLength += endIndex - dataStart;
      },
      onattribentity() {
        valueLength++;
      },
      onattribend(_quote, endIndex) {
        if (valueLength > WEB_READ_MAX_ATTRIBUTE_CHARS || count > WEB_READ_MAX_ELEMENT_ATTRIBUTES)
          cuts.push([start, endIndex]);
      },
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  if (cuts.length === 0) return html;
  const parts: string[] = [];
  let at = 0;
  for (const [from, to] of cuts) {
    parts.push(html.slice(at, from));
    at = to;
  }
  parts.push(html.slice(at));
  return parts.join("");
}

/** `<![CDATA[`, which the tokenizer reports by the index just past it. */
const CDATA_OPEN = "<![CDATA[";

/**
 * The page with each `<![CDATA[` in HTML content cut as a browser cuts it: outside SVG and
 * MathML it opens no CDATA section but a bogus comment, which ends at the first `>`. htmlparser2
 * reads on to `]]>`, or to the end of the page when none follows, and the rest of the page is
 * lost (a forum theme opens one at the top of its body). In scripts and styles, where such
 * markers are common, the tokenizer reads raw text and reports none.
 */
export function browserCdata(html: string): string {
  if (!html.includes(CDATA_OPEN)) return html;
  const starts: number[] = [];
  const tokenizer = new Tokenizer(
    { decodeEntities: false },
    {
      ...ignored,
      oncdata(start) {
        starts.push(start - CDATA_OPEN.length);
      },
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  if (starts.length === 0) return html;
  const parts: string[] = [];
  let at = 0;
  for (const start of starts) {
    if (start < at) continue;
    const end = html.indexOf(">", start);
    parts.push(html.slice(at, start));
    at = end < 0 ? html.length : end + 1;
  }
  parts.push(html.slice(at));
  return parts.join("");
}

/** Tokenizer callbacks that do nothing, for the ones a pass does not need. */
export const ignored = {
  onattribdata() {},
  onattribentity() {},
  onattribend() {},
  onattribname() {},
  oncdata() {},
  onclosetag() {},
  oncomment() {},
  ondeclaration() {},
  onend() {},
  onopentagend() {},
  onopentagname() {},
  onprocessinginstruction() {},
  onselfclosingtag() {},
  ontext() {},
  ontextentity() {},
} satisfies ConstructorParameters<typeof Tokenizer>[1];
