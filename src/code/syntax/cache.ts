/**
 * Parsed trees kept between calls: keyed by language and content hash (so a changed file simply
 * misses), bounded by entry count and by an estimate of syntax nodes, least recently used out.
 * A tree larger than the whole node bound is not kept.
 */
import {
  SYNTAX_BYTES_PER_NODE_ESTIMATE,
  SYNTAX_CACHE_MAX_ENTRIES,
  SYNTAX_CACHE_MAX_NODES,
} from "../../core/limits.js";

export interface SyntaxCacheOptions {
  readonly maxEntries?: number;
  readonly maxNodes?: number;
}

/** Node count estimated from source size, without walking the tree. */
export function estimatedNodes(bytes: number): number {
  return Math.ceil(bytes / SYNTAX_BYTES_PER_NODE_ESTIMATE) + 1;
}

export class SyntaxCache<V> {
  readonly #entries = new Map<string, { readonly value: V; readonly nodes: number }>();
  readonly #maxEntries: number;
  readonly #maxNodes: number;
  #nodes = 0;

  constructor(options: SyntaxCacheOptions = {}) {
    this.#maxEntries = options.maxEntries ?? SYNTAX_CACHE_MAX_ENTRIES;
    this.#maxNodes = options.maxNodes ?? SYNTAX_CACHE_MAX_NODES;
  }

  get size(): number {
    return this.#entries.size;
  }

  get nodes(): number {
    return this.#nodes;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    // Map order is insertion order: re-inserting makes it the most recently used.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, nodes: number): void {
    this.delete(key);
    if (nodes > this.#maxNodes) return;
    this.#entries.set(key, { value, nodes });
    this.#nodes += nodes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#nodes <= this.#maxNodes) break;
      this.#entries.delete(oldest);
      this.#nodes -= entry.nodes;
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#nodes -= entry.nodes;
  }

  clear(): void {
    this.#entries.clear();
    this.#nodes = 0;
  }
}
