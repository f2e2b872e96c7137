/**
 * Folders of installed or generated code, by the names package managers and build tools give
 * them. ripgrep searches such a folder whenever no ignore file leaves it out (a project without a
 * .gitignore, a folder outside Git), and evident keeps ripgrep's rules: it never leaves one out
 * itself. But when one holds most of a result, the agent is told which, and the exclude that
 * drops it, so that a search of the project's own code is one call away.
 */
import type { Phrasing } from "../../core/phrasing.js";

/**
 * Install directories of package managers, virtual environments and the output directories of
 * common build tools. Only a directory counts, at any depth; a file of the same name does not.
 */
export const VENDORED_FOLDER_NAMES: ReadonlySet<string> = new Set([
  // JavaScript and TypeScript
  "node_modules",
  "bower_components",
  "jspm_packages",
  ".pnpm-store",
  ".yarn",
  ".next",
  ".nuxt",
  ".svelte-kit",
  ".turbo",
  ".parcel-cache",
  // Python
  ".venv",
  "venv",
  "site-packages",
  "__pycache__",
  ".tox",
  ".mypy_cache",
  // Go, PHP, Ruby (vendor), C and C++ (third_party)
  "vendor",
  "third_party",
  "third-party",
  // Swift, Java, Elixir, Elm
  "Pods",
  ".gradle",
  "_build",
  "deps",
  "elm-stuff",
  // Build and coverage output
  "dist",
  "build",
  "out",
  "target",
  "coverage",
]);

/** A folder that holds most of a result, and the exclude list that would drop it. */
export interface VendoredFolder {
  /** The folder's name, as an exclude glob matches it at any depth. */
  readonly folder: string;
  /** Where it is (relative to the project root), when all of it is one directory. */
  readonly path?: string;
  /** Matching lines (or occurrences) in it, and in the whole result. */
  readonly matches: number;
  readonly total: number;
  /** The search's excludes with the folder's name added: what to pass to leave it out. */
  readonly exclude: readonly string[];
}

export interface VendoredScope {
  /** The path searched, as the result records it ("." for the project root). */
  readonly effectiveRoot: string;
  readonly globs: readonly string[];
  readonly excludes: readonly string[];
}

/**
 * The vendored folder holding more than half of `total`, or undefined. Nothing is said when the
 * search was aimed at such a folder (its path is inside one, or a glob names it): the agent asked.
 */
export function dominantVendoredFolder(
  files: Iterable<{ readonly path: string; readonly count: number }>,
  total: number,
  scope: VendoredScope,
): VendoredFolder | undefined {
  if (total === 0) return undefined;
  const root = scope.effectiveRoot.replace(/^\.\//, "").replace(/\/+$/, "");
  if (components(root).some((part) => VENDORED_FOLDER_NAMES.has(part))) return undefined;
  const counts = new Map<string, { matches: number; paths: Set<string> }>();
  for (const file of files) {
    const relative =
      root === "." || root === ""
        ? file.path
        : file.path.startsWith(`${root}/`)
          ? file.path.slice(root.length + 1)
          : file.path === root
            ? ""
            : file.path;
    const folders = components(relative).slice(0, -1);
    const prefix = file.path.slice(0, file.path.length - relative.length);
    const seen = new Set<string>();
    folders.forEach((name, i) => {
      if (!VENDORED_FOLDER_NAMES.has(name) || seen.has(name)) return;
      seen.add(name);
      const entry = counts.get(name) ?? { matches: 0, paths: new Set<string>() };
      entry.matches += file.count;
      entry.paths.add(`${prefix}${folders.slice(0, i + 1).join("/")}`);
      counts.set(name, entry);
    });
  }
  let best: [string, { matches: number; paths: Set<string> }] | undefined;
  for (const entry of counts) if (best === undefined || entry[1].matches > best[1].matches) best = entry;
  if (best === undefined || 2 * best[1].matches <= total) return undefined;
  const [folder, { matches, paths }] = best;
  if (scope.globs.some((glob) => components(glob.replace(/^!+/, "")).includes(folder))) return undefined;
  return {
    folder,
    ...(paths.size === 1 ? { path: [...paths][0] as string } : {}),
    matches,
    total,
    exclude: [...scope.excludes, folder],
  };
}

/** What the answer says about it, in the words and form of the other advice. */
export function vendoredNote(found: VendoredFolder, unit: string, phrasing: Phrasing): string {
  const where = found.path === undefined ? `folders named ${found.folder}` : `${found.path}/`;
  return (
    `Most ${unit} (${found.matches} of ${found.total}) are in ${where}, where installed or generated ` +
    `code usually lives; no ignore file left it out. To search without it, ${phrasing.again("code_search", { exclude: found.exclude })}.`
  );
}

/** The structured form of the same fact, for the answer's data. */
export function vendoredData(found: VendoredFolder | undefined): {
  vendoredFolder?: { folder: string; path?: string; matches: number; exclude: string[] };
} {
  if (found === undefined) return {};
  return {
    vendoredFolder: {
      folder: found.folder,
      ...(found.path === undefined ? {} : { path: found.path }),
      matches: found.matches,
      exclude: [...found.exclude],
    },
  };
}

function components(path: string): string[] {
  return path.split(/[\\/]+/).filter((part) => part !== "" && part !== ".");
}
