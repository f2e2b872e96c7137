/**
 * Which directory code_search searches: the one place that decides it, for every surface.
 *
 * In order: the client's roots (an MCP client over stdio that offers them, its first `file://`
 * root), the surface's explicit setting (`--root DIR` of `evident mcp` and the tool commands, the
 * SDK's or the HTTP handler's `cwd` option), else `EVIDENT_ROOT`, else the working directory (the
 * shell's, the server's, the program's, Pi's session's). Without a setting, no surface treats `/`
 * or the home directory itself as the project (clients launch servers in odd places, Claude
 * Desktop may start one in `/`, a shell may sit in `~`): code_search then fails with a
 * configuration_error that says how to set the root on that surface, instead of searching the
 * whole disk.
 */
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Settings } from "../config/settings.js";
import { EvidentError } from "../core/errors.js";
import { PROJECT_ROOT_LINE_MAX_BYTES } from "../core/limits.js";
import { phrasingFor, type Surface } from "../core/phrasing.js";

export type RootOrigin = "client roots" | "--root" | "EVIDENT_ROOT" | "working directory" | "host";

export interface ProjectRoot {
  /** Absolute path of the directory searched. */
  readonly path: string;
  readonly origin: RootOrigin;
}

/** A resolved root, or why there is none (reported by every code_search call). */
export type RootSetting = ProjectRoot | { readonly error: EvidentError };

export interface RootOptions {
  /** Who asks: the refusal's advice is worded for it. */
  readonly surface: Surface;
  /**
   * The surface's explicit setting, which may name any directory: `--root DIR` as typed, or a
   * host's `cwd` option ("host": the SDK, the HTTP handler).
   */
  readonly explicit?: { readonly value: string | undefined; readonly origin: "--root" | "host" } | undefined;
  /** The operator's settings: EVIDENT_ROOT, as config/ read it. */
  readonly settings: Pick<Settings, "root">;
  /** The working directory: relative settings start here, and it is the root without one. */
  readonly cwd: string;
  /** The home directory (default: the OS's). */
  readonly home?: string;
}

/** The root of a surface, before any client roots. */
export function resolveProjectRoot(options: RootOptions): RootSetting {
  const phrasing = phrasingFor(options.surface);
  const explicit = nonEmpty(options.explicit?.value);
  if (explicit !== undefined) {
    return explicitRoot(explicit, options.explicit?.origin ?? "--root", options.cwd, phrasing.setRoot());
  }
  if (!options.settings.root.ok) return { error: options.settings.root.error };
  const fromEnv = options.settings.root.value;
  if (fromEnv !== undefined) return explicitRoot(fromEnv, "EVIDENT_ROOT", options.cwd, phrasing.setRoot());
  const cwd = resolve(options.cwd);
  const home = resolve(options.home ?? homedir());
  if (cwd === resolve("/") || cwd === home) {
    const what = cwd === home ? "the home directory" : "the filesystem root";
    return {
      error: new EvidentError("configuration_error", phrasing.rootRefused(what, cwd), {
        details: { key: "root" },
      }),
    };
  }
  return { path: cwd, origin: "working directory" };
}

function explicitRoot(
  value: string,
  origin: "--root" | "host" | "EVIDENT_ROOT",
  cwd: string,
  howToSet: string,
): RootSetting {
  const path = isAbsolute(value) ? resolve(value) : resolve(cwd, value);
  const info = statSync(path, { throwIfNoEntry: false });
  if (info?.isDirectory() !== true) {
    const named = origin === "host" ? "The cwd option" : origin;
    return {
      error: new EvidentError(
        "configuration_error",
        `${named} names ${path}, which is not a directory. ${howToSet}`,
        { details: { key: origin === "host" ? "cwd" : origin } },
      ),
    };
  }
  return { path, origin };
}

/** The directories of an MCP client's roots, in its order; non-file URIs are skipped. */
export function rootsFromUris(uris: readonly string[]): string[] {
  const paths: string[] = [];
  for (const uri of uris) {
    if (!uri.startsWith("file:")) continue;
    try {
      paths.push(fileURLToPath(uri));
    } catch {
      // Not a local path (a remote host in the URI): nothing here can search it.
    }
  }
  return paths;
}

/** The root one call searches: the client's first root, else the surface's setting. */
export function rootForCall(setting: RootSetting, clientRoots: readonly string[] | undefined): ProjectRoot {
  const first = clientRoots?.[0];
  if (first !== undefined) return { path: resolve(first), origin: "client roots" };
  if ("error" in setting) throw setting.error;
  return setting;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed.length === 0 ? undefined : trimmed;
}

/**
 * The line every code_search answer starts with. A root too long for its share of the answer's
 * budget keeps its start and end (the project's own name) around an ellipsis.
 */
export function projectRootLine(path: string): string {
  const line = `Project root: ${path}\n`;
  if (Buffer.byteLength(line) <= PROJECT_ROOT_LINE_MAX_BYTES) return line;
  // Code points, so a name is never cut inside a character; 4 bytes each at most.
  const points = [...path];
  const keep = Math.floor((PROJECT_ROOT_LINE_MAX_BYTES - 64) / 8);
  return `Project root: ${points.slice(0, keep).join("")}…${points.slice(-keep).join("")} (shortened; see projectRoot)\n`;
}
