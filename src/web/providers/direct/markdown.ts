/**
 * HTML (a DOM subtree) to CommonMark + GFM, written for a model to read: the page's text in its
 * order, with structure where Markdown has it (headings, lists, quotes, code blocks with their
 * language, GFM tables, links and images with alt text) and nothing Markdown would misread.
 *
 * Two rules carry the fidelity. Text is escaped where a parser could take it for syntax: inline
 * (`*`, `_`, backticks, brackets, HTML-like `<`, entity-like `&`) as each text node is written,
 * and at line starts (`#`, `>`, `-`, `+`, `1.`, `1)`, setext underlines, fences) once lines are
 * known. Leading whitespace is never written, so no text becomes an indented code block. A link
 * wrapped around blocks (a card: heading, image, teaser) keeps its blocks and drops the wrapper;
 * its URL stays in the page's link index. Parsing the output with a CommonMark + GFM parser gives
 * back the page's text (test/web/direct/markdown.test.ts checks it).
 */

/** The few DOM members used, so that any DOM (linkedom here) fits. */
export interface MdNode {
  readonly nodeType: number;
  readonly nodeValue?: string | null;
  readonly childNodes: ArrayLike<MdNode>;
  /** A DOM's own nodes have these: walked instead of `childNodes`, which linkedom builds anew at each read. */
  readonly firstChild?: MdNode | null;
  readonly nextSibling?: MdNode | null;
  readonly localName?: string;
  readonly parentNode?: MdNode | null;
  getAttribute?(name: string): string | null;
}

const ELEMENT = 1;
const TEXT = 3;

/** Elements whose content is never page text. */
const SKIP = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "head",
  "meta",
  "link",
  "title",
  "iframe",
  "object",
  "embed",
  "svg",
  "math",
  "canvas",
  "audio",
  "video",
  "source",
  "track",
  "map",
  "input",
  "select",
  "option",
  "textarea",
  "button",
]);

/** Elements that stand on lines of their own (plain.ts ends a line of text at each too). */
export const BLOCK = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "body",
  "caption",
  "center",
  "dd",
  "details",
  "dir",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hgroup",
  "hr",
  "html",
  "legend",
  "li",
  "main",
  "menu",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "summary",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
  "ul",
]);

/** Converts the children of `root` to Markdown. */
export function toMarkdown(root: MdNode): string {
  return markdownBlocks(root).join("\n\n");
}

/** The Markdown blocks (paragraphs, headings, lists...) of the children of `root`, in order. */
export function markdownBlocks(root: MdNode): string[] {
  return new Converter().blocks(root);
}

/** A run of inline Markdown without its outer whitespace, and whether whitespace flanked it. */
interface Piece {
  readonly text: string;
  readonly lead: boolean;
  readonly trail: boolean;
}

/** Hard line break inside inline content (a `<br>`), resolved when the paragraph is written. */
const BREAK = "\n";

class InlineBuilder {
  #text = "";
  #lead = false;
  #pending = false;
  /**
   * Whether the text ends with a line break, kept here: asking the text itself flattens the
   * string built so far, each time, which made a paragraph of many links quadratic.
   */
  #afterBreak = false;

