/**
 * Static module resolution for import navigation: which file of the tree a specifier names,
 * without running anything. Resolved:
 *   - relative specifiers (`./x`, `../y/z.js`): the file as written, TypeScript's mapping of a
 *     `.js`/`.jsx`/`.mjs`/`.cjs` specifier to its source, the usual extensions, a directory's
 *     `package.json` entry or `index` file;
 *   - package-local specifiers: `#name` subpath imports of the nearest `package.json`, the
 *     package's own name (self-reference), and a package linked into `node_modules` from inside
 *     the navigation root (a workspace).
 * Everything else (a dependency, a Node built-in, an alias only a bundler knows) is unresolved,
 * and said to be.
 */
import { lstatSync, realpathSync, statSync } from "node:fs";
import { dirname, extname, join, resolve, sep } from "node:path";
import { throwIfAborted } from "../../core/abort.js";
import { readRegularFileSync } from "../../core/bounded-read.js";
import { canonicalPath } from "../../core/canonical-path.js";
import { MANIFEST_MAX_BYTES, MANIFEST_TARGET_DEPTH, NAVIGATION_RESOLVE_TURN } from "../../core/limits.js";

/** Extensions tried after the specifier as written, in order. */
const EXTENSIONS = [".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".json"];
/** A compiled extension in a specifier and the source extensions TypeScript maps it to. */
const SOURCE_OF: Readonly<Record<string, readonly string[]>> = {
  ".js": [".ts", ".tsx"],
  ".jsx": [".tsx"],
  ".mjs": [".mts"],
  ".cjs": [".cts"],
};
/** Export conditions taken, in order of preference. */
const CONDITIONS = ["source", "import", "module", "default", "require", "node", "types"];

export type Resolution =
  | { readonly kind: "file"; readonly path: string; readonly via: "relative" | "package-local" }
  | { readonly kind: "unresolved"; readonly why: string };

/**
 * Resolves the specifiers of one file, a turn of the event loop every NAVIGATION_RESOLVE_TURN
 * (each resolution asks the file system synchronously, and a file may hold hundreds of thousands
 * of imports; bench/web-read/RESULTS.md), stopping at the first turn after `signal` aborts. `take` sees
 * each resolution in order and returns true to stop early.
 */
export async function resolveInTurns<T extends { readonly specifier: string }>(
  specifiers: readonly T[],
  from: string,
  root: string,
  signal: AbortSignal,
  take: (item: T, resolved: Resolution) => boolean | undefined,
  manifests: Manifests = new Manifests(),
): Promise<void> {
  const seen = new Map<string, Resolution>();
  for (let i = 0; i < specifiers.length; i++) {
    if (i > 0 && i % NAVIGATION_RESOLVE_TURN === 0) {
      await new Promise((next) => setImmediate(next));
      throwIfAborted(signal);
    }
    const item = specifiers[i] as T;
    let resolved = seen.get(item.specifier);
    if (resolved === undefined) {
      resolved = resolveSpecifier(item.specifier, from, root, manifests);
      seen.set(item.specifier, resolved);
    }
    if (take(item, resolved) === true) return;
  }
}

/**
 * Resolves `specifier` imported by the file `from` (absolute). Only files inside `root` count:
 * a specifier that leads outside it is unresolved.
 */
export function resolveSpecifier(
  specifier: string,
  from: string,
  root: string,
  manifests: Manifests = new Manifests(),
): Resolution {
  const inside = (path: string) =>
    path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
  const found = (path: string | undefined, via: "relative" | "package-local"): Resolution => {
    if (path === undefined) return { kind: "unresolved", why: "no such file" };
    // Canonical, so a file reached through a link compares equal to itself.
    const real = canonicalPath(path);
    return inside(real)
      ? { kind: "file", path: real, via }
      : { kind: "unresolved", why: "outside the navigation root" };
  };
  if (specifier.startsWith("./") || specifier.startsWith("../") || specifier === "." || specifier === "..") {
    return found(asFile(resolve(dirname(from), specifier), manifests), "relative");
  }
  if (specifier.startsWith("/")) return { kind: "unresolved", why: "an absolute path" };
  const manifest = nearestManifest(dirname(from), root, manifests);
  if (specifier.startsWith("#")) {
    const target = manifest === undefined ? undefined : mapped(manifest.json.imports, specifier);
    if (target === undefined) return { kind: "unresolved", why: "not in the package's imports" };
    return found(asFile(resolve(manifest?.dir ?? "", target), manifests), "package-local");
  }
  const { name, subpath } = splitPackage(specifier);
  if (name === undefined) return { kind: "unresolved", why: "not a package name" };
  if (manifest !== undefined && manifest.json.name === name) {
    return found(packageEntry(manifest.dir, manifest.json, subpath, manifests), "package-local");
  }
  // A workspace package: linked into node_modules from inside the root.
  for (let dir = dirname(from); inside(dir); dir = dirname(dir)) {
    const link = join(dir, "node_modules", name);
    let real: string | undefined;
    try {
      if (lstatSync(link).isSymbolicLink()) real = realpathSync.native(link);
    } catch {
      real = undefined;
    }
    if (real !== undefined && inside(real)) {
      const json = manifests.read(real);
      return found(packageEntry(real, json ?? {}, subpath, manifests), "package-local");
    }
    if (dir === root || dirname(dir) === dir) break;
  }
  return {
    kind: "unresolved",
    why: "a package name not followed (a dependency, a built-in, or an alias such as tsconfig paths)",
  };
}

/** The specifier's file: as written, mapped to source, with an extension, or a directory's entry. */
function asFile(path: string, manifests: Manifests, followMain = true): string | undefined {
  if (isFile(path)) return path;
  const ext = extname(path);
  for (const source of SOURCE_OF[ext] ?? []) {
    const mappedPath = `${path.slice(0, -ext.length)}${source}`;
    if (isFile(mappedPath)) return mappedPath;
  }
  for (const extension of EXTENSIONS) if (isFile(`${path}${extension}`)) return `${path}${extension}`;
  if (isDirectory(path)) {
    const json = followMain ? manifests.read(path) : undefined;
    const entry = json === undefined ? undefined : mainOf(json);
    if (entry !== undefined) {
      // Once, as Node does: a main naming a directory takes its index, not its own main (a
      // main naming its own directory, or a cycle of them, would recurse without end).
      const file = asFile(resolve(path, entry), manifests, false);
      if (file !== undefined) return file;
    }
    for (const extension of EXTENSIONS) {
      const index = join(path, `index${extension}`);
      if (isFile(index)) return index;
    }
  }
  return undefined;
}

interface Manifest {
  readonly name?: unknown;
  readonly main?: unknown;
  readonly module?: unknown;
  readonly exports?: unknown;
  readonly imports?: unknown;
}

/**
 * The `package.json` of each directory, read once per navigation call: a file of many imports
 * asks for the same manifests again and again, and each read is synchronous.
 */
export class Manifests {
  readonly #read = new Map<string, Manifest | undefined>();

  read(dir: string): Manifest | undefined {
    if (this.#read.has(dir)) return this.#read.get(dir);
    const json = readManifest(join(dir, "package.json"));
    this.#read.set(dir, json);
    return json;
  }
}

/**
 * A regular file of at most MANIFEST_MAX_BYTES, parsed; anything else is no manifest. Opened
 * without blocking and checked before reading: a FIFO or a device in its place would otherwise
 * hold the event loop (the read is synchronous) until a writer came, or forever.
 */
function readManifest(path: string): Manifest | undefined {
  const read = readRegularFileSync(path, MANIFEST_MAX_BYTES);
  if (read.kind !== "bytes") return undefined;
  try {
    const json: unknown = JSON.parse(read.bytes.toString("utf8"));
    return typeof json === "object" && json !== null ? (json as Manifest) : undefined;
  } catch {
    return undefined;
  }
}

function nearestManifest(
  start: string,
  root: string,
  manifests: Manifests,
): { dir: string; json: Manifest } | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    const json = manifests.read(dir);
    if (json !== undefined) return { dir, json };
    if (dir === root || dirname(dir) === dir) return undefined;
  }
}

