/**
 * A change scope: what Git shows changed under a search target, materialized so ripgrep can
 * search exactly those bytes with the request's own options.
 *
 * The changed files come from Git's plumbing (git/diff.ts) without a patch, run without hooks,
 * filters, lazy fetch or replacement objects (git/process.ts). Each one's content on the
 * searched side is written to a private tree (tree.ts) mirroring its place under ripgrep's working
 * directory (layout.ts), so paths, globs and hidden-file rules read as in an ordinary search
 * (ignore files are not applied: Git already said which files changed); a tree is kept for later
 * calls with the same content (mirrors.ts). Historical content (the old side, the index,
 * commits) is read from Git objects, never from the working tree; working-tree content is read
 * once, and a file whose bytes are those of HEAD (listed for its metadata alone) is no change.
 * Untracked files that are not ignored count as added, wholly changed.
 *
 * Changed lines are fetched only for files where a scan found something (a patch limited to
 * them, `admission`): for working-tree content Git's id of the bytes it compared must be the id
 * of the bytes searched, else the file is left out and named, so the scope is partial rather
 * than mixing another version's lines with the change.
 */

import { createHash } from "node:crypto";
import { dirname, join, relative } from "node:path";
import { allEnded, mapBounded } from "../../core/concurrency.js";
import { EvidentError } from "../../core/errors.js";
import { CHANGES_CONCURRENT_FILES, CHANGES_MAX_FILES, GIT_PATHSPECS_PER_COMMAND } from "../../core/limits.js";
import type { Phrasing } from "../../core/phrasing.js";
import type { Slots } from "../../core/slots.js";
import { type ChangedFile, changedFiles, type DiffSides } from "../git/diff.js";
import { missingObjects } from "../git/objects.js";
import { type Git, MissingObjectError } from "../git/process.js";
import { EMPTY_TREE, mergeBase, openRepository, type Repository } from "../git/repository.js";
import { protectedReason, type SearchTarget } from "../path-policy.js";
import type { ChangeSpec, SearchQuery } from "../request.js";
import type { Revision } from "../revisions/scan.js";
import { type PartialReason, type RetentionBounds, runContentSearch } from "../rg/content-search.js";
import type { ParsedMatch } from "../rg/events.js";
import { allMatches, type ParsedMatchTable, parsedTable } from "../rg/match-table.js";
import type { ChangesSummary } from "../snapshots/analysis.js";
import { compareKeys } from "../snapshots/sequence.js";
import { changedLines, type LineRuns, onChangedLine } from "./admission.js";
import { type MirrorLayout, mirrorLayout } from "./layout.js";
import type { Mirror, MirrorCache } from "./mirrors.js";
import { buildTree, type NotCovered, type ScopeBuild, type Wanted } from "./tree.js";
import {
  type ContentIds,
  checkedOutSubmodules,
  isRegularFile,
  readCurrent,
  untrackedFiles,
} from "./worktree.js";

export interface ChangeScopeDeps {
  readonly git: Git;
  /** Working-tree content ids kept between calls (worktree.ts). */
  readonly contentIds: ContentIds;
  /** The trees kept between calls (mirrors.ts). */
  readonly mirrors: MirrorCache<ScopeBuild>;
  readonly rgPath: string;
  /** ripgrep's whole environment: what the caller handed down (config/ settings' childEnvironment). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly retention?: RetentionBounds | undefined;
  readonly onSpawn?: ((pid: number) => void) | undefined;
  readonly slots?: Slots | undefined;
  /** How a refusal's advice is written for the surface. */
  readonly phrasing?: Phrasing | undefined;
  /** Files a comparison covers at most (tests make it small); CHANGES_MAX_FILES by default. */
  readonly maxFiles?: number | undefined;
}

/** Matching lines of a change scope's content, in path order, paths as an ordinary search prints them. */
export interface ScopedLines {
  readonly table: ParsedMatchTable;
  readonly partialReason: PartialReason | undefined;
  /** The file holding the line over the protocol cap, printed as `table`'s paths are. */
  readonly longLineKey?: string | undefined;
  readonly searchErrors: number;
  readonly trusted: Record<string, Revision>;
}

