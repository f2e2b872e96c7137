/**
 * Which paths code_search may read. cwd is the default root and explicit absolute or `..`
 * targets may leave it (unless the caller is confined to it: a remote caller), but `.git`
 * internals, credential stores, system credential files, evident's own configuration and cache,
 * and the kernel's special file systems are refused: first on the lexically resolved path (so a
 * missing path cannot probe them), then again on the canonical path (so a symlink cannot reach
 * them). A broad scan whose tree contains such areas gets exclusions for them instead of a
 * refusal.
 */
import { realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { EvidentError } from "../core/errors.js";
import { invalid } from "./request.js";

/**
 * Directory or file names that hold credentials wherever they appear (compared
 * case-insensitively): cloud and cluster CLIs, package-manager tokens, shell and REPL histories.
 */
export const PROTECTED_NAMES = [
  ".git",
  ".ssh",
  ".aws",
  ".azure",
  ".oci",
  ".gnupg",
  ".kube",
  ".docker",
  ".password-store",
  ".netrc",
  "_netrc",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
  ".pgpass",
  ".vault-token",
  ".terraform.d",
  ".terraformrc",
  ".boto",
  ".s3cfg",
  ".databrickscfg",
  ".my.cnf",
  ".mylogin.cnf",
  ".bash_history",
  ".zsh_history",
  ".zhistory",
  ".sh_history",
  ".python_history",
  ".node_repl_history",
  ".psql_history",
  ".mysql_history",
  ".sqlite_history",
  ".rediscli_history",
] as const;

/** Multi-component credential stores, browser profiles and evident's own files. */
export const PROTECTED_SEQUENCES: readonly (readonly string[])[] = [
  [".config", "evident"],
  [".cache", "evident"],
  [".config", "gh"],
  [".config", "gcloud"],
  [".config", "doctl"],
  [".config", "hcloud"],
  [".config", "rclone"],
  [".config", "op"],
  [".config", "github-copilot"],
  [".config", "glab-cli"],
  [".config", "hub"],
  [".config", "git", "credentials"],
  [".config", "containers", "auth.json"],
  [".config", "composer", "auth.json"],
  [".composer", "auth.json"],
  [".cargo", "credentials"],
  [".cargo", "credentials.toml"],
  [".gem", "credentials"],
  [".m2", "settings.xml"],
  [".m2", "settings-security.xml"],
  [".gradle", "gradle.properties"],
  [".nuget", "nuget", "nuget.config"],
  [".config", "nuget", "nuget.config"],
  [".pulumi", "credentials.json"],
  [".kaggle", "kaggle.json"],
  [".huggingface", "token"],
  [".cache", "huggingface", "token"],
  [".local", "share", "fish", "fish_history"],
  [".claude", ".credentials.json"],
  [".codex", "auth.json"],
  [".config", "google-chrome"],
  [".config", "chromium"],
  [".config", "bravesoftware"],
  [".config", "microsoft-edge"],
  [".local", "share", "keyrings"],
  [".mozilla"],
  [".thunderbird"],
  ["library", "keychains"],
  ["library", "application support", "google", "chrome"],
  ["library", "application support", "firefox"],
  ["appdata", "local", "google", "chrome", "user data"],
];

/** Every protected entry as lowercase path components: each name alone, then each sequence. */
const PROTECTED_ENTRIES: readonly (readonly string[])[] = [
  ...PROTECTED_NAMES.map((name) => [name]),
  ...PROTECTED_SEQUENCES,
];

/**
 * Spellings the tools that own these stores actually use, where they are not all lowercase; the
 * case-sensitive globs below name them too, so ripgrep does not even open those files.
 */
const USUAL_SPELLINGS: readonly (readonly string[])[] = [
  [".config", "BraveSoftware"],
  [".nuget", "NuGet", "NuGet.Config"],
  [".config", "NuGet", "NuGet.Config"],
  ["Library", "Keychains"],
  ["Library", "Application Support", "Google", "Chrome"],
  ["Library", "Application Support", "Firefox"],
  ["AppData", "Local", "Google", "Chrome", "User Data"],
];

// Inside ripgrep, protected entries are excluded by case-sensitive globs, one per entry. A
// slash-free glob (`!.ssh`, read as `**/.ssh`) is a set lookup; case-insensitive globs compiled
// into one regular expression that cost ripgrep 1.3-2 ms of start-up on every run (21-23 ms
// searches of the typescript package, bench/code-search), and the multi-component globs
// (`!**/.config/gh`) still cost about 0.3 ms. So those are passed only where such stores live:
// scans outside the project and scans that contain the user's home directory. Everywhere,
// `protectedDescendant` drops from ripgrep's output every path in a protected area, in any
// spelling, so what is excluded is exactly what `protectedReason` refuses; the globs only spare
// ripgrep reading what would be dropped.
const NAME_GLOBS: readonly string[] = PROTECTED_ENTRIES.filter((entry) => entry.length === 1).map(
  (entry) => `!${entry[0]}`,
);
const SEQUENCE_GLOBS: readonly string[] = [...PROTECTED_SEQUENCES, ...USUAL_SPELLINGS]
  .filter((sequence) => sequence.length > 1)
  .map((sequence) => `!**/${sequence.join("/")}`);

/** The user's home directory, canonical, as last resolved (it rarely changes; tests move it). */
let homeCache: { readonly from: string; readonly canonical: string | undefined } | undefined;
function canonicalHome(): string | undefined {
  const from = homedir();
  if (homeCache?.from !== from) {
    let canonical: string | undefined;
    try {
      canonical = realpathSync.native(from);
    } catch {
      canonical = undefined;
    }
    homeCache = { from, canonical };
  }
  return homeCache.canonical;
}

const containsPath = (ancestor: string, path: string) =>
  path === ancestor || path.startsWith(ancestor.endsWith(sep) ? ancestor : `${ancestor}${sep}`);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
// Path separators as ripgrep prints them: "/" alone where a backslash can be part of a name.
const SEP = sep === "\\" ? "[\\\\/]" : "/";
const alternation = (entries: readonly (readonly string[])[]) =>
  entries.map((entry) => entry.map(escapeRegExp).join(SEP)).join("|");
/** A protected entry as whole components anywhere in a path, in any case. */
const PROTECTED_ANYWHERE = new RegExp(`(?:^|${SEP})(?:${alternation(PROTECTED_ENTRIES)})(?:${SEP}|$)`, "i");

/**
 * The rest of each protected sequence that `rgCwd` ends partway into: for a working directory
 * `~/.config`, `gh` (so `gh/hosts.yml`, printed relative to it, is `~/.config/gh/hosts.yml`).
 */
function sequenceRemainders(rgCwd: string): (readonly string[])[] {
  const parts = rgCwd
    .split(sep === "\\" ? /[\\/]/ : "/")
    .filter((part) => part !== "")
    .map((part) => part.toLowerCase());
  const remainders: (readonly string[])[] = [];
  for (const sequence of PROTECTED_SEQUENCES) {
    for (let k = 1; k < sequence.length; k++) {
      if (k > parts.length) break;
      const tail = parts.slice(parts.length - k);
      if (tail.every((part, i) => part === sequence[i])) remainders.push(sequence.slice(k));
    }
  }
  return remainders;
}

/**
 * Whether a path as ripgrep printed it (relative to `rgCwd`, or absolute) lies in a protected
 * area, in any letter case: the filter applied to ripgrep's output, so that a spelling the
 * case-sensitive globs let through never reaches a listing, a count or a result.
 */
export function protectedDescendant(
  target: Pick<RgTarget, "cwd" | "protectedAreas">,
): (name: string) => boolean {
  const rgCwd = target.cwd;
  const remainders = sequenceRemainders(rgCwd);
  const areas = target.protectedAreas ?? [];
  const inAnArea =
    areas.length === 0
      ? () => false
      : (name: string) => {
          const absolute = isAbsolute(name) ? name : join(rgCwd, name);
          return areas.some((area) => inArea(area, absolute));
        };
  if (remainders.length === 0) return (name) => PROTECTED_ANYWHERE.test(name) || inAnArea(name);
  // Anchored at ripgrep's working directory: only a relative name continues its path.
  const continued = new RegExp(`^(?:\\.${SEP})?(?:${alternation(remainders)})(?:${SEP}|$)`, "i");
  return (name) => PROTECTED_ANYWHERE.test(name) || continued.test(name) || inAnArea(name);
}

/** Kernel and device file systems: reading them can hang, leak secrets or never end. */
const SYSTEM_ROOTS = ["/proc", "/sys", "/dev"] as const;

/**
 * System credential files, readable when the server runs as root. A trailing `*` protects every
 * path that starts with the rest (`/etc/shadow*` is also its backup `/etc/shadow-`). macOS keeps
 * /etc under /private, where a canonical path points.
 */
const SYSTEM_SECRETS: readonly string[] = [
  "/etc/shadow*",
  "/etc/gshadow*",
  "/etc/sudoers*",
  "/etc/master.passwd",
  "/etc/spwd.db",
  "/etc/security/opasswd",
  "/etc/ssh/ssh_host_*",
  "/etc/ssl/private",
  "/etc/pki/tls/private",
  "/etc/letsencrypt",
  "/etc/krb5.keytab",
].flatMap((path) => [path, `/private${path}`]);

/** Absolute areas refused wherever a scan meets them: system roots and system secrets. */
const ABSOLUTE_AREAS: readonly string[] = [...SYSTEM_ROOTS, ...SYSTEM_SECRETS];

/** Whether `path` lies in `area` (a path, or a prefix ending in `*`). */
function inArea(area: string, path: string): boolean {
  return area.endsWith("*") ? path.startsWith(area.slice(0, -1)) : containsPath(area, path);
}

/** Whether `area` (see inArea) can have paths inside the tree at `root`. */
function areaUnder(root: string, area: string): boolean {
  const base = area.endsWith("*") ? dirname(area) : area;
  return containsPath(root, base) && base !== root;
}

/**
 * What a service adds to the fixed rules. Evident's own configuration and snapshot cache sit
 * where the environment says, and a remote caller is kept inside the project root.
 */
export interface PathRules {
  /** Absolute paths (files or directories) refused like credential stores, given and canonical. */
  readonly protectedPaths?: readonly string[];
  /**
   * Nothing outside the project root, by lexical or canonical path: explicit absolute or `..`
   * targets are path_not_allowed (callers over HTTP).
   */
  readonly confined?: boolean;
}

/** Where ripgrep runs and what it is told to search. */
export interface RgTarget {
  /** ripgrep's working directory; anchored globs (`/x`) are relative to it. */
  readonly cwd: string;
  /** The one search root as passed to ripgrep (relative to `cwd`, or absolute). */
  readonly root: string;
  /**
   * Exclusions that protect credential stores, .git internals and system areas. They come after
   * the user's globs because ripgrep lets a later glob win: a user glob cannot re-include them.
   * Case-sensitive and not exhaustive (see below): whoever reads ripgrep's output also
   * drops every path that `protectedDescendant` finds protected.
   */
  readonly protectedGlobs: readonly string[];
  /**
   * Absolute protected areas inside this scan (system secrets, evident's own files; see inArea):
   * `protectedDescendant` drops what ripgrep prints from them.
   */
  readonly protectedAreas?: readonly string[];
  /**
   * Ignore files are not read: the tree holds exactly the files meant to be searched (a change
   * scope's materialized content, see code/changes/).
   */
  readonly noIgnore?: boolean;
}

export interface SearchTarget {
  /** The path as requested, or "." for the project root. */
  readonly requested: string;
  /** Lexically resolved absolute path. */
  readonly absolute: string;
  readonly canonical: string;
  readonly isDirectory: boolean;
  /** The target lies inside cwd and is not cwd itself (a zero-result retry may widen it). */
  readonly isSubpath: boolean;
  readonly rg: RgTarget;
}

/**
 * Why a path is refused, or undefined when it is allowed. `extra`: the service's own protected
 * paths (PathRules.protectedPaths) or areas (RgTarget.protectedAreas).
 */
export function protectedReason(absolutePath: string, extra: readonly string[] = []): string | undefined {
  const normalized = resolve(absolutePath);
  for (const root of SYSTEM_ROOTS) {
    if (normalized === root || normalized.startsWith(`${root}/`)) return `${root} is a system area`;
  }
  for (const area of SYSTEM_SECRETS) {
    if (inArea(area, normalized)) return `${area.replace(/\*$/, "")} holds system credentials`;
  }
  for (const area of extra) {
    if (inArea(area, normalized)) return "it holds evident's own configuration, keys or cache";
  }
  const parts = normalized
    .split(sep)
    .filter((p) => p !== "")
    .map((p) => p.toLowerCase());
  for (const part of parts) {
    if ((PROTECTED_NAMES as readonly string[]).includes(part)) {
      return part === ".git" ? ".git internals are not searchable" : `${part} holds credentials`;
    }
  }
  for (const sequence of PROTECTED_SEQUENCES) {
    for (let i = 0; i + sequence.length <= parts.length; i++) {
      if (sequence.every((name, j) => parts[i + j] === name))
        return `${sequence.join("/")} holds credentials`;
    }
  }
  return undefined;
}

function refuse(requested: string, reason: string): EvidentError {
  return new EvidentError("path_not_allowed", `Path "${requested}" is not allowed: ${reason}.`, {
    details: { field: "path" },
  });
}

/**
 * Resolves the search root. Throws `path_not_allowed` for protected targets (and, when `rules`
 * confine the caller, for targets outside cwd) and `invalid_arguments` for a path that does not
 * exist.
 */
export async function resolveSearchTarget(
  cwd: string,
  path: string | undefined,
  rules: PathRules = {},
): Promise<SearchTarget> {
  const requested = path ?? ".";
  const extra = rules.protectedPaths ?? [];
  const allowed = allowedPath(cwd, requested, rules, (canonical) => {
    const info = statSync(canonical);
    // A FIFO, socket or device would hold ripgrep in its read (a FIFO with no writer: forever).
    if (!info.isDirectory() && !info.isFile()) {
      throw invalid("path", `"${requested}" is not a regular file or directory, so it cannot be searched.`);
    }
    return info.isDirectory();
  });
  const { absolute, canonical, checked: isDirectory } = allowed;
  const fromCwd = relative(cwd, absolute);
  const inside = fromCwd === "" || (!fromCwd.startsWith("..") && !isAbsolute(fromCwd));
  // ripgrep matches globs (the user's and the protective ones) relative to its working
  // directory. A root inside cwd runs from cwd, so globs read as project paths. Any other root
  // (outside cwd, or one that contains /proc through a symlink) runs from its own canonical
  // directory with its canonical absolute path, so user globs read relative to that root, the
  // printed paths are absolute, and for "/" an anchored `/proc` means /proc.
  const system = containsSystemRoot(canonical);
  const home = isDirectory ? canonical : dirname(canonical);
  // Absolute areas this scan could meet: those below its root, in their canonical spelling.
  const protectedAreas = isDirectory
    ? [...ABSOLUTE_AREAS, ...extra].filter((area) => areaUnder(canonical, area))
    : [];
  const spelledAreas = inSpellingOf(absolute, canonical, protectedAreas);
  const rg: RgTarget =
    inside && !system
      ? {
          cwd,
          root: fromCwd === "" ? "." : fromCwd,
          protectedGlobs: descendantExclusions(cwd, canonical, false, spelledAreas),
          protectedAreas: spelledAreas,
        }
      : {
          cwd: home,
          root: canonical,
          protectedGlobs: descendantExclusions(home, canonical, true, protectedAreas),
          protectedAreas,
        };
  return { requested, absolute, canonical, isDirectory, isSubpath: inside && fromCwd !== "", rg };
}

/**
 * Areas below the canonical root, spelled as ripgrep prints paths beneath the root as requested
 * (`spelled`): the root itself may be reached through a symlink, which ripgrep does not resolve.
 */
function inSpellingOf(spelled: string, canonical: string, areas: readonly string[]): readonly string[] {
  return spelled === canonical ? areas : areas.map((area) => join(spelled, relative(canonical, area)));
}

/**
 * A path an agent named, under the policy: refused when protected as written or as resolved, or
 * (for a confined caller) outside cwd; `invalid_arguments` when it does not exist. `check` sees
 * the resolved path before the resolved path's own protections do (a search root's file type).
 */
function allowedPath<T>(
  cwd: string,
  requested: string,
  rules: PathRules,
  check: (canonical: string) => T,
): { absolute: string; canonical: string; checked: T } {
  const absolute = resolve(cwd, requested);
  const extra = rules.protectedPaths ?? [];
  const lexical = protectedReason(absolute, extra);
  if (lexical !== undefined) throw refuse(requested, lexical);
  if (rules.confined === true && !containsPath(resolve(cwd), absolute)) throw outside(requested, cwd);
  let canonical: string;
  let checked: T;
  try {
    // Synchronous on purpose: one realpath and one stat on the calling thread cost microseconds,
    // two thread-pool round trips cost about a quarter of a millisecond on every search.
    // realpathSync.native is the same libc realpath the promise API calls, so ELOOP and the
    // canonical spelling are unchanged.
    canonical = realpathSync.native(absolute);
    checked = check(canonical);
  } catch (cause) {
    if (cause instanceof EvidentError) throw cause;
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw invalid("path", `"${requested}" does not exist (relative paths start at ${cwd}).`);
    }
    if (code === "ELOOP") throw refuse(requested, "it is a symbolic link loop");
    throw invalid("path", `"${requested}" cannot be read (${code ?? "error"}).`);
  }
  const resolvedReason = protectedReason(canonical, extra);
  if (resolvedReason !== undefined)
    throw refuse(requested, `it resolves to ${canonical}, and ${resolvedReason}`);
  if (rules.confined === true && !containsPath(canonicalOf(cwd), canonical)) {
    throw refuse(requested, `it resolves to ${canonical}, outside the project root ${cwd}`);
  }
  return { absolute, canonical, checked };
}

