/**
 * The direct reader by content type, over real HTTP on loopback: HTML in the encoding the page
 * declares (header, BOM, meta, real encoded bytes), PDF (a real two-page document and a scanned
 * one), plain text, Markdown, JSON, and types it refuses with `unsupported_content`.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { EvidentError } from "../../../src/core/errors.js";
import { ProviderError } from "../../../src/web/provider.js";
import { loopbackReader } from "./loopback-reader.js";

const fixture = (name: string) => readFileSync(new URL(`fixtures/${name}`, import.meta.url));

/** Path -> [content type header, body]. */
const PAGES: Record<string, [string | undefined, Buffer | string]> = {
  "/sjis": ["text/html", fixture("shift_jis-meta.html")],
  "/gbk": ["text/html", fixture("gbk-http-equiv.html")],
  "/cp1251": ["text/html; charset=windows-1251", fixture("windows-1251-header.html")],
  "/latin2": ["text/html", fixture("iso-8859-2-meta.html")],
  "/bom": ["text/html; charset=iso-8859-1", fixture("utf-8-bom.html")],
  "/undeclared-latin1": [
    "text/html",
    Buffer.from("<html><body><p>Caf\xe9 cr\xe8me br\xfbl\xe9e</p></body></html>", "latin1"),
  ],
  "/report.pdf": ["application/pdf", fixture("report.pdf")],
  "/untyped-pdf": ["application/octet-stream", fixture("report.pdf")],
  "/scanned.pdf": ["application/pdf", fixture("scanned.pdf")],
  "/broken.pdf": ["application/pdf", "%PDF-1.4 this is not really a PDF"],
  "/plain": ["text/plain; charset=utf-8", "  plain *text* stays as is\n"],
  "/markdown": ["text/markdown", "# Title\n\nSome *Markdown*.\n"],
  "/json": ["application/json", '{"name":"evident","tags":["a","b"],"nested":{"n":1}}'],
  "/bad-json": ["application/json", '{"name": "evident",'],
  "/png": ["image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])],
  "/zip": ["application/zip", Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0])],
  "/binary": [undefined, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0])],
};

describe("direct reader content types", () => {
  const { read, text } = loopbackReader((req, res) => {
    const page = PAGES[req.url ?? ""];
    if (page === undefined) {
      res.statusCode = 404;
      res.end();
      return;
    }
    if (page[0] !== undefined) res.setHeader("content-type", page[0]);
    res.end(page[1]);
  });

  it("decodes real Shift_JIS, GBK, windows-1251 and ISO-8859-2 pages from meta, http-equiv or the header", async () => {
    assert.match(text(await read("/sjis")), /日本語の記事です。東京は晴れ。/);
    assert.match(text(await read("/gbk")), /这是一篇中文文章。北京今天下雨。/);
    assert.match(text(await read("/cp1251")), /Это статья на русском языке\. В Москве идёт снег\./);
    assert.match(text(await read("/latin2")), /Zażółć gęślą jaźń\. Łódź i Kraków leżą w Polsce\./);
  });

  it("a byte order mark wins over the header; undeclared bytes that are not UTF-8 read as windows-1252", async () => {
    assert.match(text(await read("/bom")), /Grüße aus Köln – mit BOM\./);
    assert.match(text(await read("/undeclared-latin1")), /Café crème brûlée/);
  });

  it("reads a PDF by its type or its signature: text in order, a marker per page, its title", async () => {
    for (const path of ["/report.pdf", "/untyped-pdf"]) {
      const outcome = await read(path);
      assert.equal(outcome.title, "Quarterly report");
      const body = text(outcome);
      assert.match(
        body,
        /^--- page 1 of 2 ---\n\nQuarterly report\nRevenue grew by twelve percent in the third quarter\./,
      );
      assert.match(
        body,
        /--- page 2 of 2 ---\n\nSecond page: the outlook for next year is cautious\.\nHiring continues/,
      );
      assert.ok(body.indexOf("Costs stayed flat") < body.indexOf("Second page"));
    }
  });

  it("a scanned PDF without text says so instead of returning nothing; a broken one says it is damaged", async () => {
    await assert.rejects(read("/scanned.pdf"), (error: unknown) => {
      assert.ok(error instanceof ProviderError);
      assert.match(
        error.reason,
        /PDF \(1 page\) has no text layer to read, probably scanned images; direct does not run OCR/,
      );
      return true;
    });
    await assert.rejects(read("/broken.pdf"), (error: unknown) => {
      assert.ok(error instanceof ProviderError);
      assert.match(error.reason, /the PDF could not be opened \(it is damaged or not a PDF\)/);
      return true;
    });
  });

  it("returns plain text and Markdown as they are, and JSON pretty-printed", async () => {
    assert.equal(text(await read("/plain")), "  plain *text* stays as is\n");
    assert.equal(text(await read("/markdown")), "# Title\n\nSome *Markdown*.\n");
    const json = await read("/json");
    assert.equal(
      text(json),
      JSON.stringify({ name: "evident", tags: ["a", "b"], nested: { n: 1 } }, null, 2),
    );
    const bad = await read("/bad-json");
    assert.equal(text(bad), '{"name": "evident",');
    assert.match(bad.warnings?.[0] ?? "", /does not parse as JSON/);
  });

  it("refuses images, archives and untyped binaries with unsupported_content naming the type", async () => {
    for (const [path, type] of [
      ["/png", "image/png"],
      ["/zip", "application/zip"],
      ["/binary", null],
    ] as const) {
      await assert.rejects(read(path), (error: unknown) => {
        assert.ok(error instanceof EvidentError);
        assert.equal(error.code, "unsupported_content");
        assert.equal(error.details.content_type, type);
        if (type !== null)
          assert.match(error.message, new RegExp(`cannot read ${type.replace("/", "\\/")} content`));
        return true;
      });
    }
  });
});
