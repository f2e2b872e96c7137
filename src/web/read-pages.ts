/**
 * Long pages in parts. A read whose content does not fit the envelope keeps the whole extracted
 * document for its caller (a `KeptStore`: bounded, expiring, bound to the caller) and ends with
 * a cursor; `web_read` with that cursor returns the next part of the same document, never
 * fetching again. A cursor names the kept document and the character offset where its part
 * starts, under a MAC, so it can neither be forged nor point elsewhere.
 */
import { EvidentError } from "../core/errors.js";
import { CursorMac, type KeptStore } from "../core/kept.js";
import type { Provenance } from "./envelope.js";
import type { ReadMetadata } from "./provider.js";

/** What is kept of a read: everything a later part needs to be built without the page. */
export interface KeptPage {
  readonly provenance: Provenance;
  readonly title?: string;
  readonly metadata?: ReadMetadata;
  /** The reader's warnings, repeated on every part (they concern the whole document). */
  readonly warnings: readonly string[];
  /** The whole native content as text (JSON parts as their JSON text). */
  readonly text: string;
}

/** First byte of a page cursor: a code_search cursor is never mistaken for one. */
const PAGE_CURSOR_TAG = 0x57;

export class ReadPages {
  readonly #store: KeptStore<KeptPage>;
  #mac: CursorMac | undefined;

  constructor(store: KeptStore<KeptPage>) {
    this.#store = store;
  }

  /** Keeps a document and returns the cursor maker for it. */
  async keep(caller: string, page: KeptPage): Promise<(offset: number) => string> {
    // Characters are counted twice over: UTF-16 in memory, and JSON escapes on disk.
    const id = await this.#store.put(caller, page, page.text.length * 2);
    const mac = this.#codec();
    return (offset) => mac.encode({ id, offset });
  }

  /** The kept document a cursor names, from the offset it carries, with the next parts' cursor maker. */
  async resume(
    caller: string,
    cursor: string,
  ): Promise<{ page: KeptPage; offset: number; cursor: (offset: number) => string }> {
    const mac = this.#codec();
    const { id, offset } = mac.decode(cursor);
    const page = await this.#store.get(caller, id);
    if (offset > page.text.length) {
      throw new EvidentError(
        "cursor_offset_invalid",
        `This cursor points past the end of the kept page (${page.text.length} characters); use the cursor of the last part read.`,
        { details: { field: "cursor" } },
      );
    }
    return { page, offset, cursor: (next) => mac.encode({ id, offset: next }) };
  }

  close(): Promise<void> {
    return this.#store.close();
  }

  #codec(): CursorMac {
    this.#mac ??= new CursorMac(
      this.#store.key(),
      PAGE_CURSOR_TAG,
      this.#store.foreign ?? "an earlier server process or another cache directory",
    );
    return this.#mac;
  }
}