/**
 * Whether a matching line's occurrences lie wholly inside the change: each lies within its line
 * (admission.ts), so a line's occurrences are admitted together or not at all.
 */
export type Admission = (match: ParsedMatch) => boolean;

export interface ChangeScope {
  /** The comparison as the answer states it, with every file it could not cover so far. */
  summary(): ChangesSummary;
  /** ripgrep over the changed files' content on the searched side. */
  scan(query: SearchQuery, signal: AbortSignal): Promise<ScopedLines>;
  /** The admission of occurrences in `paths` (as scans print them), their changed lines fetched. */
  admission(paths: Iterable<string>, signal: AbortSignal): Promise<Admission>;
  /** The call is done with the scope's tree (kept for later calls, see mirrors.ts). */
  dispose(): Promise<void>;
}

export type { ScopeBuild } from "./tree.js";

/** Runs `work` over a target's change scope and removes the scope's files after it. */
export type InChanges = <T>(
  target: SearchTarget,
  spec: ChangeSpec,
  signal: AbortSignal,
  work: (scope: ChangeScope) => Promise<T>,
) => Promise<T>;

export async function openChangeScope(
  deps: ChangeScopeDeps,
  target: SearchTarget,
  spec: ChangeSpec,
  signal: AbortSignal,
): Promise<ChangeScope> {
  const { git } = deps;
  const maxFiles = deps.maxFiles ?? CHANGES_MAX_FILES;
  const { repository, commits, pathspec } = await repositoryOf(git, target, spec, signal);
  const { sides, comparison } = await comparisonOf(git, repository, spec, commits, signal);
  const [files, untracked, submodules] = await allEnded([
    changedFiles(git, repository, sides, [pathspec === "" ? "." : pathspec], false, signal),
    spec.compare === "worktree" && spec.side === "new"
      ? untrackedFiles(git, repository, pathspec, signal)
      : Promise.resolve([]),
    // Staged and committed sides record a submodule's commit only: nothing inside it to miss.
    spec.compare === "worktree"
      ? checkedOutSubmodules(git, repository, pathspec, signal)
      : Promise.resolve([]),
  ]);
  const place: Place = { repository, target, layout: mirrorLayout(target) };
  const fromObjects = spec.side === "old" || spec.compare !== "worktree";
  const listed = wantedFiles(place, spec, files, untracked, maxFiles, fromObjects);
  const { notCovered } = listed;
  const { wanted, trusted } = fromObjects
    ? { wanted: listed.wanted, trusted: new Map<string, Revision>() }
    : await readWorktree(deps, repository, listed.wanted, notCovered, signal);
  notCovered.push(...submodulesNotCompared(place, submodules, notCovered));
  if (listed.beyond.length > 0) {
    // Named once, with how many more: a listing of thousands would crowd out everything else.
    notCovered.push({
      path: listed.beyond[0] as string,
      reason: `beyond the ${maxFiles} files a comparison covers, with ${listed.beyond.length - 1} more after it`,
      files: listed.beyond.length,
    });
  }
  const digest = createHash("sha256")
    .update(JSON.stringify([repository.objectFormat, wanted.map((w) => [w.key, w.id])]))
    .digest("hex");
  const mirror = await deps.mirrors.acquire(digest, (tree) =>
    buildTree(git, repository, wanted, tree, signal),
  );
  const byKey = new Map(wanted.filter((w) => mirror.data.ids.has(w.key)).map((w) => [w.key, w]));
  return new Scope(deps, repository, spec, sides, comparison, target, place.layout, mirror, byKey, trusted, [
    ...notCovered,
    ...mirror.data.notCovered,
  ]);
}

