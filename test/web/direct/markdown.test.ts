/**
 * Markdown fidelity of the direct reader: each case on a small page of its own
 * (test/web/direct/fixtures), and the round trip through a CommonMark + GFM parser.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { toMarkdown } from "../../../src/web/providers/direct/markdown.js";
import { markdownKinds, markdownText, pageText, parse, sameText } from "./markdown-text.js";

const fixture = (name: string) => readFileSync(new URL(`fixtures/${name}`, import.meta.url), "utf8");

function convert(html: string): { markdown: string; body: ReturnType<typeof parse>["body"] } {
  const document = parse(/<body/i.test(html) ? html : `<!doctype html><html><body>${html}</body></html>`);
  return { markdown: toMarkdown(document.body), body: document.body };
}

describe("direct reader Markdown", () => {
  it("a link around blocks keeps the blocks, not a link spanning them", () => {
    const { markdown } = convert(
      fixture("news-cards.html").replaceAll('href="/', 'href="https://news.example/'),
    );
    assert.match(markdown, /^### Bus fares rise in March$/m);
    assert.match(markdown, /^The transport authority raises fares by 4 percent\.$/m);
    assert.doesNotMatch(markdown, /\[\s*\n/);
    assert.doesNotMatch(markdown, /\]\(https:\/\/news\.example\/news\/bus-fares\)/);
    assert.ok(markdownKinds(markdown).includes("heading_open"));
  });

  it("leading whitespace never makes an indented code block, for text or a linked image", () => {
    const { markdown } = convert(fixture("news-cards.html").replaceAll('="/', '="https://news.example/'));
    assert.doesNotMatch(markdown, /^ {4}/m);
    assert.match(markdown, /^Construction starts next spring/m);
    assert.match(
      markdown,
      /^\[!\[A tram at the central station\]\(https:\/\/news\.example\/img\/tram\.jpg\)\]\(/m,
    );
    const kinds = markdownKinds(markdown);
    assert.ok(!kinds.includes("code_block"), kinds.join(" "));
  });

  it("page text that looks like Markdown syntax is escaped and reads back as the page's text", () => {
    const { markdown } = convert(fixture("news-cards.html"));
    assert.match(markdown, /^1\\\) Lego bricks/m);
    assert.match(
      markdown,
      /^\\# 1 on the agenda was the budget; \\\* marks optional items; \\_draft\\_ plans/m,
    );
    const kinds = markdownKinds(markdown);
    for (const kind of ["ordered_list_open", "em_open", "strong_open"])
      assert.ok(!kinds.includes(kind), kind);
    assert.match(markdownText(markdown), /1\) Lego bricks/);
    assert.match(
      markdownText(markdown),
      /# 1 on the agenda was the budget; \* marks optional items; _draft_ plans/,
    );
    assert.match(markdownText(markdown), /2 \* 3 = 6 million per kilometre, as {2}cost_per_km/);
  });

  it("escapes every line start a parser would take for a block", () => {
    const lines = ["# 1", "- x", "+ y", "2. z", "3) w", "> q", "===", "---", "~~~ fence", "#hashtag stays"];
    const { markdown } = convert(`<p>${lines.join("<br>")}</p>`);
    assert.deepEqual(
      markdownKinds(markdown).filter((kind) => kind.endsWith("_open")),
      ["paragraph_open"],
    );
    assert.ok(sameText(markdownText(markdown), lines.join("")), markdown);
    assert.match(markdown, /#hashtag stays$/);
  });

  it("tables become GFM tables; layout tables stay readable as blocks", () => {
    const { markdown } = convert(fixture("data-table.html"));
    assert.match(markdown, /^\| District \| Votes \| Turnout \\\| change \|$/m);
    assert.match(markdown, /^\| --- \| --- \| --- \|$/m);
    assert.match(markdown, /^\| South \| counting \| {2}\|$/m);
    assert.match(markdown, /^\| East \| 9,870 \| 58% \|$/m);
    const kinds = markdownKinds(markdown);
    assert.equal(kinds.filter((kind) => kind === "table_open").length, 1);
    assert.ok(kinds.includes("bullet_list_open"));
    assert.match(markdown, /^Second layout cell\.$/m);
  });

  it("code blocks keep their language and their text; images keep their alt text", () => {
    const { markdown } = convert(fixture("code-docs.html"));
    assert.match(markdown, /^````typescript\nimport \{ readFile \} from "node:fs\/promises";\n/m);
    assert.match(markdown, /^```python\nwith open\("notes\.md"\) as f:\n {4}print\(f\.read\(\)\)\n```$/m);
    assert.match(markdown, /^```shell\ncat notes\.md\n```$/m);
    assert.match(
      markdown,
      /!\[Diagram: \\\[reader\\\] -> \\\*parser\\\*\]\(https:\/\/cdn\.example\.org\/diagram\.png\)/,
    );
    const fences = markdownKinds(markdown).filter((kind) => kind === "fence");
    assert.equal(fences.length, 3);
    assert.match(markdownText(markdown), /\/\/ ``` fences inside code stay code/);
  });

  it("round trip: a CommonMark + GFM parser reads back each page's text", () => {
    for (const name of ["news-cards.html", "data-table.html", "code-docs.html"]) {
      const { markdown, body } = convert(fixture(name).replaceAll('="/', '="https://news.example/'));
      assert.ok(
        sameText(markdownText(markdown), pageText(body)),
        `${name}:\n${markdownText(markdown)}\n---\n${pageText(body)}`,
      );
    }
  });

  it("round trip holds on awkward inline markup: emphasis at punctuation, nested marks, entities, tags", () => {
    const html =
      '<p>a<b>"quoted"</b>b <i><i>twice</i></i> &amp;copy; &lt;div&gt; C:\\path\\ <b>&nbsp;spaced&nbsp;</b>!</p>' +
      "<p><em>emphasis</em>_under_ ~~not struck~~ [brackets] `ticks` <s>gone</s></p>";
    const { markdown, body } = convert(html);
    assert.ok(
      sameText(markdownText(markdown), pageText(body)),
      `${markdown}\n---\n${markdownText(markdown)}`,
    );
  });
});