  space(): void {
    if (this.#text === "") this.#lead = true;
    else if (!this.#afterBreak) this.#pending = true;
  }

  push(markdown: string): void {
    if (markdown === "") return;
    if (this.#pending) this.#text += " ";
    this.#pending = false;
    this.#text += markdown;
    this.#afterBreak = markdown.endsWith(BREAK);
  }

  lineBreak(): void {
    this.#pending = false;
    this.#text += BREAK;
    this.#afterBreak = true;
  }

  piece(piece: Piece, wrap: (text: string) => string = (text) => text): void {
    if (piece.lead) this.space();
    if (piece.text !== "") this.push(wrap(piece.text));
    if (piece.trail) this.space();
  }

  get empty(): boolean {
    return this.#text.replaceAll(BREAK, "") === "";
  }

  result(): Piece {
    return { text: this.#text, lead: this.#lead, trail: this.#pending };
  }
}

class Converter {
  /** Open emphasis kinds, so nested `<b><b>` does not write `****`. */
  #open = new Set<string>();
  /** Inside link text: nested links become their text. */
  #inLink = false;

  /** The block-level Markdown of an element's children, in order. */
  blocks(node: MdNode): string[] {
    const out: string[] = [];
    let inline = new InlineBuilder();
    const flush = () => {
      if (!inline.empty) append(out, paragraphs(inline.result().text));
      inline = new InlineBuilder();
    };
    for (const child of mergedChildren(node)) {
      if (typeof child === "string") {
        this.#text(child, inline);
        continue;
      }
      const tag = child.localName ?? "";
      if (SKIP.has(tag)) continue;
      if (BLOCK.has(tag) || hasBlock(child)) {
        flush();
        append(out, this.#block(child, tag));
      } else {
        this.#inline(child, tag, inline);
      }
    }
    flush();
    return out;
  }

  #block(element: MdNode, tag: string): string[] {
    switch (tag) {
      case "h1":
      case "h2":
      case "h3":
      case "h4":
      case "h5":
      case "h6": {
        // Escaped like a line start too, for readers that strip the `#`s and read on.
        const text = escapeLineStart(oneLine(this.inlineOf(element, true).text));
        if (text === "") return [];
        // A closing run of `#` would be read as the heading's optional closing sequence.
        return [`${"#".repeat(Number(tag[1]))} ${text.replace(/(^|\s)(#+)$/, "$1\\$2")}`];
      }
      case "ul":
      case "ol":
        return this.#list(element, tag === "ol");
      case "blockquote": {
        const inner = this.blocks(element).join("\n\n");
        if (inner === "") return [];
        return [
          inner
            .split("\n")
            .map((line) => (line === "" ? ">" : `> ${line}`))
            .join("\n"),
        ];
      }
      case "pre":
        return codeBlock(element);
      case "table":
        return this.#table(element);
      case "hr":
        return ["---"];
      default:
        // Containers, paragraphs, figures, list items out of lists, links around blocks.
        return this.blocks(element);
    }
  }

  #list(element: MdNode, ordered: boolean): string[] {
    const start = Number.parseInt(element.getAttribute?.("start") ?? "", 10);
    let number = ordered && Number.isFinite(start) && start >= 0 ? Math.min(start, 999_999_999) : 1;
    const items: string[][] = [];
    let stray: MdNode[] = [];
    const addItem = (blocks: string[]) => {
      if (blocks.length === 0) return;
      const marker = ordered ? `${number++}.` : "-";
      const indent = " ".repeat(marker.length + 1);
      const lines = joinItemBlocks(blocks).split("\n");
      items.push([
        `${marker} ${lines[0] ?? ""}`,
        ...lines.slice(1).map((line) => (line === "" ? "" : indent + line)),
      ]);
    };
    const flushStray = () => {
      if (stray.length > 0) addItem(this.blocks({ nodeType: ELEMENT, childNodes: stray, localName: "div" }));
      stray = [];
    };
    for (const child of Array.from(element.childNodes)) {
      if (child.nodeType === ELEMENT && child.localName === "li") {
        flushStray();
        addItem(this.blocks(child));
      } else if (child.nodeType === ELEMENT && (child.localName === "ul" || child.localName === "ol")) {
        flushStray();
        // A list directly inside a list (invalid, common): it belongs to the previous item.
        const nested = this.#list(child, child.localName === "ol");
        const last = items.at(-1);
        if (last !== undefined && nested.length > 0) {
          const indent = " ".repeat((last[0]?.indexOf(" ") ?? 1) + 1);
          append(
            last,
            (nested[0] as string).split("\n").map((line) => (line === "" ? "" : indent + line)),
          );
        } else
          append(
            items,
            nested.map((block) => [block]),
          );
      } else if (child.nodeType === TEXT || child.nodeType === ELEMENT) {
        stray.push(child);
      }
    }
    flushStray();
    if (items.length === 0) return [];
    const loose = items.some((lines) => lines.includes(""));
    return [items.map((lines) => lines.join("\n")).join(loose ? "\n\n" : "\n")];
  }

  #table(table: MdNode): string[] {
    const rows: MdNode[][] = [];
    const caption: MdNode[] = [];
    let layout = false;
    const collect = (node: MdNode) => {
      for (const child of Array.from(node.childNodes)) {
        if (child.nodeType !== ELEMENT) continue;
        const tag = child.localName;
        if (tag === "thead" || tag === "tbody" || tag === "tfoot") collect(child);
        else if (tag === "tr") {
          const cells = Array.from(child.childNodes).filter(
            (cell) => cell.nodeType === ELEMENT && (cell.localName === "td" || cell.localName === "th"),
          );
          if (cells.length > 0) rows.push(cells);
        } else if (tag === "caption") caption.push(child);
      }
    };
    collect(table);
    const width = Math.max(0, ...rows.map((cells) => cells.reduce((sum, cell) => sum + span(cell), 0)));
    for (const cells of rows) for (const cell of cells) if (hasStructure(cell)) layout = true;
    const before = caption.flatMap((node) => this.blocks(node));
    // Layout tables (one column, nested tables, blocks in cells) read better as their blocks.
    if (layout || width < 2 || rows.length === 0) {
      return [...before, ...rows.flatMap((cells) => cells.flatMap((cell) => this.blocks(cell)))];
    }
    const lines = rows.map((cells) => {
      const texts: string[] = [];
      for (const cell of cells) {
        texts.push(oneLine(this.inlineOf(cell, true).text).replaceAll("|", "\\|"));
        for (let extra = 1; extra < span(cell); extra++) texts.push("");
      }
      while (texts.length < width) texts.push("");
      return `| ${texts.join(" | ")} |`;
    });
    const delimiter = `| ${Array.from({ length: width }, () => "---").join(" | ")} |`;
    return [...before, [lines[0], delimiter, ...lines.slice(1)].join("\n")];
  }

  /** Inline content of an element; with `flatten`, blocks inside it become spaces. */
  inlineOf(element: MdNode, flatten = false): Piece {
    const builder = new InlineBuilder();
    this.#children(element, builder, flatten);
    return builder.result();
  }

  #children(element: MdNode, builder: InlineBuilder, flatten: boolean): void {
    for (const child of mergedChildren(element)) {
      if (typeof child === "string") this.#text(child, builder);
      else {
        const tag = child.localName ?? "";
        if (SKIP.has(tag)) continue;
        if (flatten && BLOCK.has(tag)) {
          builder.space();
          this.#children(child, builder, true);
          builder.space();
        } else this.#inline(child, tag, builder, flatten);
      }
    }
  }

  #text(value: string, builder: InlineBuilder): void {
    const collapsed = value.replace(/[ \t\n\r\f]+/g, " ");
    if (collapsed === "") return;
    if (collapsed.startsWith(" ")) builder.space();
    // Only HTML whitespace collapses; a no-break space is the page's text.
    const core = collapsed.replace(/^ | $/g, "");
    if (core !== "") builder.push(escapeInline(core));
    if (collapsed.endsWith(" ") && core !== "") builder.space();
  }