/** The repository holding the target, the commits the spec names, and the target as a pathspec. */
async function repositoryOf(
  git: Git,
  target: SearchTarget,
  spec: ChangeSpec,
  signal: AbortSignal,
): Promise<{ repository: Repository; commits: readonly (string | undefined)[]; pathspec: string }> {
  const dir = target.isDirectory ? target.canonical : dirname(target.canonical);
  const revisions = spec.compare === "commits" ? [spec.base ?? "", spec.target ?? "HEAD"] : ["HEAD"];
  const { repository, commits } = await openRepository(
    git,
    dir,
    revisions,
    spec.compare === "worktree",
    signal,
  );
  const pathspec = relative(repository.root, target.canonical);
  if (pathspec.startsWith("..")) {
    throw new EvidentError(
      "invalid_arguments",
      `Invalid arguments: changes: "${target.requested}" is not inside the repository at ${repository.root}.`,
      { details: { field: "changes" } },
    );
  }
  return { repository, commits, pathspec };
}

/** Where the scope's files come from and go to: the repository, the target, the tree's layout. */
interface Place {
  readonly repository: Repository;
  readonly target: SearchTarget;
  readonly layout: MirrorLayout;
}

/** A path in a protected area: left out of the scope without a word, as any search leaves it. */
function isProtected(place: Place, absolute: string): boolean {
  return protectedReason(absolute, place.target.rg.protectedAreas) !== undefined;
}

/**
 * A path with an empty, '.' or '..' component. Git never checks such a path out, but a crafted
 * tree holds one as written: joined, it would lead out of the repository (a read) and out of the
 * scope's tree (a write).
 */
function hasDotComponent(path: string): boolean {
  return path.split("/").some((part) => part === "" || part === "." || part === "..");
}

/** The changed and untracked files wanted in the tree, those named as not covered, and those past the count. */
function wantedFiles(
  place: Place,
  spec: ChangeSpec,
  files: readonly ChangedFile[],
  untracked: readonly string[],
  maxFiles: number,
  fromObjects: boolean,
): { wanted: Wanted[]; notCovered: NotCovered[]; beyond: string[] } {
  const notCovered: NotCovered[] = [];
  const wanted: Wanted[] = [];
  const beyond: string[] = [];
  const candidates = [
    ...files.map((changed) => ({ changed: changed as ChangedFile | undefined, path: changed.path })),
    ...untracked.map((path) => ({ changed: undefined, path })),
  ];
  for (const { changed, path } of candidates) {
    const placed = placeCandidate(place, spec, changed, path);
    if (placed === undefined) continue;
    if ("reason" in placed) notCovered.push(placed);
    else if (wanted.length >= maxFiles) beyond.push(placed.key);
    else {
      const id = changed === undefined ? undefined : spec.side === "new" ? changed.newId : changed.oldId;
      wanted.push({
        changed,
        path,
        key: placed.key,
        id: fromObjects ? id : undefined,
        bytes: undefined,
        revision: undefined,
      });
    }
  }
  return { wanted, notCovered, beyond };
}

/** A listed file: left out (undefined), named as not covered, or wanted under its key. */
function placeCandidate(
  place: Place,
  spec: ChangeSpec,
  changed: ChangedFile | undefined,
  path: string,
): NotCovered | { readonly key: string } | undefined {
  const { repository, layout } = place;
  // Git lists a directory holding a repository of its own (not a submodule) as one entry.
  if (changed === undefined && path.endsWith("/")) {
    const absolute = join(repository.root, path.slice(0, -1));
    return isProtected(place, absolute)
      ? undefined
      : { path: layout.keyOf(absolute), reason: NESTED_REPOSITORY };
  }
  if (hasDotComponent(path)) {
    return { path, reason: "its path has a '.' or '..' component, which Git never checks out" };
  }
  const absolute = join(repository.root, path);
  if (isProtected(place, absolute)) return undefined;
  const key = layout.keyOf(absolute);
  // An untracked symbolic link is left out, as any search leaves links unfollowed.
  if (changed === undefined) return isRegularFile(absolute) ? { key } : undefined;
  const mode = spec.side === "new" ? changed.newMode : changed.oldMode;
  // Absent on this side (added or deleted), or a symbolic link (never followed).
  if (mode === "000000" || mode === "120000") return undefined;
  if (mode === SUBMODULE) return { path: key, reason: submoduleReason(changed) };
  if (changed.lossy) return { path: key, reason: "its name is not valid UTF-8" };
  return { key };
}

