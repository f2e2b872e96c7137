/**
 * A page over one kept value's share of the store (issue #31, section 2): web_read keeps its
 * longest prefix that fits and says so in the first answer and every part; the parts follow each
 * other to where the kept text ends, and the last one is still `truncated`, with no cursor.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { redoErrors } from "../../src/core/kept.js";
import { MemoryKeptStore } from "../../src/core/kept-memory.js";
import { createHttpClient } from "../../src/net/client.js";
import { type KeptPage, ReadPages } from "../../src/web/read-pages.js";
import { WebRouter } from "../../src/web/router.js";
import { fake, publicLookup, source } from "./helpers.js";

const http = createHttpClient();
after(() => http.close());

const live = () => new AbortController().signal;

describe("web_read: a page over its share of the kept-page store", () => {
  it("is kept cut to what fits, every part says where the cursors end, and the last part is truncated", async () => {
    const text = Array.from(
      { length: 1_000 },
      (_, i) => `line ${String(i).padStart(4, "0")} of the page`,
    ).join("\n");
    const reader = fake("reader", { read: async () => ({ content: [{ type: "text" as const, text }] }) });
    // A share of 20,000 bytes: about 9,000 characters of this page once the frame is counted.
    const store = new MemoryKeptStore<KeptPage>({
      ttlMs: 60_000,
      maxBytes: 80_000,
      errors: redoErrors("read the URL again"),
    });
    const router = new WebRouter({
      providers: source([reader]),
      http,
      searchRoute: [],
      readRoute: ["reader"],
      callDeadlineMs: 60_000,
      envelopeBudgetChars: 4_000,
      allowPrivateNetwork: false,
      lookup: publicLookup,
      pages: new ReadPages(store),
    });
    const first = (await router.read({ url: "https://example.com/page" }, live(), "alice")).data;
    const cut = first.warnings.find((w) => w.startsWith("only the first "));
    assert.ok(cut !== undefined, JSON.stringify(first.warnings));
    const kept = Number(/^only the first (\d+) of the page's (\d+) characters/.exec(cut)?.[1]);
    assert.match(cut, new RegExp(`of the page's ${text.length} characters are kept for cursors`));
    assert.ok(kept > 4_000 && kept < text.length);
    assert.equal(first.truncated, true);

    let joined = first.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    let part = first;
    for (let parts = 1; part.cursor !== undefined; parts++) {
      assert.ok(parts < 20, "the cursors never end");
      part = (await router.readCursor(part.cursor, "alice")).data;
      assert.equal(part.contentChars.total, text.length, "parts count the whole page");
      assert.ok(part.warnings.includes(cut), "every part repeats where the cursors end");
      joined += part.content.map((piece) => (piece.type === "text" ? piece.text : "")).join("");
    }
    // The parts add up to exactly the kept prefix; the last one says the page goes on.
    assert.equal(joined, text.slice(0, kept));
    assert.equal(part.truncated, true);
    assert.equal(part.remainingChars, undefined);
    assert.equal((part.contentChars.from ?? 0) + part.contentChars.kept, kept);
  });
});
