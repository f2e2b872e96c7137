/**
 * Which ripgrep binary runs. An explicit `EVIDENT_RG_PATH` wins and must work (a typo there is
 * the operator's mistake, not a reason to silently use another binary); otherwise the binary
 * shipped by `@vscode/ripgrep`'s platform package; otherwise `rg` on PATH.
 */
import { isAbsolute } from "node:path";
import { EvidentError } from "../../core/errors.js";
import { findOnPath, isExecutable } from "../../core/executables.js";

export interface RgResolution {
  readonly path: string;
  readonly source: "EVIDENT_RG_PATH" | "@vscode/ripgrep" | "PATH";
}

const FIX =
  "Install the optional dependency @vscode/ripgrep (npm install @vscode/ripgrep), install ripgrep so " +
  "that `rg` is on PATH, or set EVIDENT_RG_PATH to a ripgrep binary.";

/**
 * `explicit` is EVIDENT_RG_PATH as the operator set it; `env` is the environment whose PATH is
 * searched last.
 */
export async function resolveRgPath(
  explicit: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  loadBundled: () => Promise<string> = loadVscodeRipgrep,
): Promise<RgResolution> {
  if (explicit !== undefined && explicit !== "") {
    if (!isAbsolute(explicit) || !(await isExecutable(explicit))) {
      throw new EvidentError(
        "configuration_error",
        `EVIDENT_RG_PATH must be the absolute path of an executable ripgrep binary; "${explicit}" is not. ${FIX}`,
      );
    }
    return { path: explicit, source: "EVIDENT_RG_PATH" };
  }
  let bundledFailure: unknown;
  try {
    const bundled = await loadBundled();
    if (await isExecutable(bundled)) return { path: bundled, source: "@vscode/ripgrep" };
  } catch (cause) {
    // The platform package may be missing (another OS, or optional dependencies skipped).
    bundledFailure = cause;
  }
  const onPath = await findOnPath(env, "rg");
  if (onPath !== undefined) return { path: onPath, source: "PATH" };
  throw new EvidentError("configuration_error", `ripgrep was not found. ${FIX}`, {
    cause: bundledFailure,
  });
}

async function loadVscodeRipgrep(): Promise<string> {
  const module = (await import("@vscode/ripgrep")) as { rgPath: string };
  return module.rgPath;
}