/**
 * The wanted files' working-tree bytes, read once: a file whose bytes are HEAD's (listed for its
 * metadata alone) is no change; one that cannot be read is named in `notCovered`.
 */
async function readWorktree(
  deps: ChangeScopeDeps,
  repository: Repository,
  wanted: readonly Wanted[],
  notCovered: NotCovered[],
  signal: AbortSignal,
): Promise<{ wanted: Wanted[]; trusted: Map<string, Revision> }> {
  const contents = await mapBounded(
    wanted,
    CHANGES_CONCURRENT_FILES,
    ({ path }) => readCurrent(join(repository.root, path), repository, deps.contentIds),
    signal,
  );
  const read: Wanted[] = [];
  const trusted = new Map<string, Revision>();
  wanted.forEach((w, i) => {
    const content = contents[i] as Awaited<ReturnType<typeof readCurrent>>;
    if (typeof content === "string") notCovered.push({ path: w.key, reason: content });
    else if (
      w.changed !== undefined &&
      content.id === w.changed.oldId &&
      w.changed.newMode === w.changed.oldMode
    ) {
      // Listed for its metadata alone: HEAD's bytes, no change.
    } else {
      trusted.set(w.key, content.revision);
      read.push({ ...w, id: content.id, bytes: content.bytes, revision: content.revision });
    }
  });
  return { wanted: read, trusted };
}

/**
 * Checked-out submodules not named yet. Whether one holds edits would take Git running inside
 * it, under its own configuration: each is named, and the answer is partial rather than
 * complete about what it never looked at.
 */
function submodulesNotCompared(
  place: Place,
  submodules: readonly string[],
  notCovered: readonly NotCovered[],
): NotCovered[] {
  const named = new Set(notCovered.map((f) => f.path));
  const entries: NotCovered[] = [];
  for (const path of submodules) {
    if (hasDotComponent(path)) continue;
    const absolute = join(place.repository.root, path);
    if (isProtected(place, absolute)) continue;
    const key = place.layout.keyOf(absolute);
    if (!named.has(key)) entries.push({ path: key, reason: SUBMODULE_CHECKED_OUT, files: 0 });
  }
  return entries;
}

/** Git's mode for a submodule (a commit recorded in the tree). */
const SUBMODULE = "160000";

const SUBMODULE_CHECKED_OUT =
  "a submodule checked out here: edits inside it are not looked for, so its files are not compared";

const NESTED_REPOSITORY =
  "an untracked directory holding a Git repository of its own: the files inside it are not compared";

/** Why a changed submodule is not covered: its files are another repository's. */
function submoduleReason(changed: ChangedFile): string {
  const what =
    changed.oldMode === "000000"
      ? "added"
      : changed.newMode === "000000"
        ? "removed"
        : changed.oldMode === changed.newMode
          ? "its recorded commit changed"
          : "a file or link on the other side";
  return `a submodule, ${what}: the files inside it are not compared`;
}

class Scope implements ChangeScope {
  /** Changed lines by key, fetched as admissions ask; "all" for whole files. */
  readonly #ranges = new Map<string, LineRuns | "all">();

  constructor(
    private readonly deps: ChangeScopeDeps,
    private readonly repository: Repository,
    private readonly spec: ChangeSpec,
    private readonly sides: DiffSides,
    private readonly comparison: string,
    private readonly target: SearchTarget,
    private readonly layout: MirrorLayout,
    private readonly mirror: Mirror<ScopeBuild>,
    private readonly files: ReadonlyMap<string, Wanted>,
    private readonly trusted: ReadonlyMap<string, Revision>,
    private readonly notCovered: NotCovered[],
  ) {}

  summary(): ChangesSummary {
    const { spec, layout } = this;
    const excluded = new Set(this.notCovered.map((f) => f.path));
    return {
      comparison: this.comparison,
      side: spec.side,
      scope: spec.scope,
      source: spec.side === "old" || spec.compare !== "worktree" ? "objects" : "worktree",
      filesChanged:
        [...this.files.keys()].filter((k) => !excluded.has(k)).length +
        this.notCovered.reduce((sum, f) => sum + (f.files ?? 1), 0),
      notCovered: this.notCovered.map((f) => ({ path: layout.shown(f.path), reason: f.reason })),
    };
  }

