/**
 * The repository containing a directory: its top level, object format, the filter drivers its
 * configuration names (emptied for every later command, see process.ts), and whether it is a
 * partial clone. A partial clone fetches missing objects on demand; Git before 2.45 cannot be
 * told not to, so such a repository is refused there before any object is read. Revisions are
 * resolved to commit ids here, so later commands never see a caller's spelling.
 */
import { canonicalPath } from "../../core/canonical-path.js";
import { EvidentError } from "../../core/errors.js";
import { type Git, gitMessage } from "./process.js";

export interface Repository {
  /** The top level of the working tree, canonical. */
  readonly root: string;
  readonly objectFormat: "sha1" | "sha256";
  /** `-c` overrides that empty every configured filter driver. */
  readonly config: readonly string[];
}

export interface OpenedRepository {
  readonly repository: Repository;
  /** The commit id of each revision asked for, in order; undefined for an unborn HEAD. */
  readonly commits: readonly (string | undefined)[];
}

/**
 * The repository containing `dir`, and the commits `revisions` name there (one Git command when
 * all goes well). `readsWorktree`: later commands read the working tree, so configured filter
 * drivers must be known; otherwise only a partial clone matters, and only to Git before 2.45.
 * Not a repository, or a revision that names no commit, is `invalid_arguments`.
 */
export async function openRepository(
  git: Git,
  dir: string,
  revisions: readonly string[],
  readsWorktree: boolean,
  signal?: AbortSignal,
): Promise<OpenedRepository> {
  // The configuration is read alongside (it names what later commands must not run).
  const needsConfig = readsWorktree || !(await git.hasNoLazyFetch(signal));
  const config = needsConfig ? safetyConfig(git, dir, readsWorktree, signal) : Promise.resolve([]);
  config.catch(() => {});
  try {
    // Callers' revisions never start with "-" (request.ts); `^{commit}` keeps them revisions, and
    // the final "--" keeps them from being read as paths.
    const located = await git.run({
      cwd: dir,
      args: [
        "rev-parse",
        "--show-toplevel",
        "--show-object-format",
        ...revisions.map((r) => `${r}^{commit}`),
        "--",
      ],
      signal,
    });
    const lines = located.stdout.toString("utf8").split("\n");
    let commits: (string | undefined)[] = lines.slice(2, 2 + revisions.length);
    if (located.exitCode !== 0) {
      await locate(git, dir, signal);
      commits = await resolveEach(git, dir, revisions, signal);
    }
    const [top = "", format = ""] = lines;
    if (top === "" || (format !== "sha1" && format !== "sha256")) {
      throw new EvidentError(
        "internal_error",
        "git rev-parse did not name the repository's top level and object format.",
      );
    }
    return { repository: { root: canonicalPath(top), objectFormat: format, config: await config }, commits };
  } catch (error) {
    // The configuration's Git, started alongside, ends before this call does (it shares the
    // signal, or has little left to do): no process outlives the call.
    await config.catch(() => {});
    throw error;
  }
}

/** Fails with why `dir` has no repository Git will use. */
async function locate(git: Git, dir: string, signal: AbortSignal | undefined): Promise<void> {
  const located = await git.run({ cwd: dir, args: ["rev-parse", "--show-toplevel"], signal });
  if (located.exitCode === 0) return;
  const message = gitMessage(located.stderr);
  if (/dubious ownership/i.test(located.stderr)) {
    throw new EvidentError(
      "configuration_error",
      `Git refuses the repository at ${dir}: it is owned by another user (${message}). Mark it safe in your own Git configuration if you trust it.`,
    );
  }
  throw new EvidentError(
    "invalid_arguments",
    `Invalid arguments: changes: ${dir} is not inside a Git working tree (${message}).`,
    { details: { field: "changes" } },
  );
}

/** Each revision on its own, to name the one that does not resolve (HEAD may be unborn). */
async function resolveEach(
  git: Git,
  dir: string,
  revisions: readonly string[],
  signal: AbortSignal | undefined,
): Promise<(string | undefined)[]> {
  const commits: (string | undefined)[] = [];
  for (const revision of revisions) {
    const out = await git.run({
      cwd: dir,
      args: ["rev-parse", "--verify", "--quiet", `${revision}^{commit}`],
      signal,
    });
    const id = out.stdout.toString("utf8").trim();
    if (out.exitCode === 0 && /^[0-9a-f]{40,64}$/.test(id)) commits.push(id);
    else if (revision === "HEAD" && revisions.length === 1) commits.push(undefined);
    else {
      throw new EvidentError(
        "invalid_arguments",
        `Invalid arguments: changes: "${revision}" does not name a commit of this repository.`,
        { details: { field: "changes" } },
      );
    }
  }
  return commits;
}

