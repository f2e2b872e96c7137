/**
 * A PDF whose streams inflate past PDF_MAX_INFLATED_BYTES is refused before pdf.js opens it:
 * counted with zlib a chunk at a time, nothing of it kept, so the process's memory does not
 * grow with the bomb (pdf.js kept what it inflated in pieces the C allocator held after the
 * read). Real PDFs are counted and read as before. In process, from source: the PDF is read on
 * the calling thread, so this process's peak resident set is the reader's.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, it } from "node:test";
import { PDF_MAX_INFLATED_BYTES } from "../../../src/core/limits.js";
import { ProviderError } from "../../../src/web/provider.js";
import { inflatedBytes } from "../../../src/web/providers/direct/pdf-inflate.js";
import { readBody } from "../../../src/web/providers/direct/provider.js";
import { spacesPdf } from "../../fixtures/inflating-pdf.js";

const MB = 1024 * 1024;
const REPORT_PDF = readFileSync(resolve(import.meta.dirname, "fixtures/report.pdf"));
const peakMb = () => process.resourceUsage().maxRSS / 1024;

describe("direct reader: what a PDF's streams inflate to", () => {
  it("counts a PDF's deflated streams exactly within the bound, and stops soon past it", async () => {
    assert.equal(await inflatedBytes(spacesPdf(3), 64 * MB), 3 * MB);
    const past = await inflatedBytes(spacesPdf(40), 4 * MB);
    assert.ok(past > 4 * MB && past <= 4 * MB + MB, `${past} bytes counted past a bound of ${4 * MB}`);
    const report = await inflatedBytes(REPORT_PDF, PDF_MAX_INFLATED_BYTES);
    assert.ok(report > 0 && report < MB, `the report's streams inflate to ${report} bytes`);
    assert.equal(await inflatedBytes(Buffer.from("%PDF-1.4 stream\nnot zlib\nendstream stream"), MB), 0);
  });

  it("a PDF inflating past the bound is too_large and unread, and the process does not grow with it", async () => {
    const bomb = spacesPdf(PDF_MAX_INFLATED_BYTES / MB + 64);
    assert.ok(bomb.length < 1 * MB, `${bomb.length} bytes sent`);
    const before = peakMb();
    await assert.rejects(
      readBody(
        "direct",
        bomb,
        "application/pdf",
        "https://example.com/bomb.pdf",
        new AbortController().signal,
      ),
      (error: unknown) => {
        assert.ok(error instanceof ProviderError);
        assert.equal(error.kind, "too_large");
        assert.match(
          error.message,
          new RegExp(
            `compressed streams inflate to more than ${PDF_MAX_INFLATED_BYTES / MB} MB, .* it was not read`,
          ),
        );
        return true;
      },
    );
    const grew = peakMb() - before;
    // Read, the bomb would take all it inflates; counted, only chunks the collector has not yet
    // taken back (more of them on a loaded machine): half the bound tells the two apart.
    assert.ok(grew < PDF_MAX_INFLATED_BYTES / MB / 2, `the peak resident set grew ${grew.toFixed(0)} MB`);
  });

  it("a real PDF is counted, then read as before", async () => {
    const outcome = await readBody(
      "direct",
      REPORT_PDF,
      "application/pdf",
      "https://example.com/report.pdf",
      new AbortController().signal,
    );
    assert.equal(outcome.title, "Quarterly report");
    assert.match((outcome.content[0] as { text: string }).text, /^--- page 1 of 2 ---/);
  });
});
