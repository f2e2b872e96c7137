/**
 * The byte half of a call's parse budget (the file half is `maxParseFiles`): documents are read
 * in the call's order while their bytes fit under PARSE_BYTES_MAX, and one that would not fit is
 * refused from its observed size, before its bytes are read. The first one always fits, so a
 * single document of any size a document may have is still parsed.
 */
import { PARSE_BYTES_MAX, SOURCE_DOCUMENT_MAX_BYTES } from "../../core/limits.js";
import { type ReadOptions, type ReadOutcome, readSourceDocument } from "../source/document.js";

export const PARSE_BYTES_TEXT = `${PARSE_BYTES_MAX / (1024 * 1024)} MiB of source`;

export class ParseBudget {
  #used = 0;

  /** A verified read of a document to parse, or `over_budget` if its bytes would not fit. */
  async read(
    path: string,
    options: Omit<ReadOptions, "maxBytes"> = {},
  ): Promise<ReadOutcome | { readonly ok: false; readonly reason: "over_budget" }> {
    const room = this.#used === 0 ? SOURCE_DOCUMENT_MAX_BYTES : PARSE_BYTES_MAX - this.#used;
    const read = await readSourceDocument(path, {
      ...options,
      maxBytes: Math.min(room, SOURCE_DOCUMENT_MAX_BYTES),
    });
    if (!read.ok && read.reason === "too_large" && read.size <= SOURCE_DOCUMENT_MAX_BYTES)
      return { ok: false, reason: "over_budget" };
    if (read.ok) this.#used += read.document.bytes.length;
    return read;
  }
}
