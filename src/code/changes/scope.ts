/**
 * A change scope: what Git shows changed under a search target, materialized so ripgrep can
 * search exactly those bytes with the request's own options.
 *
 * The comparison (working tree or index against HEAD, or two commits) comes from Git's plumbing
 * (git/diff.ts), run without hooks, filters, lazy fetch or replacement objects (git/process.ts).
 * Each changed file's content on the searched side is written to a private temporary tree that
 * mirrors its place under ripgrep's working directory, so paths, globs and hidden-file rules read
 * as in an ordinary search (ignore files are not applied: Git already said which files changed).
 * Historical content (the old side, the index, commits) is read from Git objects, never from the
 * working tree. Working-tree content is read once and checked against the object id Git
 * compared (and its revision observed around the read); a file that differs is left out and
 * named, so the scope is partial rather than mixing another version's bytes with the change.
 * Untracked files that are not ignored count as added, wholly changed.
 */
import { createHash } from "node:crypto";
import { constants, lstatSync } from "node:fs";
import { mkdir, mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from "node:path";
import { mapBounded } from "../../core/concurrency.js";
import { EvidentError } from "../../core/errors.js";
import { CHANGES_CONCURRENT_FILES, CHANGES_FILE_MAX_BYTES, CHANGES_MAX_FILES } from "../../core/limits.js";
import { type ChangedFile, changedFiles, type DiffSides } from "../git/diff.js";
import { readBlobs } from "../git/objects.js";
import type { Git } from "../git/process.js";
import { emptyTree, mergeBase, openRepository, type Repository } from "../git/repository.js";
import { protectedReason, type SearchTarget } from "../path-policy.js";
import type { ChangeSpec, SearchQuery } from "../request.js";
import { type Revision, readRevisionSync, sameRevision } from "../revisions/scan.js";
import { type PartialReason, type RetentionBounds, runContentSearch } from "../rg/content-search.js";
import type { Occurrence, ParsedMatch } from "../rg/events.js";
import { allMatches, type ParsedMatchTable, parsedTable } from "../rg/match-table.js";
import type { ChangesSummary } from "../snapshots/analysis.js";
import { compareKeys } from "../snapshots/sequence.js";
import { admitted, type ByteRanges, changedByteRanges } from "./admission.js";

export interface ChangeScopeDeps {
  readonly git: Git;
  readonly rgPath: string;
  readonly retention?: RetentionBounds | undefined;
  readonly onSpawn?: ((pid: number) => void) | undefined;
}

/** Matching lines of a change scope's content, in path order, paths as an ordinary search prints them. */
export interface ScopedLines {
  readonly table: ParsedMatchTable;
  readonly partialReason: PartialReason | undefined;
  readonly searchErrors: number;
  readonly trusted: Record<string, Revision>;
}

export interface ChangeScope {
  readonly summary: ChangesSummary;
  /** ripgrep over the changed files' content on the searched side. */
  scan(query: SearchQuery, signal: AbortSignal): Promise<ScopedLines>;
  /** Whether an occurrence lies wholly inside the change (always, for a files scope). */
  admit(match: ParsedMatch, occurrence: Occurrence): boolean;
  /** Removes the temporary tree. */
  dispose(): Promise<void>;
}

interface ScopedFile {
  /** Changed byte ranges of the searched side, or "all" (a files scope, an untracked file). */
  readonly ranges: ByteRanges | "all";
}

export async function openChangeScope(
  deps: ChangeScopeDeps,
  target: SearchTarget,
  spec: ChangeSpec,
  signal: AbortSignal,
): Promise<ChangeScope> {
  const { git } = deps;
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
  const { sides, comparison } = await comparisonOf(git, repository, spec, commits, signal);
  const files = await changedFiles(git, repository, sides, pathspec === "" ? "." : pathspec, signal);
  const untracked =
    spec.compare === "worktree" && spec.side === "new"
      ? await untrackedFiles(git, repository, pathspec, signal)
      : [];

  const layout = mirrorLayout(target);
  const mirror = await mkdtemp(join(tmpdir(), "evident-changes-"));
  try {
    const scoped = new Map<string, ScopedFile>();
    const trusted = new Map<string, Revision>();
    const notCovered: { path: string; reason: string }[] = [];
    const fromObjects = spec.side === "old" || spec.compare !== "worktree";
    // What each changed file contributes on the searched side.
    const wanted: { changed: ChangedFile | undefined; path: string; key: string }[] = [];
    const candidates = [
      ...files.map((changed) => ({ changed: changed as ChangedFile | undefined, path: changed.path })),
      ...untracked.map((path) => ({ changed: undefined, path })),
    ];
    const beyond: string[] = [];
    for (const { changed, path } of candidates) {
      const absolute = join(repository.root, path);
      if (protectedReason(absolute) !== undefined) continue;
      const key = layout.keyOf(absolute);
      // An untracked symbolic link is left out, as any search leaves links unfollowed.
      if (changed === undefined && !isRegularFile(absolute)) continue;
      if (changed !== undefined) {
        const mode = spec.side === "new" ? changed.newMode : changed.oldMode;
        // Absent on this side (added or deleted), a symbolic link, or a submodule.
        if (mode === "000000" || mode === "120000" || mode === "160000") continue;
        const lines = changed.hunks.some((h) => (spec.side === "new" ? h.newCount : h.oldCount) > 0);
        if (spec.scope === "lines" && !lines) continue;
        if (changed.lossy) {
          notCovered.push({ path: key, reason: "its name is not valid UTF-8" });
          continue;
        }
      }
      if (wanted.length >= CHANGES_MAX_FILES) {
        beyond.push(key);
        continue;
      }
      wanted.push({ changed, path, key });
    }
    const idOf = (changed: ChangedFile | undefined) =>
      changed === undefined ? undefined : spec.side === "new" ? changed.newId : changed.oldId;
    const blobs = fromObjects
      ? await readBlobs(
          git,
          repository,
          wanted.flatMap((w) => idOf(w.changed) ?? []),
          CHANGES_FILE_MAX_BYTES,
          signal,
        )
      : undefined;
    // Each file's content on the searched side, or why it cannot be covered.
    const contents = await mapBounded(
      wanted,
      CHANGES_CONCURRENT_FILES,
      async ({ changed, path }): Promise<{ bytes: Buffer; revision?: Revision } | string> => {
        if (blobs === undefined) return readCurrent(join(repository.root, path), changed, repository);
        const id = idOf(changed);
        const blob = id === undefined ? undefined : blobs.get(id);
        if (blob === undefined || blob.kind === "missing")
          return "its content is not in the local object database";
        if (blob.kind === "too-large") return `larger than ${CHANGES_FILE_MAX_BYTES / (1024 * 1024)} MiB`;
        return { bytes: blob.bytes };
      },
      signal,
    );
    const writes: { destination: string; bytes: Buffer }[] = [];
    wanted.forEach(({ changed, key }, i) => {
      const content = contents[i] as { bytes: Buffer; revision?: Revision } | string;
      if (typeof content === "string") {
        notCovered.push({ path: key, reason: content });
        return;
      }
      if (content.revision !== undefined) trusted.set(key, content.revision);
      const ranges: ByteRanges | "all" =
        spec.scope === "files" || changed === undefined
          ? "all"
          : changedByteRanges(content.bytes, changed.hunks, spec.side);
      scoped.set(key, { ranges });
      writes.push({ destination: join(mirror, key), bytes: content.bytes });
    });
    // Directories once each (parents first), then the files, several at a time.
    for (const directory of [...new Set(writes.map((w) => dirname(w.destination)))].sort()) {
      await mkdir(directory, { recursive: true, mode: 0o700 });
    }
    await mapBounded(
      writes,
      CHANGES_CONCURRENT_FILES,
      ({ destination, bytes }) => writeFile(destination, bytes, { mode: 0o600 }),
      signal,
    );
    if (beyond.length > 0) {
      // Named once, with how many more: a listing of thousands would crowd out everything else.
      notCovered.push({
        path: beyond[0] as string,
        reason: `beyond the ${CHANGES_MAX_FILES} files a comparison covers, with ${beyond.length - 1} more after it`,
      });
    }
    const summary: ChangesSummary = {
      comparison,
      side: spec.side,
      scope: spec.scope,
      source: fromObjects ? "objects" : "worktree",
      filesChanged: scoped.size + notCovered.length + Math.max(0, beyond.length - 1),
      notCovered: notCovered.map((f) => ({ path: layout.shown(f.path), reason: f.reason })),
    };
    return scopeOver(deps, target, layout, mirror, scoped, trusted, summary);
  } catch (error) {
    await rm(mirror, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Where each file goes in the mirror, and how ripgrep's printed paths map back. Files keep their
 * path under ripgrep's working directory as the ordinary search spells it: the target's own
 * spelling (which may pass through a symbolic link), then the file's place under the target.
 * An external target (searched by its absolute path) is searched relative in the mirror, and
 * its paths are made absolute again.
 */
interface MirrorLayout {
  readonly external: boolean;
  /** ripgrep's root in the mirror. */
  readonly root: string;
  /** A changed file's key: its normalized path in the mirror. */
  keyOf(absolute: string): string;
  /** The key of a path as ripgrep printed it in the mirror (after `printed` mapping). */
  keyOfPrinted(path: string): string;
  /** A path ripgrep printed in the mirror, as an ordinary search would have printed it. */
  printed(path: string): string;
  /** A key as an answer shows it. */
  shown(key: string): string;
}

function mirrorLayout(target: SearchTarget): MirrorLayout {
  const external = isAbsolute(target.rg.root);
  const root = external ? relative(target.rg.cwd, target.rg.root) || "." : target.rg.root;
  return {
    external,
    root,
    keyOf(absolute) {
      const inner = relative(target.canonical, absolute);
      return normalize(inner === "" ? root : join(root, inner));
    },
    keyOfPrinted: (path) => normalize(external ? relative(target.rg.cwd, path) : path),
    printed: (path) => (external ? resolve(target.rg.cwd, path) : path),
    shown: (key) => (external ? resolve(target.rg.cwd, key) : key).split(sep).join("/"),
  };
}

function scopeOver(
  deps: ChangeScopeDeps,
  target: SearchTarget,
  layout: MirrorLayout,
  mirror: string,
  scoped: ReadonlyMap<string, ScopedFile>,
  trusted: ReadonlyMap<string, Revision>,
  summary: ChangesSummary,
): ChangeScope {
  return {
    summary,
    async scan(query, signal) {
      if (scoped.size === 0)
        return { table: parsedTable([]), partialReason: undefined, searchErrors: 0, trusted: {} };
      const run = await runContentSearch({
        rgPath: deps.rgPath,
        query,
        target: { cwd: mirror, root: layout.root, protectedGlobs: target.rg.protectedGlobs, noIgnore: true },
        signal,
        ...(deps.retention === undefined ? {} : { retention: deps.retention }),
        ...(deps.onSpawn === undefined ? {} : { onSpawn: deps.onSpawn }),
      });
      const matches = allMatches(run.table).map((m) =>
        layout.external ? { ...m, path: layout.printed(m.path) } : m,
      );
      matches.sort((a, b) => compareKeys(a.path, b.path) || a.line - b.line);
      const trustedKeys: Record<string, Revision> = {};
      for (const m of matches) {
        const revision = trusted.get(layout.keyOfPrinted(m.path));
        if (revision !== undefined) trustedKeys[m.path] = revision;
      }
      return {
        table: parsedTable(matches),
        partialReason: run.partialReason,
        searchErrors: run.searchErrors,
        trusted: trustedKeys,
      };
    },
    admit(match, occurrence) {
      const file = scoped.get(layout.keyOfPrinted(match.path));
      if (file === undefined) return false;
      if (file.ranges === "all") return true;
      return admitted(
        file.ranges,
        match.absoluteOffset + occurrence.startByte,
        match.absoluteOffset + occurrence.endByte,
      );
    },
    async dispose() {
      await rm(mirror, { recursive: true, force: true });
    },
  };
}

/**
 * The lines of a scan that hold an admitted occurrence, each keeping only those: what a search
 * scoped to changed lines retains.
 */
export function admittedLines(matches: readonly ParsedMatch[], scope: ChangeScope): ParsedMatch[] {
  const kept: ParsedMatch[] = [];
  for (const match of matches) {
    const occurrences = match.occurrences.filter((o) => scope.admit(match, o));
    if (occurrences.length === match.occurrences.length) kept.push(match);
    else if (occurrences.length > 0) kept.push({ ...match, occurrences });
  }
  return kept;
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
    const base = head ?? (await emptyTree(git, repository, signal));
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

async function untrackedFiles(
  git: Git,
  repository: Repository,
  pathspec: string,
  signal: AbortSignal,
): Promise<string[]> {
  const out = await git.run({
    cwd: repository.root,
    args: ["ls-files", "--others", "--exclude-standard", "-z", "--", pathspec === "" ? "." : pathspec],
    config: repository.config,
    signal,
  });
  if (out.exitCode !== 0)
    throw new EvidentError("internal_error", "git ls-files could not list untracked files.");
  const names: string[] = [];
  for (const name of out.stdout.toString("utf8").split("\0")) if (name !== "") names.push(name);
  return names;
}

/**
 * A working-tree file's bytes, read once with its revision observed before and after, and
 * checked against the object id Git compared; a string says why it cannot be covered.
 */
async function readCurrent(
  absolute: string,
  file: ChangedFile | undefined,
  repository: Repository,
): Promise<{ bytes: Buffer; revision: Revision } | string> {
  // A symbolic link is not followed (ripgrep does not follow them either): it could lead
  // anywhere, a credential store included.
  if (!isRegularFile(absolute)) return "it is not a regular file any more";
  const before = readRevisionSync(absolute);
  if (before === undefined) return "it cannot be read";
  if (BigInt(before.size) > BigInt(CHANGES_FILE_MAX_BYTES))
    return `larger than ${CHANGES_FILE_MAX_BYTES / (1024 * 1024)} MiB`;
  let bytes: Buffer;
  try {
    const handle = await open(absolute, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    try {
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch {
    return "it cannot be read";
  }
  const after = readRevisionSync(absolute);
  if (after === undefined || !sameRevision(before, after) || String(bytes.length) !== after.size) {
    return "it changed while it was read";
  }
  const expected = file?.patchNewId;
  if (expected !== undefined && blobId(bytes, repository.objectFormat) !== expected) {
    return "it differs from what Git compared (edited since, or converted by Git's line-ending settings)";
  }
  return { bytes, revision: after };
}

function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

function blobId(bytes: Buffer, format: "sha1" | "sha256"): string {
  return createHash(format === "sha1" ? "sha1" : "sha256")
    .update(`blob ${bytes.length}\0`)
    .update(bytes)
    .digest("hex");
}
