/**
 * The Universal Ctags provider: symbol ranges for languages ast-grep does not parse here. ctags
 * is optional: it is looked up on the service's PATH once, must be Universal Ctags with JSON
 * output (`--list-features` says so; Exuberant Ctags has neither), and its absence is a status
 * callers report, never an error. It reads the file itself, so callers check that the file still
 * has the revision they read (see syntax/layer.ts). ctags writes its tags to a temporary file
 * even when it prints them, and one that is stopped leaves it (tens of MB for a large file): each
 * run gets a TMPDIR of its own, removed once ctags has exited.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findOnPath } from "../../core/executables.js";
import { runOwnedProcess } from "../process/owned-process.js";
import { LineSplitter } from "../rg/events.js";
import { qualify, type SymbolRange } from "./symbols.js";

/** ctags kinds that are whole symbols (not fields, variables, parameters or enumerators). */
const SYMBOL_KINDS: ReadonlySet<string> = new Set([
  "function",
  "method",
  "singletonMethod",
  "subroutine",
  "procedure",
  "class",
  "struct",
  "interface",
  "enum",
  "union",
  "record",
  "object",
  "module",
  "namespace",
  "package",
  "trait",
  "implementation",
  "impl",
  "type",
  "typedef",
  "constructor",
]);

export type CtagsProbe = { readonly path: string } | { readonly missing: string };

/** Finds a Universal Ctags with JSON output on `env.PATH`. */
export async function probeCtags(
  env: Readonly<Record<string, string | undefined>>,
  signal?: AbortSignal,
): Promise<CtagsProbe> {
  const path = await findOnPath(env, "ctags");
  if (path === undefined) return { missing: "Universal Ctags is not installed (no ctags on PATH)" };
  let features: string;
  try {
    const outcome = await ctagsOutput(path, ["--list-features"], env, signal);
    if (outcome.exitCode !== 0) return { missing: `${path} is not Universal Ctags` };
    features = outcome.text;
  } catch (error) {
    if (signal?.aborted) throw error;
    return { missing: `${path} could not be run` };
  }
  if (!/^json\b/m.test(features)) return { missing: `${path} was built without JSON output` };
  return { path };
}

export type CtagsOutcome =
  | { readonly status: "ok"; readonly symbols: readonly SymbolRange[] }
  | { readonly status: "no_provider"; readonly reason: string }
  | { readonly status: "parse_error"; readonly reason: string };

/** The symbols ctags finds in one file (an absolute path, so it never reads as an option). */
export async function ctagsSymbols(
  ctags: string,
  absolutePath: string,
  environment: Readonly<Record<string, string | undefined>>,
  signal?: AbortSignal,
): Promise<CtagsOutcome> {
  const tags: Parameters<typeof qualify>[0][number][] = [];
  let tagsSeen = 0;
  const outcome = await withPrivateTmp(environment, (env) =>
    runOwnedProcess(
      {
        command: ctags,
        args: [
          "--output-format=json",
          "--fields=+neKZl",
          "--extras=-F",
          "--sort=no",
          "-f",
          "-",
          absolutePath,
        ],
        cwd: "/",
        env,
        ...(signal === undefined ? {} : { signal }),
      },
      async (stdout) => {
        const splitter = new LineSplitter();
        const onLine = (line: Buffer) => {
          let tag: {
            _type?: string;
            name?: string;
            line?: number;
            end?: number;
            kind?: string;
            language?: string;
            scope?: string;
          };
          try {
            tag = JSON.parse(line.toString("utf8"));
          } catch {
            return;
          }
          if (tag._type !== "tag") return;
          tagsSeen++;
          if (
            typeof tag.name !== "string" ||
            typeof tag.line !== "number" ||
            typeof tag.end !== "number" ||
            tag.end < tag.line ||
            !SYMBOL_KINDS.has(tag.kind ?? "")
          )
            return;
          tags.push({
            name: tag.name,
            kind: tag.kind as string,
            startLine: tag.line,
            endLine: tag.end,
            hasSyntaxError: false,
            ...(typeof tag.scope === "string" ? { scope: tag.scope } : {}),
          });
        };
        for await (const chunk of stdout) splitter.push(chunk as Buffer, onLine);
        splitter.end(onLine);
        return "done";
      },
    ),
  );
  if (outcome.exitCode !== 0)
    return { status: "parse_error", reason: `ctags failed: ${outcome.stderr.trim().split("\n")[0] ?? ""}` };
  if (tagsSeen === 0 && !(await knowsLanguage(ctags, absolutePath, environment, signal)))
    return { status: "no_provider", reason: "Universal Ctags has no parser for this file's language" };
  return { status: "ok", symbols: qualify(tags) };
}

async function knowsLanguage(
  ctags: string,
  absolutePath: string,
  env: Readonly<Record<string, string | undefined>>,
  signal?: AbortSignal,
): Promise<boolean> {
  const { text } = await ctagsOutput(ctags, ["--print-language", absolutePath], env, signal);
  return !/:\s*NONE\s*$/.test(text.trim());
}

/** Runs ctags to its end for what it prints (a probe, a language's name). */
async function ctagsOutput(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  signal: AbortSignal | undefined,
): Promise<{ readonly exitCode: number | null; readonly text: string }> {
  const chunks: Buffer[] = [];
  const outcome = await runOwnedProcess(
    { command, args, cwd: "/", env, ...(signal === undefined ? {} : { signal }) },
    async (stdout) => {
      for await (const chunk of stdout) chunks.push(chunk as Buffer);
      return "done";
    },
  );
  return { exitCode: outcome.exitCode, text: Buffer.concat(chunks).toString("utf8") };
}

/**
 * Runs `run` in `environment` with a TMPDIR of its own, removed after it (every way out of an
 * owned process waits for its exit).
 */
async function withPrivateTmp<T>(
  environment: Readonly<Record<string, string | undefined>>,
  run: (env: NodeJS.ProcessEnv) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "evident-ctags-"));
  try {
    return await run({ ...environment, TMPDIR: dir });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
