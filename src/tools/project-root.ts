/**
 * Which directory code_search searches: the one place that decides it, for every surface.
 *
 * In order: the client's roots (an MCP client that offers them, its first `file://` root), an
 * explicit setting (`--root DIR`, else `EVIDENT_ROOT`), else the working directory. Hosts that
 * state their directory themselves (Pi's session cwd, the SDK's `cwd`, a shell running
 * `evident grep`) pass it as the root. A server started without any of these refuses to treat
 * `/` or the home directory itself as the project (clients launch servers in odd places; Claude
 * Desktop may start one in `/`): code_search then fails with a configuration_error that says
 * how to set the root, instead of searching the whole disk.
 */
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { envValue } from "../core/env.js";
import { EvidentError } from "../core/errors.js";
import { PROJECT_ROOT_LINE_MAX_BYTES } from "../core/limits.js";

export type RootOrigin = "client roots" | "--root" | "EVIDENT_ROOT" | "working directory" | "host";

export interface ProjectRoot {
  /** Absolute path of the directory searched. */
  readonly path: string;
  readonly origin: RootOrigin;
}

/** A resolved root, or why there is none (reported by every code_search call). */
export type RootSetting = ProjectRoot | { readonly error: EvidentError };

export interface ServerRootOptions {
  /** `--root DIR` as given on the command line. */
  readonly flag?: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** The home directory (default: the OS's). */
  readonly home?: string;
}

const HOW_TO_SET =
  "Set the project directory with `evident mcp --root DIR` or EVIDENT_ROOT=DIR, or use an MCP client that offers its roots.";

/** The root of a server surface (`evident mcp`, the HTTP handler), before any client roots. */
export function resolveServerRoot(options: ServerRootOptions): RootSetting {
  const flag = nonEmpty(options.flag);
  if (flag !== undefined) return explicitRoot(flag, "--root", options.cwd);
  let fromEnv: string | undefined;
  try {
    fromEnv = envValue(options.env, "EVIDENT_ROOT");
  } catch (blank) {
    return { error: blank as EvidentError };
  }
  if (fromEnv !== undefined) return explicitRoot(fromEnv, "EVIDENT_ROOT", options.cwd);
  const cwd = resolve(options.cwd);
  const home = resolve(options.home ?? homedir());
  if (cwd === resolve("/") || cwd === home) {
    const what = cwd === home ? "the home directory" : "the filesystem root";
    return {
      error: new EvidentError(
        "configuration_error",
        `code_search will not search ${what} (${cwd}) as the project: the server was started there without a project directory. ${HOW_TO_SET}`,
        { details: { key: "root" } },
      ),
    };
  }
  return { path: cwd, origin: "working directory" };
}

function explicitRoot(value: string, origin: "--root" | "EVIDENT_ROOT", cwd: string): RootSetting {
  const path = isAbsolute(value) ? resolve(value) : resolve(cwd, value);
  const info = statSync(path, { throwIfNoEntry: false });
  if (info?.isDirectory() !== true) {
    return {
      error: new EvidentError(
        "configuration_error",
        `${origin} names ${path}, which is not a directory. ${HOW_TO_SET}`,
        { details: { key: origin } },
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
