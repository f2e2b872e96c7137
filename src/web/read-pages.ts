/**
 * Long pages in parts. A read whose content does not fit the envelope keeps the whole extracted
 * document for its caller (a `KeptStore`: bounded, expiring, bound to the caller) and ends with
 * a cursor; `web_read` with that cursor returns the next part of the same document, never
 * fetching again. A cursor names the kept document and the character offset where its part
 * starts, under a MAC, so it can neither be forged nor point elsewhere. A document over what
 * one kept value may take (its share of the store) is kept cut to its longest prefix that fits,
 * and every answer about it says where its cursors end.
 */
import { EvidentError } from "../core/errors.js";
import { CursorMac, type KeptStore, KeptValueTooLarge, keptBytes, keptPrefix } from "../core/kept.js";
import type { Provenance } from "./envelope.js";
import type { ReadMetadata } from "./provider.js";

/** What is kept of a read: everything a later part needs to be built without the page. */
export interface KeptPage {
  readonly provenance: Provenance;
  readonly title?: string;
  readonly metadata?: ReadMetadata;
  /** The reader's warnings, repeated on every part (they concern the whole document). */
  readonly warnings: readonly string[];
  /** The whole native content as text (JSON parts as their JSON text), or its kept prefix. */
  readonly text: string;
  /** The document's whole length, when `text` is only the prefix that fit the store. */
  readonly total?: number;
}

/** A kept document's cursors, and the warning every answer about it carries if it was cut. */
export interface Keeping {
  /** The cursor of the part starting at `offset`; none where nothing more is kept. */
  readonly cursor: (offset: number) => string | undefined;
  readonly warning?: string;
}

/** Room left for what the stores add to a value (caller, MAC, field name, file header). */
const STORE_FRAME_BYTES = 1024;

/** First byte of a page cursor: a code_search cursor is never mistaken for one. */
const PAGE_CURSOR_TAG = 0x57;

export class ReadPages {
  readonly #store: KeptStore<KeptPage>;
  #mac: CursorMac | undefined;

  constructor(store: KeptStore<KeptPage>) {
    this.#store = store;
  }

  /**
   * Keeps a document (cut to the longest prefix one kept value may hold, and then said) and
   * returns its cursor maker.
   */
  async keep(caller: string, page: KeptPage): Promise<Keeping> {
    const whole = page.text.length;
    const room = this.#store.entryMaxBytes - STORE_FRAME_BYTES;
    const cutNote = (kept: number) =>
      `only the first ${kept} of the page's ${whole} characters are kept for cursors (one kept page may take at most ${this.#store.entryMaxBytes} bytes here); the rest cannot be continued`;
    // The warning is counted before the cut, at its longest, so the kept page still fits with it.
    const frame = keptBytes({
      ...page,
      text: "",
      total: whole,
      warnings: [...page.warnings, cutNote(whole)],
    });
    const prefix = keptPrefix(page.text, Math.max(0, room - frame));
    const warning = prefix.length < whole ? cutNote(prefix.length) : undefined;
    // A copy of its own, every string in it too: a reader's title or metadata may be cut from the
    // page's source, which a kept slice would hold whole beyond what the store counts.
    const kept: KeptPage = structuredClone(
      warning === undefined
        ? page
        : {
            ...page,
            text: page.text.slice(0, prefix.length),
            total: whole,
            warnings: [...page.warnings, warning],
          },
    );
    let id: string;
    try {
      if (kept.text.length === 0) throw new KeptValueTooLarge(frame, room);
      id = await this.#store.put(caller, kept, frame + prefix.bytes);
    } catch (thrown) {
      if (!(thrown instanceof KeptValueTooLarge)) throw thrown;
      return { cursor: () => undefined, warning: cutNote(0) };
    }
    const mac = this.#codec();
    return {
      cursor: (offset) => (offset < kept.text.length ? mac.encode({ id, offset }) : undefined),
      warning,
    };
  }

  /** The kept document a cursor names, from the offset it carries, with the next parts' cursor maker. */
  async resume(
    caller: string,
    cursor: string,
  ): Promise<{ page: KeptPage; offset: number; cursor: (offset: number) => string | undefined }> {
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
    return {
      page,
      offset,
      cursor: (next) => (next < page.text.length ? mac.encode({ id, offset: next }) : undefined),
    };
  }

  close(): Promise<void> {
    return this.#store.close();
  }

  #codec(): CursorMac {
    this.#mac ??= new CursorMac(this.#store.key(), PAGE_CURSOR_TAG, this.#store.foreign);
    return this.#mac;
  }
}
