/**
 * What code_search keeps between calls by key (syntax facts by content hash, content ids by
 * file): bounded by entry count and by estimated memory, least recently used out. An entry
 * larger than the whole bound is not kept.
 */
import {
  SYNTAX_CACHE_MAX_BYTES,
  SYNTAX_CACHE_MAX_ENTRIES,
  SYNTAX_FACT_BYTES_ESTIMATE,
} from "../core/limits.js";

/**
 * Estimated memory of an entry holding facts (symbols or specifiers) whose strings are `strings`
 * (their characters counted at two bytes, the most a string takes for one).
 */
export function estimatedBytes(strings: readonly (readonly string[])[]): number {
  let bytes = SYNTAX_FACT_BYTES_ESTIMATE;
  for (const fact of strings) {
    bytes += SYNTAX_FACT_BYTES_ESTIMATE;
    for (const text of fact) bytes += 2 * text.length;
  }
  return bytes;
}

/** Syntax facts' bounds unless told otherwise. */
export class BoundedCache<V> {
  readonly #entries = new Map<string, { readonly value: V; readonly bytes: number }>();
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(options: { readonly maxEntries?: number; readonly maxBytes?: number } = {}) {
    this.#maxEntries = options.maxEntries ?? SYNTAX_CACHE_MAX_ENTRIES;
    this.#maxBytes = options.maxBytes ?? SYNTAX_CACHE_MAX_BYTES;
  }

  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    // Map order is insertion order: re-inserting makes it the most recently used.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, bytes: number): void {
    this.delete(key);
    if (bytes > this.#maxBytes) return;
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }
}
