/**
 * Materialized change scopes, kept between calls. Writing a few hundred changed files to a
 * temporary tree costs far more than searching them (bench/analysis), and agents ask several
 * questions of the same changes in a row; so a tree is kept under the digest of exactly what it
 * holds (each file's path and content id; changed lines are fetched per call, not kept), and a
 * later call whose scope has the same digest searches it without writing anything. A tree is never
 * changed once built, so a call searching it cannot see another call's files.
 *
 * At most CHANGES_MIRRORS_KEPT trees are kept; beyond that the least recently used one that no
 * call is searching is removed. `close()` removes them all.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHANGES_MIRRORS_KEPT } from "../../core/limits.js";

export interface Mirror<T> {
  readonly dir: string;
  /** What the build derived from the files it wrote (ranges, files it could not cover). */
  readonly data: T;
  /** The call is done searching it. */
  release(): void;
}

interface Entry<T> {
  readonly dir: string;
  readonly data: T;
  users: number;
}

export class MirrorCache<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #removals = new Set<Promise<void>>();
  readonly #kept: number;
  #closed = false;

  constructor(kept: number = CHANGES_MIRRORS_KEPT) {
    this.#kept = kept;
  }

  /** Trees currently kept (tests). */
  get size(): number {
    return this.#entries.size;
  }

  /** The tree of `digest`, built by `build` into a fresh private directory when there is none. */
  async acquire(digest: string, build: (dir: string) => Promise<T>): Promise<Mirror<T>> {
    let entry = this.#entries.get(digest);
    if (entry === undefined) {
      const dir = await mkdtemp(join(tmpdir(), "evident-changes-"));
      let data: T;
      try {
        data = await build(dir);
      } catch (error) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
      // Built meanwhile by another call: that one serves, this one goes.
      const raced = this.#entries.get(digest);
      if (raced !== undefined || this.#closed) this.#remove(dir);
      entry = raced ?? { dir, data, users: 0 };
      if (raced === undefined && !this.#closed) this.#entries.set(digest, entry);
    }
    const held = entry;
    held.users++;
    // Most recently used last.
    if (this.#entries.get(digest) === held) {
      this.#entries.delete(digest);
      this.#entries.set(digest, held);
    }
    this.#evict();
    let released = false;
    return {
      dir: held.dir,
      data: held.data,
      release: () => {
        if (released) return;
        released = true;
        held.users--;
        if (this.#closed || ![...this.#entries.values()].includes(held)) {
          if (held.users === 0) this.#remove(held.dir);
        } else this.#evict();
      },
    };
  }

  /** Removes every tree no call is searching, and waits for every removal. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const [digest, entry] of this.#entries) {
      this.#entries.delete(digest);
      if (entry.users === 0) this.#remove(entry.dir);
    }
    await this.idle();
  }

  /** Resolves once no removal of an evicted tree is running (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#removals.size > 0) await Promise.all(this.#removals);
  }

  #evict(): void {
    for (const [digest, entry] of this.#entries) {
      if (this.#entries.size <= this.#kept) break;
      if (entry.users > 0) continue;
      this.#entries.delete(digest);
      this.#remove(entry.dir);
    }
  }

  #remove(dir: string): void {
    const removal = rm(dir, { recursive: true, force: true })
      .catch(() => undefined)
      .finally(() => this.#removals.delete(removal));
    this.#removals.add(removal);
  }
}
