/**
 * PDF text through pdf.js (the `unpdf` build, which runs in Node without a worker or canvas):
 * each page's text in the order the document draws it, lines kept, and a marker line before
 * each page. Bounded: a PDF whose streams inflate past PDF_MAX_INFLATED_BYTES is not opened
 * (pdf-inflate.ts), at most PDF_MAX_PAGES pages and PDF_MAX_MS of extraction, and the call's
 * signal is checked between pages; what was left out is said. A PDF without a text layer (a
 * scan) is a failure that says so, not an empty success.
 */

import { abortReason } from "../../../core/abort.js";
import { PDF_MAX_INFLATED_BYTES, PDF_MAX_MS, PDF_MAX_PAGES } from "../../../core/limits.js";
import { ProviderError, type ProviderReadOutcome } from "../../provider.js";
import { inflatedBytes } from "./pdf-inflate.js";

/** Fewer non-space characters per page than this and the PDF is taken for scanned images. */
const MIN_TEXT_CHARS_PER_PAGE = 16;

export function isPdf(body: Uint8Array): boolean {
  // The header may follow a little junk; readers look in the first kilobyte.
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, 1024)).toString("latin1");
  return head.includes("%PDF-");
}

type PdfDocument = Awaited<ReturnType<typeof import("unpdf")["getDocumentProxy"]>>;

/** The pages read, in order, and why reading stopped before the last (when it did). */
interface PagesRead {
  readonly parts: readonly string[];
  readonly read: number;
  readonly textChars: number;
  readonly stoppedBy?: "pages" | "time";
}

export async function readPdf(
  body: Uint8Array,
  id: string,
  signal: AbortSignal,
): Promise<ProviderReadOutcome> {
  const document = await openPdf(body, id, signal);
  try {
    const total = document.numPages;
    const { parts, read, textChars, stoppedBy } = await readPages(document, signal);
    if (textChars < MIN_TEXT_CHARS_PER_PAGE * Math.max(1, read)) {
      throw new ProviderError(
        id,
        "upstream",
        `${id}: the PDF (${total} page${total === 1 ? "" : "s"}) has no text layer to read, probably scanned images; ${id} does not run OCR, so try a reader that does`,
      );
    }
    const warnings =
      stoppedBy === undefined
        ? []
        : [
            `${id} read ${read} of ${total} PDF pages (${stoppedBy === "pages" ? `at most ${PDF_MAX_PAGES} pages are read` : `extraction stops after ${PDF_MAX_MS} ms`}); the rest of the document is not in this text`,
          ];
    const info = await document.getMetadata().catch(() => undefined);
    const title = (info?.info as { Title?: unknown } | undefined)?.Title;
    return {
      ...(typeof title === "string" && title.trim() !== "" ? { title: title.trim() } : {}),
      content: [{ type: "text", text: parts.join("\n\n") }],
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  } finally {
    await document.destroy().catch(() => undefined);
  }
}

/** The document, once its inflated size is known to fit; a PDF pdf.js cannot open is said why. */
async function openPdf(body: Uint8Array, id: string, signal: AbortSignal): Promise<PdfDocument> {
  // A PDF that inflates past the bound is refused before pdf.js keeps any of it.
  if ((await inflatedBytes(body, PDF_MAX_INFLATED_BYTES)) > PDF_MAX_INFLATED_BYTES) {
    throw new ProviderError(
      id,
      "too_large",
      `${id}: the PDF's compressed streams inflate to more than ${PDF_MAX_INFLATED_BYTES / (1024 * 1024)} MB, more than ${id} reads of a PDF; it was not read`,
    );
  }
  if (signal.aborted) throw abortReason(signal);
  const { getDocumentProxy } = await import("unpdf");
  try {
    // pdf.js takes ownership of the buffer it gets: give it a copy.
    return await getDocumentProxy(new Uint8Array(body), { isEvalSupported: false, stopAtErrors: false });
  } catch (thrown) {
    throw new ProviderError(id, "upstream", `${id}: the PDF could not be opened (${pdfReason(thrown)})`, {
      cause: thrown,
    });
  }
}

/** Page after page, each behind its marker line, up to the page and time bounds. */
async function readPages(document: PdfDocument, signal: AbortSignal): Promise<PagesRead> {
  const total = document.numPages;
  const started = Date.now();
  const parts: string[] = [];
  let read = 0;
  let textChars = 0;
  for (let number = 1; number <= total; number++) {
    if (signal.aborted) throw abortReason(signal);
    if (number > PDF_MAX_PAGES) return { parts, read, textChars, stoppedBy: "pages" };
    if (Date.now() - started > PDF_MAX_MS) return { parts, read, textChars, stoppedBy: "time" };
    const text = await pageText(document, number);
    textChars += text.replace(/\s/g, "").length;
    parts.push(`--- page ${number} of ${total} ---${text === "" ? "" : `\n\n${text}`}`);
    read = number;
  }
  return { parts, read, textChars };
}

/** One page's text in drawing order, its lines kept, runs of blank lines and trailing blanks cut. */
async function pageText(document: PdfDocument, number: number): Promise<string> {
  const page = await document.getPage(number);
  const content = await page.getTextContent();
  let text = "";
  for (const item of content.items) {
    if (!("str" in item)) continue;
    text += item.str;
    if (item.hasEOL) text += "\n";
  }
  page.cleanup();
  return text
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function pdfReason(thrown: unknown): string {
  const name = (thrown as { name?: unknown } | undefined)?.name;
  return name === "PasswordException" ? "it is password-protected" : "it is damaged or not a PDF";
}