function outside(requested: string, cwd: string): EvidentError {
  return refuse(requested, `it is outside the project root ${cwd}, and this server searches only inside it`);
}

/** A path's canonical spelling, or the path itself when it cannot be resolved. */
function canonicalOf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

/**
 * Exclusions for protected areas below `canonicalRoot`, as case-sensitive ripgrep globs (see
 * NAME_GLOBS; `protectedDescendant` covers the rest). Names apply at any depth, and so do
 * multi-component stores on an `external` scan (outside the project) or one that contains the
 * home directory; the rest of a sequence that ripgrep's working directory ends partway into, and
 * the absolute `areas` the scan contains (system roots and secrets, evident's own files), are
 * anchored at that directory.
 */
export function descendantExclusions(
  rgCwd: string,
  canonicalRoot: string,
  external: boolean,
  areas: readonly string[] = ABSOLUTE_AREAS.filter((area) => areaUnder(canonicalRoot, area)),
): string[] {
  const globs = [...NAME_GLOBS];
  const home = canonicalHome();
  if (external || (home !== undefined && containsPath(canonicalRoot, home))) globs.push(...SEQUENCE_GLOBS);
  for (const remainder of sequenceRemainders(rgCwd)) globs.push(`!/${remainder.join("/")}`);
  for (const area of areas) {
    if (containsPath(rgCwd, area)) globs.push(`!/${relative(rgCwd, area)}`);
  }
  return globs;
}

function containsSystemRoot(canonicalRoot: string): boolean {
  return SYSTEM_ROOTS.some((root) => canonicalRoot === "/" || root.startsWith(`${canonicalRoot}/`));
}

/** A file an agent named for reading (an inspection target), after the path policy. */
export interface SourceFile {
  /** Canonical absolute path: what is read. */
  readonly absolute: string;
  /** The path as shown: relative to cwd when inside it, else absolute. */
  readonly display: string;
}

/**
 * Resolves a file to read. Throws `path_not_allowed` for protected paths (lexical and
 * canonical, as for a search root) and `invalid_arguments` for a path that does not exist or is
 * not a file.
 */
export function resolveSourceFile(cwd: string, path: string, rules: PathRules = {}): SourceFile {
  const { absolute, canonical } = allowedPath(cwd, path, rules, () => undefined);
  const fromCwd = relative(cwd, absolute);
  const inside = fromCwd !== "" && !fromCwd.startsWith("..") && !isAbsolute(fromCwd);
  return { absolute: canonical, display: inside ? fromCwd : absolute };
}
