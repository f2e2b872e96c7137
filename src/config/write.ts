/**
 * The one write path of the private config file: every surface that saves a setting (the Pi
 * extension's key entry, `evident setup`) goes through here, so the file is always written the
 * same way: the rest of the file kept as it was, a private directory (0700) and file (0600),
 * and an atomic replace, so a reader never sees half a file and a failed write loses nothing.
 */
import { randomBytes } from "node:crypto";
import { chmod, link, lstat, mkdir, readFile, readlink, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { z } from "zod";
import { EvidentError } from "../core/errors.js";
import { CONFIG_LOCK_POLL_MS, CONFIG_LOCK_STALE_MS, CONFIG_LOCK_WAIT_MS } from "../core/limits.js";
import { type ConfigLocation, issueKey, issueMessage, jsonProblem, readConfigText } from "./load.js";
import { type KeyedAdapter, PROVIDER_ID_PATTERN } from "./schema.js";

type FileObject = Record<string, unknown>;

/**
 * Reads the file as a JSON object ({} when absent); anything else is refused, never overwritten.
 * Also the one reader of settings that only hosts use (the interface locale).
 */
export async function readConfigObject({
  path: filePath,
  document,
}: {
  readonly path: string;
  readonly document?: string;
}): Promise<{ path: string; file: FileObject }> {
  // EVIDENT_CONFIG holding the document is read as the file would be, and named instead of it.
  const path = document === undefined ? filePath : "EVIDENT_CONFIG";
  const read = document === undefined ? readConfigText(path) : { text: document };
  const what = document === undefined ? `The config file ${path}` : "EVIDENT_CONFIG";
  if ("absent" in read) return { path, file: {} };
  if ("problem" in read) {
    throw new EvidentError(
      "configuration_error",
      `${what} ${read.problem}; nothing was changed.`,
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
      `${what} is not valid JSON (${jsonProblem(thrown, read.text)}); fix or remove it (nothing was changed).`,
    );
  }
  if (typeof file !== "object" || file === null || Array.isArray(file)) {
    throw new EvidentError(
      "configuration_error",
      `${what} is not a JSON object; fix or remove it (nothing was changed).`,
    );
  }
  return { path, file: file as FileObject };
}

/** Nothing writes a file while EVIDENT_CONFIG holds the configuration: the file would not be read. */
export function refuseWhileInVariable(location: Pick<ConfigLocation, "path" | "document">): void {
  if (location.document === undefined) return;
  throw new EvidentError(
    "configuration_error",
    `EVIDENT_CONFIG holds the configuration itself, which evident cannot change; nothing was written. Change the variable's value, or unset it to write ${location.path}.`,
    { details: { key: "EVIDENT_CONFIG" } },
  );
}

/**
 * Reads the file, lets `change` make the next one, and writes it, holding the file's lock
 * throughout: two writers at once (two setups, setup and the Pi key entry) each see the other's
 * change instead of the last one silently dropping the first's.
 */
export async function updateConfigObject(
  { path, document }: ConfigLocation,
  change: (file: FileObject, path: string) => Promise<FileObject> | FileObject,
  schema?: z.ZodType,
): Promise<{ path: string }> {
  refuseWhileInVariable({ path, ...(document === undefined ? {} : { document }) });
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  } catch (thrown) {
    const code = (thrown as { code?: string }).code ?? "error";
    // Node answers EEXIST when a file stands where the directory (or one above it) should be.
    const problem =
      code === "EEXIST" || code === "ENOTDIR" ? "is not a directory" : `cannot be created (${code})`;
    throw new EvidentError(
      "configuration_error",
      `The config file's directory ${dirname(path)} ${problem}; nothing was written.`,
      { cause: thrown, details: { file: path } },
    );
  }
  const release = await lockConfig(path);
  try {
    await refuseSymlink(path);
    const { file } = await readConfigObject({ path });
    await writeConfigObject(path, await change(file, path), schema);
    return { path };
  } finally {
    await release();
  }
}

/**
 * The file is replaced by a rename, which would replace a symlink itself and leave the file it
 * points to (a dotfiles checkout, say) stale: refused instead, saying how to write the target.
 */
async function refuseSymlink(path: string): Promise<void> {
  const info = await lstat(path).catch(() => undefined);
  if (info?.isSymbolicLink() !== true) return;
  const target = await readlink(path).catch(() => "another file");
  throw new EvidentError(
    "configuration_error",
    `The config file ${path} is a symbolic link to ${target}; evident does not replace a link, so nothing was written. Edit that file, or set EVIDENT_CONFIG to its path.`,
    { details: { key: "EVIDENT_CONFIG", file: path } },
  );
}

/**
 * Takes `<path>.lock`, holding this process id; returns its release. The lock appears with the
 * pid already in it (a hard link to a file filled first, which fails if the lock exists), so a
 * lock that is empty or names no process was never a live writer's: a writer killed between
 * creating a lock and filling it (as an `open` then `write` could be) holds nobody off.
 */
async function lockConfig(path: string): Promise<() => Promise<void>> {
  const lock = `${path}.lock`;
  const filled = `${lock}.${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    await writeFile(filled, String(process.pid), { flag: "wx", mode: 0o600 });
  } catch (cause) {
    throw new EvidentError("configuration_error", `The config file's lock ${lock} cannot be created.`, {
      cause,
    });
  }
  try {
    const started = Date.now();
    for (;;) {
      try {
        await link(filled, lock);
        return () => rm(lock, { force: true });
      } catch (thrown) {
        if ((thrown as { code?: string }).code !== "EEXIST") {
          throw new EvidentError("configuration_error", `The config file's lock ${lock} cannot be created.`, {
            cause: thrown,
          });
        }
      }
      const holder = await lockHolder(lock);
      if (holder.stale) {
        await rm(lock, { force: true });
        continue;
      }
      if (Date.now() - started >= CONFIG_LOCK_WAIT_MS) {
        throw new EvidentError(
          "configuration_error",
          `Another process${holder.pid === undefined ? "" : ` (${holder.pid})`} is writing ${path} and held its lock for ${CONFIG_LOCK_WAIT_MS / 1000} s; nothing was written. Try again, or delete ${lock} if no evident setup is running.`,
          { details: { key: "EVIDENT_CONFIG", file: path } },
        );
      }
      await delay(CONFIG_LOCK_POLL_MS);
    }
  } finally {
    await rm(filled, { force: true });
  }
}

async function lockHolder(lock: string): Promise<{ stale: boolean; pid?: number }> {
  let text: string;
  try {
    text = await readFile(lock, "utf8");
  } catch {
    // Gone meanwhile (try again), or unreadable (wait as for a held lock): never removed unread.
    return { stale: false };
  }
  const pid = Number(text);
  // Every writer's lock holds its pid from the start: anything else is left over.
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return { stale: true };
  const info = await stat(lock).catch(() => undefined);
  if (info !== undefined && Date.now() - info.mtimeMs > CONFIG_LOCK_STALE_MS) return { stale: true };
  return { stale: false, pid };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (thrown) {
    return (thrown as { code?: string }).code === "EPERM";
  }
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
      `The configuration would be invalid at ${key}: ${issue === undefined ? "invalid" : issueMessage(issue)}; nothing was written to ${path}.`,
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
  at: ConfigLocation,
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
  return updateConfigObject(
    at,
    (file, path) => {
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
      return { ...file, providers: { ...providers, [id]: { ...(existing ?? { type }), apiKey: key } } };
    },
    schema,
  );
}
