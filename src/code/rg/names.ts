/**
 * File names from ripgrep (`--files`, or `--files-with-matches`), NUL-framed so names with line
 * breaks survive; names in protected areas and names that are not valid UTF-8 are dropped. A
 * rejected glob is `invalid_arguments`; exit 2 with names, or with errors about entries only
 * (a file removed while listed), means some entries could not be read, and the rest is the listing.
 */
import { EvidentError } from "../../core/errors.js";
import type { Slots } from "../../core/slots.js";
import { protectedDescendant, type RgTarget } from "../path-policy.js";
import { runOwnedProcess } from "../process/owned-process.js";
import { LineSplitter } from "./events.js";

export interface NamesOptions {
  readonly rgPath: string;
  /** ripgrep's whole environment: what the caller handed down (config/ settings' childEnvironment). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The whole argument list (its output must be NUL-separated names). */
  readonly args: readonly string[];
  readonly target: RgTarget;
  readonly signal: AbortSignal;
  readonly onSpawn?: ((pid: number) => void) | undefined;
  readonly slots?: Slots | undefined;
}

export async function listNames(options: NamesOptions): Promise<string[]> {
  const names: string[] = [];
  const isProtected = protectedDescendant(options.target);
  const outcome = await runOwnedProcess(
    {
      command: options.rgPath,
      args: options.args,
      cwd: options.target.cwd,
      env: options.env,
      signal: options.signal,
      ...(options.slots === undefined ? {} : { slots: options.slots }),
      ...(options.onSpawn === undefined ? {} : { onSpawn: options.onSpawn }),
    },
    async (stdout) => {
      const splitter = new LineSplitter(0);
      const onName = (raw: Buffer) => {
        const name = raw.toString("utf8");
        if (!name.includes("\uFFFD") && !isProtected(name)) names.push(name);
      };
      for await (const chunk of stdout) splitter.push(chunk as Buffer, onName);
      splitter.end(onName);
      return "done";
    },
  );
  // Exit 2 also when every error was about an entry (one removed while listed, one unreadable):
  // then the names are the listing, even none. Anything else is ripgrep refusing the request.
  const entryErrorsOnly =
    outcome.exitCode === 2 &&
    outcome.stderr
      .split("\n")
      .filter((line) => line.trim() !== "")
      .every((line) => /\(os error \d+\)\s*$/.test(line));
  if (
    outcome.exitCode !== 0 &&
    outcome.exitCode !== 1 &&
    !(outcome.exitCode === 2 && (names.length > 0 || entryErrorsOnly))
  ) {
    const detail = outcome.stderr.replace(/^rg: /gm, "").trim().split("\n")[0] ?? "";
    if (/glob/i.test(detail)) {
      throw new EvidentError(
        "invalid_arguments",
        `Invalid arguments: glob: ripgrep rejected a glob: ${detail}`,
        {
          details: { field: "glob" },
        },
      );
    }
    throw new EvidentError(
      "internal_error",
      `ripgrep failed listing files (exit ${outcome.exitCode}): ${detail}`,
    );
  }
  return names;
}
