/**
 * The repository containing a directory: its top level, object format, the filter drivers its
 * configuration names (emptied for every later command, see process.ts), and whether it is a
 * partial clone. A partial clone fetches missing objects on demand; Git before 2.45 cannot be
 * told not to, so such a repository is refused there before any object is read. Revisions are
 * resolved to commit ids here, so later commands never see a caller's spelling.
 */
import { realpathSync } from "node:fs";
import { EvidentError } from "../../core/errors.js";
import { type Git, gitMessage } from "./process.js";

export interface Repository {
  /** The top level of the working tree, canonical. */
  readonly root: string;
  readonly objectFormat: "sha1" | "sha256";
  /** `-c` overrides that empty every configured filter driver. */
  readonly config: readonly string[];
}

/** The repository containing `dir`; `invalid_arguments` when there is none. */
export async function openRepository(git: Git, dir: string, signal?: AbortSignal): Promise<Repository> {
  const located = await git.run({
    cwd: dir,
    args: ["rev-parse", "--show-toplevel", "--show-object-format"],
    signal,
  });
  if (located.exitCode !== 0) {
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
      {
        details: { field: "changes" },
      },
    );
  }
  const [top = "", format = ""] = located.stdout.toString("utf8").split("\n");
  if (top === "" || (format !== "sha1" && format !== "sha256")) {
    throw new EvidentError(
      "internal_error",
      "git rev-parse did not name the repository's top level and object format.",
    );
  }
  const settings = await git.run({
    cwd: dir,
    args: [
      "config",
      "-z",
      "--get-regexp",
      "^(filter\\..+\\.(clean|smudge|process|required)|remote\\..+\\.promisor|extensions\\.partialclone)$",
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
    const filter = /^filter\.(.+)\.(?:clean|smudge|process|required)$/s.exec(key);
    if (filter !== null) drivers.add(filter[1] as string);
    else if (key === "extensions.partialclone" || value.toLowerCase() !== "false") promisor = key;
  }
  if (promisor !== undefined && !(await git.hasNoLazyFetch(signal))) {
    const version = await git.version(signal);
    throw new EvidentError(
      "configuration_error",
      `The repository at ${top} is a partial clone (${promisor}): Git fetches its missing objects on demand, and ` +
        `${version.text} cannot be told not to (that needs Git 2.45 or newer). Compare changes in a full clone, or upgrade Git.`,
      { details: { reason: "partial_clone_needs_git_2_45" } },
    );
  }
  return {
    root: canonical(top),
    objectFormat: format,
    config: [...drivers].flatMap((name) => [
      `filter.${name}.clean=`,
      `filter.${name}.smudge=`,
      `filter.${name}.process=`,
      `filter.${name}.required=false`,
    ]),
  };
}

function canonical(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

/**
 * Resolves revisions to commit ids, in order. An unknown revision is `invalid_arguments` naming
 * it; `...` comparisons take the merge base of the two.
 */
export async function resolveCommits(
  git: Git,
  repository: Repository,
  revisions: readonly string[],
  signal?: AbortSignal,
): Promise<string[]> {
  const ids: string[] = [];
  for (const revision of revisions) {
    // Callers' revisions never start with "-" (request.ts), and `^{commit}` keeps them revisions.
    const out = await git.run({
      cwd: repository.root,
      args: ["rev-parse", "--verify", "--quiet", `${revision}^{commit}`],
      config: repository.config,
      signal,
    });
    const id = out.stdout.toString("utf8").trim();
    if (out.exitCode !== 0 || !/^[0-9a-f]{40,64}$/.test(id)) {
      throw new EvidentError(
        "invalid_arguments",
        `Invalid arguments: changes: "${revision}" does not name a commit of the repository at ${repository.root}.`,
        { details: { field: "changes" } },
      );
    }
    ids.push(id);
  }
  return ids;
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

/**
 * HEAD's commit, or the empty tree when the repository has no commit yet (everything is new).
 */
export async function headOrEmptyTree(
  git: Git,
  repository: Repository,
  signal?: AbortSignal,
): Promise<string> {
  const head = await git.run({
    cwd: repository.root,
    args: ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"],
    config: repository.config,
    signal,
  });
  const id = head.stdout.toString("utf8").trim();
  if (head.exitCode === 0 && id !== "") return id;
  const empty = await git.run({
    cwd: repository.root,
    args: ["hash-object", "-t", "tree", "--stdin"],
    input: "",
    config: repository.config,
    signal,
  });
  return empty.stdout.toString("utf8").trim();
}
