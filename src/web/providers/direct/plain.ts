/**
 * A page's visible text read straight from the tokenizer, without a DOM: for pages whose DOM
 * would cost too much (nested too deep, or too many elements; shape.ts). One pass, linear in
 * the page: text in document order, a line per block, nothing from scripts, styles, the head or
 * other hidden elements; the title from the first `<title>`.
 */
import { Tokenizer } from "htmlparser2";
import { BLOCK } from "./markdown.js";
import { ignored } from "./shape.js";

/** Elements whose text is not the page's. */
const HIDDEN = new Set(["script", "style", "noscript", "template", "svg", "head", "title", "textarea"]);

export interface PlainText {
  readonly title?: string;
  readonly text: string;
}

export function plainText(html: string): PlainText {
  // Lines are gathered as they end, whitespace collapsed: a page of many tiny blocks keeps its
  // lines, not every piece of text the tokenizer handed over.
  const lines: string[] = [];
  let line: string[] = [];
  const endLine = () => {
    const text = line.join("").replace(/\s+/g, " ").trim();
    if (text !== "") lines.push(text);
    line = [];
  };
  const titleParts: string[] = [];
  // Open hidden elements by name: text counts only when none is open.
  const open = new Map<string, number>();
  let hidden = 0;
  let name = "";
  let inTitle = false;
  let titleDone = false;
  const close = (tag: string) => {
    const count = open.get(tag) ?? 0;
    if (count > 0) {
      open.set(tag, count - 1);
      hidden--;
    }
    if (tag === "title" && inTitle) {
      inTitle = false;
      titleDone = true;
    }
  };
  const text = (value: string) => {
    if (inTitle) titleParts.push(value);
    else if (hidden === 0) line.push(value);
  };
  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      ...ignored,
      onopentagname(start, end) {
        name = html.slice(start, end).toLowerCase();
        // A head never closed ends where the body starts, as browsers have it.
        if (name === "body") while ((open.get("head") ?? 0) > 0) close("head");
        if (HIDDEN.has(name)) {
          open.set(name, (open.get(name) ?? 0) + 1);
          hidden++;
          if (name === "title" && !titleDone) inTitle = true;
        }
        if (BLOCK.has(name) || name === "br") endLine();
      },
      onselfclosingtag() {
        // `<svg/>` holds nothing; other self-closing tags are read as opened, as the parser does.
        if (name === "svg") close(name);
      },
      onclosetag(start, end) {
        const tag = html.slice(start, end).toLowerCase();
        close(tag);
        if (BLOCK.has(tag) || tag === "br") endLine();
      },
      ontext(start, end) {
        text(html.slice(start, end));
      },
      ontextentity(codePoint) {
        text(String.fromCodePoint(codePoint));
      },
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  endLine();
  const title = titleParts.join("").replace(/\s+/g, " ").trim();
  return { ...(title === "" ? {} : { title }), text: lines.join("\n\n") };
}