/** The file a package's subpath names: its `exports` if it has them, else the path itself. */
function packageEntry(
  dir: string,
  json: Manifest,
  subpath: string,
  manifests: Manifests,
): string | undefined {
  if (json.exports !== undefined) {
    const key = subpath === "" ? "." : `./${subpath}`;
    const exports =
      typeof json.exports === "string" || Array.isArray(json.exports) || !hasSubpathKeys(json.exports)
        ? { ".": json.exports }
        : json.exports;
    const target = mapped(exports, key);
    if (target !== undefined) return asFile(resolve(dir, target), manifests);
  }
  if (subpath !== "") return asFile(resolve(dir, subpath), manifests);
  const entry = mainOf(json);
  return asFile(resolve(dir, entry ?? "index"), manifests);
}

function hasSubpathKeys(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.keys(value).some((k) => k.startsWith("."));
}

function mainOf(json: Manifest): string | undefined {
  for (const field of [json.module, json.main]) if (typeof field === "string") return field;
  return undefined;
}

/** A key of an `exports` / `imports` map (with `*` patterns), taken to one target path. */
function mapped(map: unknown, key: string): string | undefined {
  if (typeof map !== "object" || map === null) return undefined;
  const entries = map as Record<string, unknown>;
  if (key in entries) return target(entries[key], "");
  for (const [pattern, value] of Object.entries(entries)) {
    const star = pattern.indexOf("*");
    if (star === -1) continue;
    const prefix = pattern.slice(0, star);
    const suffix = pattern.slice(star + 1);
    if (key.startsWith(prefix) && key.endsWith(suffix) && key.length >= prefix.length + suffix.length) {
      return target(value, key.slice(prefix.length, key.length - suffix.length));
    }
  }
  return undefined;
}

/**
 * A target: a string, the first usable of an array, or the preferred condition of an object.
 * Nested at most MANIFEST_TARGET_DEPTH deep: a manifest nesting deeper would exhaust the stack.
 */
function target(value: unknown, star: string, depth = 0): string | undefined {
  if (typeof value === "string") return value.replaceAll("*", star);
  if (depth >= MANIFEST_TARGET_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (const v of value) {
      const t = target(v, star, depth + 1);
      if (t !== undefined) return t;
    }
    return undefined;
  }
  if (typeof value === "object" && value !== null) {
    const conditions = value as Record<string, unknown>;
    for (const condition of CONDITIONS) {
      if (condition in conditions) {
        const t = target(conditions[condition], star, depth + 1);
        if (t !== undefined) return t;
      }
    }
  }
  return undefined;
}

function splitPackage(specifier: string): { name: string | undefined; subpath: string } {
  const parts = specifier.split("/");
  const scoped = specifier.startsWith("@");
  const nameParts = scoped ? parts.slice(0, 2) : parts.slice(0, 1);
  if (nameParts.some((p) => p === "") || (scoped && nameParts.length < 2) || specifier.includes(":")) {
    return { name: undefined, subpath: "" };
  }
  return { name: nameParts.join("/"), subpath: parts.slice(nameParts.length).join("/") };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
