/**
 * The round-trip check of the direct reader's Markdown: what a CommonMark + GFM parser
 * (markdown-it, with tables and strikethrough) reads back as text, against the page's own text.
 */
import { parseHTML } from "linkedom";
import MarkdownIt from "markdown-it";

const parser = new MarkdownIt("commonmark").enable(["table", "strikethrough"]);

/** The text a reader of the rendered Markdown sees: inline text, code, image alt text. */
export function markdownText(markdown: string): string {
  let out = "";
  const walk = (tokens: ReturnType<typeof parser.parse>) => {
    for (const token of tokens) {
      if (token.children) walk(token.children);
      else if (["text", "code_inline", "code_block", "fence"].includes(token.type)) out += token.content;
      out += " ";
    }
  };
  walk(parser.parse(markdown, {}));
  return out;
}

/** Element and token kinds markdown-it found (to assert structure: heading_open, table_open...). */
export function markdownKinds(markdown: string): string[] {
  const kinds: string[] = [];
  const walk = (tokens: ReturnType<typeof parser.parse>) => {
    for (const token of tokens) {
      kinds.push(token.type);
      if (token.children) walk(token.children);
    }
  };
  walk(parser.parse(markdown, {}));
  return kinds;
}

const SKIPPED = new Set(["script", "style", "noscript", "template", "head", "button", "select", "textarea"]);

/** The page's text as a person sees it: text nodes, and image alt text where an image is. */
export function pageText(node: { childNodes: ArrayLike<unknown> }): string {
  let out = "";
  for (const child of Array.from(node.childNodes) as Array<{
    nodeType: number;
    nodeValue: string | null;
    localName?: string;
    getAttribute(name: string): string | null;
    childNodes: ArrayLike<unknown>;
  }>) {
    if (child.nodeType === 3) out += child.nodeValue ?? "";
    else if (child.nodeType === 1 && !SKIPPED.has(child.localName ?? "")) {
      out += child.localName === "img" ? ` ${child.getAttribute("alt") ?? ""} ` : ` ${pageText(child)} `;
    }
  }
  return out;
}

/** Compared without whitespace: Markdown decides line breaks, the text must not change. */
export function sameText(a: string, b: string): boolean {
  return a.replace(/\s+/g, "") === b.replace(/\s+/g, "");
}

export function parse(html: string) {
  return parseHTML(html).document;
}