  async scan(query: SearchQuery, signal: AbortSignal): Promise<ScopedLines> {
    const { layout } = this;
    if (this.files.size === 0)
      return { table: parsedTable([]), partialReason: undefined, searchErrors: 0, trusted: {} };
    const run = await runContentSearch({
      rgPath: this.deps.rgPath,
      env: this.deps.env,
      query,
      target: {
        cwd: this.mirror.dir,
        root: layout.root,
        protectedGlobs: this.target.rg.protectedGlobs,
        noIgnore: true,
      },
      signal,
      ...(this.deps.retention === undefined ? {} : { retention: this.deps.retention }),
      ...(this.deps.onSpawn === undefined ? {} : { onSpawn: this.deps.onSpawn }),
      slots: this.deps.slots,
      ...(this.deps.phrasing === undefined ? {} : { phrasing: this.deps.phrasing }),
    });
    const matches = allMatches(run.table).map((m) =>
      layout.external ? { ...m, path: layout.printed(m.path) } : m,
    );
    matches.sort((a, b) => compareKeys(a.path, b.path) || a.line - b.line);
    const trusted: Record<string, Revision> = {};
    for (const m of matches) {
      const revision = this.trusted.get(layout.keyOfPrinted(m.path));
      if (revision !== undefined) trusted[m.path] = revision;
    }
    return {
      table: parsedTable(matches),
      partialReason: run.partialReason,
      ...(run.longLineKey === undefined
        ? {}
        : { longLineKey: layout.external ? layout.printed(run.longLineKey) : run.longLineKey }),
      searchErrors: run.searchErrors,
      trusted,
    };
  }

  async admission(paths: Iterable<string>, signal: AbortSignal): Promise<Admission> {
    const { layout } = this;
    const missing: Wanted[] = [];
    for (const path of new Set(paths)) {
      const key = layout.keyOfPrinted(path);
      const file = this.files.get(key);
      if (file === undefined || this.#ranges.has(key)) continue;
      if (this.spec.scope === "files" || file.changed === undefined) this.#ranges.set(key, "all");
      else missing.push(file);
    }
    for (let at = 0; at < missing.length; at += GIT_PATHSPECS_PER_COMMAND) {
      await this.#fetchLines(missing.slice(at, at + GIT_PATHSPECS_PER_COMMAND), signal);
    }
    return (match) => {
      const ranges = this.#ranges.get(layout.keyOfPrinted(match.path));
      if (ranges === undefined) return false;
      return ranges === "all" || onChangedLine(ranges, match.line);
    };
  }

  async dispose(): Promise<void> {
    this.mirror.release();
  }

  /** The changed lines of `batch`: a patch limited to them. */
  async #fetchLines(batch: readonly Wanted[], signal: AbortSignal): Promise<void> {
    const patched = await this.#patches(await this.#withObjects(batch, signal), signal);
    for (const file of batch) {
      if (this.#ranges.has(file.key)) continue;
      const change = patched.get(file.path);
      const id = this.mirror.data.ids.get(file.key);
      // The working tree moved on since the listing: Git compared other bytes than the tree holds.
      if (this.spec.side === "new" && change?.patchNewId !== undefined && change.patchNewId !== id) {
        this.#leaveOut(
          file,
          "it differs from what Git compared (edited since, or converted by Git's line-ending settings)",
        );
        continue;
      }
      if (change === undefined) {
        this.#ranges.set(file.key, []);
        continue;
      }
      this.#ranges.set(file.key, changedLines(change.hunks, this.spec.side));
    }
  }

