/**
 * Where state kept for one-shot surfaces lives on disk: `EVIDENT_CACHE_DIR` when set (relative
 * to `cwd`), else `$XDG_CACHE_HOME/evident` (an absolute XDG_CACHE_HOME only), else
 * `~/.cache/evident`; each kind of state in its own subdirectory.
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

export function keptCacheDir(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  kind: string,
): string {
  const explicit = env.EVIDENT_CACHE_DIR?.trim();
  if (explicit) return join(resolve(cwd, explicit), kind);
  const xdg = env.XDG_CACHE_HOME?.trim();
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME?.trim() || homedir(), ".cache");
  return join(base, "evident", kind);
}
