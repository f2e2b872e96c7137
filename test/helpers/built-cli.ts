/**
 * The built `evident` executable for tests that run it as users do (npm test builds first): its
 * path, and an environment that keeps its config and cache in a test's own directory.
 */
import { join, resolve } from "node:path";

/** The built executable. */
export const EVIDENT_CLI = resolve(import.meta.dirname, "../../dist/adapters/cli/main.js");

/**
 * The whole environment of an evident process living in `base`: its home, config and cache are
 * there, and nothing of the test process's is added but PATH.
 */
export function homeEnv(base: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: base,
    XDG_CONFIG_HOME: join(base, "config"),
    EVIDENT_CACHE_DIR: join(base, "cache"),
    ...extra,
  };
}