  /** A file whose changed lines are not known: none of its lines is admitted, and it is named. */
  #leaveOut(file: Wanted, reason: string): void {
    this.#ranges.set(file.key, []);
    this.notCovered.push({ path: file.key, reason });
  }

  /**
   * The files of `batch` whose objects on both sides are here; the others (a partial clone's,
   * which Git may not fetch) are left out and named. Asked only of a Git that fetches nothing on
   * demand: an older one refuses a partial clone before this (git/repository.ts).
   */
  async #withObjects(batch: readonly Wanted[], signal: AbortSignal): Promise<Wanted[]> {
    const { git } = this.deps;
    if (!(await git.hasNoLazyFetch(signal))) return [...batch];
    const ids = batch.flatMap((w) => [w.changed?.oldId, w.changed?.newId]).filter(isObjectId);
    let missing: Set<string>;
    try {
      missing = await missingObjects(git, this.repository, ids, signal);
    } catch (error) {
      // A Git that fetches on demand after all dies at the first object it lacks: the patches
      // then name what is missing one object at a time.
      if (error instanceof MissingObjectError) return [...batch];
      throw error;
    }
    return batch.filter((w) => {
      const lacking = [w.changed?.oldId, w.changed?.newId].find((id) => id !== undefined && missing.has(id));
      if (lacking !== undefined) this.#leaveOut(w, lackingReason(`object ${lacking} is missing`));
      return lacking === undefined;
    });
  }

  /**
   * The patch of `batch`'s files, by path. Git dies at the first object it lacks, naming it: the
   * files that need it are left out and named with Git's line, and the rest compared again.
   */
  async #patches(batch: readonly Wanted[], signal: AbortSignal): Promise<Map<string, ChangedFile>> {
    let files = batch;
    while (files.length > 0) {
      try {
        const paths = files.map((w) => w.path);
        const patch = await changedFiles(this.deps.git, this.repository, this.sides, paths, true, signal);
        return new Map(patch.map((f) => [f.path, f]));
      } catch (error) {
        if (!(error instanceof MissingObjectError)) throw error;
        const needs = (w: Wanted) => w.changed?.oldId === error.id || w.changed?.newId === error.id;
        // Git named an object none of these files needs: nothing to leave out, so the failure stands.
        if (!files.some(needs)) throw error;
        for (const w of files.filter(needs)) this.#leaveOut(w, lackingReason(error.line));
        files = files.filter((w) => !needs(w));
      }
    }
    return new Map();
  }
}

/** Why a file's changed lines are unknown: Git lacks an object needed to compare it. */
function lackingReason(cause: string): string {
  return `its changed lines are unknown: Git lacks an object needed to compare it, and fetches none (${cause})`;
}

/** An object id, not Git's all-zero stand-in for working-tree content or an absent side. */
function isObjectId(id: string | undefined): id is string {
  return id !== undefined && !/^0+$/.test(id);
}

/** The lines of a scan whose occurrences are admitted: what a search scoped to changed lines retains. */
export function admittedLines(matches: readonly ParsedMatch[], admit: Admission): ParsedMatch[] {
  return matches.filter((match) => admit(match));
}

async function comparisonOf(
  git: Git,
  repository: Repository,
  spec: ChangeSpec,
  commits: readonly (string | undefined)[],
  signal: AbortSignal,
): Promise<{ sides: DiffSides; comparison: string }> {
  const short = (id: string) => id.slice(0, 12);
  if (spec.compare !== "commits") {
    const head = commits[0];
    const base = head ?? EMPTY_TREE[repository.objectFormat];
    const what = spec.compare === "worktree" ? "working tree" : "index (staged)";
    const against = head === undefined ? "no commit yet (everything is new)" : `HEAD (${short(base)})`;
    return { sides: { kind: spec.compare, base }, comparison: `${what} vs ${against}` };
  }
  const [base = "", target = ""] = commits as string[];
  if (!spec.mergeBase) {
    return {
      sides: { kind: "commits", base, target },
      comparison: `${spec.base} (${short(base)})..${spec.target} (${short(target)})`,
    };
  }
  const from = await mergeBase(git, repository, base, target, signal);
  return {
    sides: { kind: "commits", base: from, target },
    comparison: `merge base of ${spec.base} and ${spec.target} (${short(from)})...${spec.target} (${short(target)})`,
  };
}