/**
 * The overrides that empty every filter driver the configuration names; and, where Git would
 * fetch missing objects on demand, the refusal of a partial clone.
 */
async function safetyConfig(
  git: Git,
  dir: string,
  readsWorktree: boolean,
  signal: AbortSignal | undefined,
): Promise<string[]> {
  const settings = await git.run({
    cwd: dir,
    args: [
      "config",
      "-z",
      "--get-regexp",
      // `.*`: a driver's (or remote's) name may be empty (`[filter ""]`, named by `filter=`).
      "^(filter\\..*\\.(clean|smudge|process|required)|remote\\..*\\.promisor|extensions\\.partialclone)$",
    ],
    signal,
  });
  // Exit 1: none of those keys is set.
  if (settings.exitCode !== 0 && settings.exitCode !== 1) {
    throw new EvidentError("internal_error", `git config failed: ${gitMessage(settings.stderr)}`);
  }
  const drivers = new Set<string>();
  let promisor: string | undefined;
  for (const record of settings.stdout.toString("utf8").split("\0")) {
    if (record === "") continue;
    const newline = record.indexOf("\n");
    const key = newline === -1 ? record : record.slice(0, newline);
    const value = newline === -1 ? "" : record.slice(newline + 1);
    const filter = /^filter\.(.*)\.(?:clean|smudge|process|required)$/s.exec(key);
    if (filter !== null) drivers.add(filter[1] as string);
    else if (key === "extensions.partialclone" || value.toLowerCase() !== "false") promisor = key;
  }
  if (promisor !== undefined && !(await git.hasNoLazyFetch(signal))) {
    const version = await git.version(signal);
    throw new EvidentError(
      "configuration_error",
      `The repository at ${dir} is a partial clone (${promisor}): Git fetches its missing objects on demand, and ` +
        `${version.text} cannot be told not to (that needs Git 2.45 or newer). Compare changes in a full clone, or upgrade Git.`,
      { details: { reason: "partial_clone_needs_git_2_45" } },
    );
  }
  // `-c` splits at the first "=", so a driver whose name has one cannot be emptied: Git would
  // run it on the working tree. Only such a repository's working tree is refused.
  const unsafe = readsWorktree ? [...drivers].find((name) => name.includes("=")) : undefined;
  if (unsafe !== undefined) {
    throw new EvidentError(
      "configuration_error",
      `The repository at ${dir} configures a filter driver ${JSON.stringify(unsafe.slice(0, 100))} whose name ` +
        'contains "=": Git\'s command line cannot switch it off, and Git would run it on the working tree. ' +
        "Compare commits (BASE..TARGET) instead, or remove that driver from the repository's configuration.",
      { details: { reason: "filter_driver_not_overridable" } },
    );
  }
  return [...drivers].flatMap((name) => [
    `filter.${name}.clean=`,
    `filter.${name}.smudge=`,
    `filter.${name}.process=`,
    `filter.${name}.required=false`,
  ]);
}

export async function mergeBase(
  git: Git,
  repository: Repository,
  a: string,
  b: string,
  signal?: AbortSignal,
): Promise<string> {
  const out = await git.run({
    cwd: repository.root,
    args: ["merge-base", a, b],
    config: repository.config,
    signal,
  });
  const id = out.stdout.toString("utf8").trim();
  if (out.exitCode !== 0 || !/^[0-9a-f]{40,64}$/.test(id)) {
    throw new EvidentError(
      "invalid_arguments",
      "Invalid arguments: changes: the two commits have no merge base.",
      {
        details: { field: "changes" },
      },
    );
  }
  return id;
}

/** The empty tree's id in each object format (what an unborn HEAD compares as: everything is new). */
export const EMPTY_TREE: Readonly<Record<Repository["objectFormat"], string>> = {
  sha1: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
  sha256: "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
};

/**
 * The top level of the working tree containing `dir`, canonical; undefined when there is none
 * (not a repository, or Git refuses it): callers then use the directory itself.
 */
export async function repositoryRoot(
  git: Git,
  dir: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  let out: Awaited<ReturnType<Git["run"]>>;
  try {
    out = await git.run({ cwd: dir, args: ["rev-parse", "--show-toplevel"], signal });
  } catch (error) {
    // Without Git there is no repository to find: the directory itself is the root.
    if (error instanceof EvidentError && error.code === "configuration_error") return undefined;
    throw error;
  }
  const top = out.stdout.toString("utf8").trim();
  return out.exitCode === 0 && top !== "" ? canonicalPath(top) : undefined;
}