  #inline(element: MdNode, tag: string, builder: InlineBuilder, flatten = false): void {
    switch (tag) {
      case "br":
        builder.lineBreak();
        return;
      case "img":
        builder.push(image(element));
        return;
      case "em":
      case "i":
      case "cite":
      case "dfn":
        this.#emphasis(element, "*", builder, flatten);
        return;
      case "strong":
      case "b":
        this.#emphasis(element, "**", builder, flatten);
        return;
      case "del":
      case "s":
      case "strike":
        this.#emphasis(element, "~~", builder, flatten);
        return;
      case "code":
      case "kbd":
      case "samp":
      case "tt": {
        const code = textOf(element).replace(/\s+/g, " ");
        if (code.trim() === "") {
          if (code !== "") builder.space();
          return;
        }
        builder.push(codeSpan(code));
        return;
      }
      case "a": {
        const href = element.getAttribute?.("href") ?? "";
        const piece = this.#linkText(element, flatten);
        if (this.#inLink || !/^(https?:|mailto:)/i.test(href) || piece.text.trim() === "") {
          builder.piece(piece);
          return;
        }
        builder.piece(piece, (text) => `[${text.replace(/^\n+|\n+$/g, "")}](${destination(href)})`);
        return;
      }
      default: {
        const piece = this.inlineOf(element, flatten);
        builder.piece(piece);
      }
    }
  }

  #linkText(element: MdNode, flatten: boolean): Piece {
    const was = this.#inLink;
    this.#inLink = true;
    try {
      return this.inlineOf(element, flatten);
    } finally {
      this.#inLink = was;
    }
  }

  #emphasis(element: MdNode, marker: string, builder: InlineBuilder, flatten: boolean): void {
    if (this.#open.has(marker)) {
      builder.piece(this.inlineOf(element, flatten));
      return;
    }
    this.#open.add(marker);
    let piece: Piece;
    try {
      piece = this.inlineOf(element, flatten);
    } finally {
      this.#open.delete(marker);
    }
    // Delimiters must touch the text: other whitespace (no-break spaces) goes outside them.
    const [, before = "", text = "", after = ""] = /^(\s*)([\s\S]*?)(\s*)$/u.exec(piece.text) ?? [];
    // A delimiter next to punctuation may not be read as emphasis: then the text stays plain.
    const plain = text === "" || /^[\p{P}\p{S}]|[\p{P}\p{S}]$/u.test(text) || text.includes(BREAK);
    builder.piece(
      {
        ...piece,
        text:
          piece.text.trim() === ""
            ? ""
            : `${before.replaceAll(BREAK, "")}${text}${after.replaceAll(BREAK, "")}`,
      },
      plain
        ? undefined
        : () => `${before.replaceAll(BREAK, "")}${marker}${text}${marker}${after.replaceAll(BREAK, "")}`,
    );
  }
}

