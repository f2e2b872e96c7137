/**
 * The one write path of the private config file: every surface that saves a setting (the Pi
 * extension's key entry, `evident setup`) goes through here, so the file is always written the
 * same way: the rest of the file kept as it was, a private directory (0700) and file (0600),
 * and an atomic replace, so a reader never sees half a file and a failed write loses nothing.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { z } from "zod";
import { EvidentError } from "../core/errors.js";
import { configPath, type Env, issueKey, jsonProblem, readConfigText } from "./load.js";
import { type HttpAdapter, PROVIDER_ID_PATTERN } from "./schema.js";

/** Adapters whose entry is a key away from working; the ones a key entry offers. */
export const KEYED_ADAPTERS = [
  "tavily",
  "brave",
  "exa",
  "serper",
  "jina",
  "firecrawl",
] as const satisfies readonly HttpAdapter[];
export type KeyedAdapter = (typeof KEYED_ADAPTERS)[number];

type FileObject = Record<string, unknown>;

/**
 * Reads the file as a JSON object ({} when absent); anything else is refused, never overwritten.
 * Also the one reader of settings that only hosts use (the interface locale).
 */
export async function readConfigObject(env: Env): Promise<{ path: string; file: FileObject }> {
  const { path } = configPath(env);
  const read = readConfigText(path);
  if ("absent" in read) return { path, file: {} };
  if ("problem" in read) {
    throw new EvidentError(
      "configuration_error",
      `The config file ${path} ${read.problem}; nothing was changed.`,
      read.cause === undefined ? {} : { cause: read.cause },
    );
  }
  let file: unknown;
  try {
    file = JSON.parse(read.text);
  } catch (thrown) {
    // No cause: the parser's own message quotes the file, saved keys included.
    throw new EvidentError(
      "configuration_error",
      `The config file ${path} is not valid JSON (${jsonProblem(thrown, read.text)}); fix or remove it (nothing was changed).`,
    );
  }
  if (typeof file !== "object" || file === null || Array.isArray(file)) {
    throw new EvidentError(
      "configuration_error",
      `The config file ${path} is not a JSON object; fix or remove it (nothing was changed).`,
    );
  }
  return { path, file: file as FileObject };
}

/**
 * Writes the whole file privately and atomically (a temporary file renamed over it), after
 * checking it against `schema`, the one the loader enforces: a file setup would write but the
 * server would refuse is never written.
 */
export async function writeConfigObject(path: string, file: FileObject, schema?: z.ZodType): Promise<void> {
  const checked = schema?.safeParse(file);
  if (checked !== undefined && !checked.success) {
    const issue = checked.error.issues[0];
    const key = issue === undefined ? "(file)" : issueKey(issue);
    throw new EvidentError(
      "configuration_error",
      `The configuration would be invalid at ${key}: ${issue?.message ?? "invalid"}; nothing was written to ${path}.`,
      { details: { key, file: path } },
    );
  }
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = join(dirname(path), `.config.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    // mode on create is masked by the umask; the file holds keys, so set it exactly.
    await chmod(temporary, 0o600);
    await rename(temporary, path);
  } catch (thrown) {
    await rm(temporary, { force: true });
    throw new EvidentError("configuration_error", `The config file ${path} could not be written.`, {
      cause: thrown,
    });
  }
}

/**
 * Saves one provider's API key under `providers.<id>`, keeping the entry's other settings and
 * everything else in the file. An entry of that id with another type is refused, not replaced.
 */
export async function saveProviderKey(
  env: Env,
  id: string,
  type: KeyedAdapter,
  apiKey: string,
  schema?: z.ZodType,
): Promise<{ path: string }> {
  if (!PROVIDER_ID_PATTERN.test(id)) {
    throw new EvidentError("invalid_arguments", `"${id}" is not a valid provider id.`);
  }
  const key = apiKey.trim();
  if (key.length === 0 || /\s/.test(key)) {
    throw new EvidentError("invalid_arguments", "An API key is one word without spaces; nothing was saved.");
  }
  const { path, file } = await readConfigObject(env);
  const providers = (file.providers ?? {}) as Record<string, FileObject>;
  if (typeof providers !== "object" || Array.isArray(providers)) {
    throw new EvidentError(
      "configuration_error",
      `providers in ${path} is not an object; nothing was saved.`,
    );
  }
  const existing = providers[id];
  if (existing !== undefined && existing.type !== type) {
    throw new EvidentError(
      "configuration_error",
      `providers.${id} in ${path} is of type ${String(existing.type)}, not ${type}; nothing was saved.`,
    );
  }
  const next = { ...file, providers: { ...providers, [id]: { ...(existing ?? { type }), apiKey: key } } };
  await writeConfigObject(path, next, schema);
  return { path };
}
