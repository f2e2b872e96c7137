/**
 * Candidate revisions kept between searches, so a warm search can skip the names-only
 * enumeration. The trust argument is unchanged: a file is trusted when a revision observed
 * before the search began equals the one observed after it ended, and an observation made
 * during an earlier call was made before this search began just as much as one made a moment
 * ago. A file written in between differs after the search and stays unverified; a file created
 * since the last enumeration has no earlier observation and stays unverified until it has one.
 * Each after-search observation becomes the "before" of later searches.
 *
 * Every observation carries a sequence number, and a search only uses observations numbered
 * below its own start, so concurrent searches cannot lend each other observations made after
 * one of them began.
 *
 * Entries are grouped by file scope (ripgrep's working directory and its enumeration
 * arguments), because a scope's enumeration is what says which candidates exist. A scope is
 * fresh for REVISION_CACHE_TTL_MS after its enumeration. After that it is stale, not gone: its
 * observations were still made before any later search began, so they still serve as "before"
 * (age never makes a changed file look unchanged: its metadata differs after the search). What
 * age costs is coverage of files created since, which stay unverified until observed; so the
 * service enumerates a stale scope again in the background after the search that found it
 * stale, instead of making that search wait for it (an agent often pauses longer than the time
 * to live between two searches). At most REVISION_CACHE_MAX_SCOPES scopes are kept, least
 * recently used first out. The cache never changes what ripgrep matches: it only decides which
 * retained files count as verified.
 */
import {
  MAX_SOURCE_REVISION_FILES,
  REVISION_CACHE_MAX_SCOPES,
  REVISION_CACHE_TTL_MS,
} from "../../core/limits.js";
import { type Revision, sameRevision } from "./scan.js";

interface Observation {
  readonly revision: Revision;
  readonly sequence: number;
}

interface Scope {
  readonly observations: Map<string, Observation>;
  readonly enumeratedAt: number;
}

export interface RevisionCacheOptions {
  readonly ttlMs?: number;
  readonly maxScopes?: number;
  /** Injected clock, so expiry is testable without waiting. */
  readonly now?: () => number;
}

export class RevisionCache {
  readonly #scopes = new Map<string, Scope>();
  readonly #ttlMs: number;
  readonly #maxScopes: number;
  readonly #now: () => number;
  #sequence = 0;

  constructor(options: RevisionCacheOptions = {}) {
    this.#ttlMs = options.ttlMs ?? REVISION_CACHE_TTL_MS;
    this.#maxScopes = options.maxScopes ?? REVISION_CACHE_MAX_SCOPES;
    this.#now = options.now ?? Date.now;
  }

  /**
   * `missing`: never enumerated (or evicted), so a search must enumerate first. `fresh`: usable
   * as is. `stale`: usable, and due for a new enumeration. Using a scope makes it the most
   * recently used.
   */
  state(scope: string): "missing" | "fresh" | "stale" {
    const entry = this.#scopes.get(scope);
    if (entry === undefined) return "missing";
    this.#scopes.delete(scope);
    this.#scopes.set(scope, entry);
    return this.#now() - entry.enumeratedAt > this.#ttlMs ? "stale" : "fresh";
  }

  /**
   * Records a new enumeration of the scope: revisions observed just now. A file whose revision
   * is unchanged keeps its earlier observation, so a search that began before this call still
   * has its "before"; a changed or new one counts from now; one no longer listed is dropped.
   */
  remember(scope: string, revisions: ReadonlyMap<string, Revision>): void {
    const sequence = ++this.#sequence;
    const previous = this.#scopes.get(scope)?.observations;
    const observations = new Map<string, Observation>();
    for (const [name, revision] of revisions) {
      const earlier = previous?.get(name);
      observations.set(
        name,
        earlier !== undefined && sameRevision(earlier.revision, revision) ? earlier : { revision, sequence },
      );
    }
    this.#scopes.delete(scope);
    this.#scopes.set(scope, { observations, enumeratedAt: this.#now() });
    for (const [oldest] of this.#scopes) {
      if (this.#scopes.size <= this.#maxScopes) break;
      this.#scopes.delete(oldest);
    }
  }

  /** Marks the start of a search; only observations made before it may serve as its "before". */
  begin(): number {
    return ++this.#sequence;
  }

  /** The revision of `name` observed before the search that began at `start`, if any. */
  before(scope: string, name: string, start: number): Revision | undefined {
    const observation = this.#scopes.get(scope)?.observations.get(name);
    return observation !== undefined && observation.sequence < start ? observation.revision : undefined;
  }

  /** An observation made after a search; undefined (unreadable) forgets the file. */
  observe(scope: string, name: string, revision: Revision | undefined): void {
    const entry = this.#scopes.get(scope);
    if (entry === undefined) return;
    if (revision === undefined) {
      entry.observations.delete(name);
    } else if (entry.observations.has(name) || entry.observations.size < MAX_SOURCE_REVISION_FILES) {
      entry.observations.set(name, { revision, sequence: ++this.#sequence });
    }
  }

  clear(): void {
    this.#scopes.clear();
  }
}