/**
 * Child elements, and the text between them as one string: parsers split text at entities
 * (`&amp;copy;` arrives as "&" and "copy;"), and escaping must see the text whole.
 */
function mergedChildren(node: MdNode): Array<MdNode | string> {
  const out: Array<MdNode | string> = [];
  someChild(node, (child) => {
    if (child.nodeType === TEXT) {
      const last = out.at(-1);
      if (typeof last === "string") out[out.length - 1] = last + (child.nodeValue ?? "");
      else out.push(child.nodeValue ?? "");
    } else if (child.nodeType === ELEMENT) out.push(child);
    return false;
  });
  return out;
}

/**
 * Calls `visit` on each child in order until it returns true; whether one did. A DOM's node is
 * walked from child to sibling (linkedom builds `childNodes` anew at each read); a list's loose
 * items come as a made-up node that has only `childNodes`.
 */
function someChild(node: MdNode, visit: (child: MdNode) => boolean): boolean {
  if (node.firstChild === undefined) return Array.from(node.childNodes).some(visit);
  for (let child = node.firstChild; child != null; child = child.nextSibling ?? null)
    if (visit(child)) return true;
  return false;
}

/** Paragraph blocks of an inline run: hard breaks kept, blank lines (two breaks) split. */
function paragraphs(text: string): string[] {
  const out: string[] = [];
  let lines: string[] = [];
  const flush = () => {
    if (lines.length > 0) out.push(lines.map(escapeLineStart).join("  \n"));
    lines = [];
  };
  for (const raw of text.split(BREAK)) {
    const line = raw.trim();
    if (line === "") flush();
    else lines.push(line);
  }
  flush();
  return out;
}

/** A list item's blocks: a nested list follows its text tightly, other blocks after a blank line. */
function joinItemBlocks(blocks: readonly string[]): string {
  let out = blocks[0] ?? "";
  for (const block of blocks.slice(1)) out += (/^(-|\d+\.) /.test(block) ? "\n" : "\n\n") + block;
  return out;
}

function oneLine(text: string): string {
  return text
    .split(BREAK)
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(" ");
}

