/**
 * The byte half of a call's parse budget (the file half is `maxParseFiles`): documents are taken
 * in the call's order while their bytes fit under PARSE_BYTES_MAX. The first one always fits,
 * so a single document of any size a document may have is still parsed.
 */
import { PARSE_BYTES_MAX } from "../../core/limits.js";

export const PARSE_BYTES_TEXT = `${PARSE_BYTES_MAX / (1024 * 1024)} MiB of source`;

export class ParseBytes {
  #used = 0;

  /** Counts a document's bytes if they fit; false if parsing it would pass the bound. */
  take(bytes: number): boolean {
    if (this.#used > 0 && this.#used + bytes > PARSE_BYTES_MAX) return false;
    this.#used += bytes;
    return true;
  }
}
