/**
 * Finding an executable the way a shell would, in the PATH of the environment a service was
 * given (not necessarily this process's own), without running anything, and never in the
 * working directory (a relative PATH entry).
 */
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { delimiter, isAbsolute, join } from "node:path";

export async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * PATH without its relative entries. A relative entry (`./node_modules/.bin`, an empty one)
 * names the working directory, often an untrusted repository, so nothing is looked up there.
 */
export function absolutePath(path: string): string {
  return path
    .split(delimiter)
    .filter((dir) => dir !== "" && isAbsolute(dir))
    .join(delimiter);
}

/** The first `name` in `env.PATH` that is an executable file (absolute entries only). */
export async function findOnPath(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
): Promise<string | undefined> {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const candidate = join(dir, process.platform === "win32" ? `${name}.exe` : name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}