/** Characters inline parsing may take for syntax; text without any (most text) is returned as it is. */
const INLINE_SYNTAX = /[\\*_`[\]<&~]/;
const INLINE_SYNTAX_ALL = /[\\*_`[\]<&~]/g;
/** An entity reference starting where the regex's `lastIndex` is set. */
const ENTITY_AT = /&(#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);/y;

/** Escapes what inline parsing could take for syntax; the rest of the text is left as it is. */
export function escapeInline(text: string): string {
  if (!INLINE_SYNTAX.test(text)) return text;
  const tildes = (text.match(/~/g)?.length ?? 0) >= 2;
  return text.replace(INLINE_SYNTAX_ALL, (char: string, at: number) => {
    const next = text[at + 1] ?? "";
    switch (char) {
      case "\\":
        return next === "" || /[!-/:-@[-`{-~]/.test(next) ? "\\\\" : "\\";
      case "<":
        return next === "" || /[A-Za-z/!?]/.test(next) ? "\\<" : "<";
      case "&":
        ENTITY_AT.lastIndex = at;
        return ENTITY_AT.test(text) ? "\\&" : "&";
      case "~":
        return tildes ? "\\~" : "~";
      default:
        return `\\${char}`;
    }
  });
}

/** Escapes a line's start where a block parser would see a heading, quote, list, rule or fence. */
export function escapeLineStart(line: string): string {
  if (/^[-=]+[ \t]*$/.test(line)) return `\\${line}`;
  return line
    .replace(/^(#{1,6})(?=[ \t]|$)/, "\\$1")
    .replace(/^>/, "\\>")
    .replace(/^([-+])(?=[ \t]|$)/, "\\$1")
    .replace(/^(\d{1,9})([.)])(?=[ \t]|$)/, "$1\\$2")
    .replace(/^(~{3,})/, "\\$1");
}

function codeSpan(code: string): string {
  const longest = Math.max(0, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = code.startsWith("`") || code.endsWith("`") || (code.startsWith(" ") && code.endsWith(" "));
  return pad ? `${fence} ${code} ${fence}` : `${fence}${code}${fence}`;
}

function codeBlock(pre: MdNode): string[] {
  const code = preText(pre).replace(/^\n/, "").replace(/\s+$/, "");
  if (code.trim() === "") return [];
  const longest = Math.max(2, ...(code.match(/`{3,}/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  return [`${fence}${codeLanguage(pre)}\n${code}\n${fence}`];
}

/** The code's language, where the page names it (`language-x`, `lang-x`, `data-lang`, `brush: x`). */
export function codeLanguage(pre: MdNode): string {
  const code = Array.from(pre.childNodes).find(
    (child) => child.nodeType === ELEMENT && child.localName === "code",
  );
  // GitHub-style pages name it on a wrapper: <div class="highlight-source-python"><pre>.
  const parent = pre.parentNode?.localName === "div" ? [pre.parentNode] : [];
  for (const element of [...(code === undefined ? [] : [code]), pre, ...parent]) {
    const declared = element.getAttribute?.("data-lang") ?? element.getAttribute?.("data-language");
    if (declared) return cleanLanguage(declared);
    const classes = element.getAttribute?.("class") ?? "";
    const match =
      /(?:^|\s)(?:language|lang|highlight-source|highlight)-([\w+#.-]+)/.exec(classes) ??
      /brush:\s*([\w+#.-]+)/.exec(classes);
    if (match?.[1]) return cleanLanguage(match[1]);
  }
  return "";
}

function cleanLanguage(value: string): string {
  const clean = value
    .trim()
    .toLowerCase()
    .replace(/[^\w+#.-]/g, "");
  return clean === "none" || clean === "plaintext" || clean === "text" ? "" : clean;
}

/** A `<pre>`'s text as written: whitespace kept, `<br>` as a line break. */
function preText(node: MdNode): string {
  let out = "";
  for (const child of Array.from(node.childNodes)) {
    if (child.nodeType === TEXT) out += child.nodeValue ?? "";
    else if (child.nodeType === ELEMENT) {
      if (child.localName === "br") out += "\n";
      else if (!SKIP.has(child.localName ?? "")) out += preText(child);
    }
  }
  return out;
}

function textOf(node: MdNode): string {
  let out = "";
  for (const child of Array.from(node.childNodes)) {
    if (child.nodeType === TEXT) out += child.nodeValue ?? "";
    else if (child.nodeType === ELEMENT && !SKIP.has(child.localName ?? "")) out += textOf(child);
  }
  return out;
}

function image(element: MdNode): string {
  const src = imageSource(element);
  if (src === undefined) return "";
  const alt = escapeInline((element.getAttribute?.("alt") ?? "").replace(/\s+/g, " ").trim());
  return `![${alt}](${destination(src)})`;
}

/** The image's URL: `src`, or the lazy-loading attributes pages use instead; never a data URI. */
export function imageSource(element: MdNode): string | undefined {
  for (const name of ["src", "data-src", "data-lazy-src", "data-original"]) {
    const value = element.getAttribute?.(name)?.trim();
    if (value && /^https?:/i.test(value)) return value;
  }
  const srcset = element.getAttribute?.("srcset") ?? element.getAttribute?.("data-srcset");
  const first = srcset?.trim().split(/\s+/)[0];
  return first && /^https?:/i.test(first) ? first : undefined;
}

/** A link destination that parses back to the same URL. */
function destination(url: string): string {
  return /[\s()<>]/.test(url) ? `<${url.replace(/[<>\n]/g, encodeURIComponent)}>` : url;
}

function span(cell: MdNode): number {
  const value = Number.parseInt(cell.getAttribute?.("colspan") ?? "1", 10);
  return Number.isFinite(value) && value >= 1 ? Math.min(value, 50) : 1;
}

const STRUCTURE = new Set(["table", "ul", "ol", "pre", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6"]);

/** A table cell that holds structure a GFM cell cannot: the table is for layout. */
function hasStructure(node: MdNode): boolean {
  return someChild(
    node,
    (child) => child.nodeType === ELEMENT && (STRUCTURE.has(child.localName ?? "") || hasStructure(child)),
  );
}

/** An inline element (a link, a span) with blocks inside it is treated as a block container. */
function hasBlock(node: MdNode): boolean {
  return someChild(node, (child) => {
    if (child.nodeType !== ELEMENT) return false;
    const tag = child.localName ?? "";
    return BLOCK.has(tag) || (!SKIP.has(tag) && hasBlock(child));
  });
}

/** Appends in a loop: a spread passes every item as an argument, and a page may hold more blocks than a call takes. */
function append<T>(into: T[], items: readonly T[]): void {
  for (const item of items) into.push(item);
}
