/**
 * The code_search tool definition. Registration stays cheap: only the schema (zod and limits)
 * loads here; the service, ripgrep resolution and snapshot store load on the first call, so an
 * MCP server answers `tools/list` without paying for them. `snapshots: "persistent"` in the
 * tool environment selects the file store (for the one-shot CLI) instead of the memory store.
 */

import { dirname, resolve } from "node:path";
import { invalid } from "../code/request.js";
import { type CodeSearchOutput, codeSearchInputSchema, codeSearchOutputSchema } from "../code/schema.js";
import type { CodeSearchService } from "../code/service.js";
import type { SnapshotStore, StoredResult } from "../code/snapshots/store.js";
import { cacheDirOf, settingValue } from "../config/settings.js";
import { canonicalPath } from "../core/canonical-path.js";
import { isEvidentError } from "../core/errors.js";
import type { MemoryKeptStore } from "../core/kept-memory.js";
import { CODE_SEARCH_ROOTS_KEPT, PROGRESS_AFTER_MS, PROGRESS_INTERVAL_MS } from "../core/limits.js";
import { type Phrasing, phrasingFor } from "../core/phrasing.js";
import { success, type ToolSuccess } from "../core/result.js";
import { Slots } from "../core/slots.js";
import { CODE_SEARCH_GUIDE } from "./code-search-guide.js";
import { keptPoolFor } from "./kept-pool.js";
import { type ProjectRoot, projectRootLine, type RootSetting, rootForCall } from "./project-root.js";
import { defineTool, type ToolContext, type ToolEnvironment } from "./tool.js";

/**
 * The same for every server and project, so clients can cache the tool list: the project root
 * searched is said by every answer (and the guide), not here.
 */
const DESCRIPTION = `Search the project's files with ripgrep for bounded, exact evidence: each matching line with its path, line and a stable index [n]; what is cut, partial or unverified is said.
- Search: pattern (regex; literal for exact text), narrowed by path, glob, exclude. Large results come as files ranked by matches, with a cursor.
- Page: cursor reads on without searching again (paths, mode).
- Inspect the whole function or class instead of reading files: cursor+inspect, path+line or path+symbol; several via matchIndices or targets; the rest via sourceCursor alone.
- Also: structure (ast-grep syntax pattern), anyOf (exact texts), changes (what Git changed), impact (a symbol's uses), navigate (imports, tests).
{"guide": true} returns the guide to every option, with defaults and limits.`;

/**
 * The guide's answer: the root a search would use (or why there is none, which the guide can
 * still be read without), then the guide. Given with any other field, refused: it is no search.
 */
function guideAnswer(
  rest: Record<string, unknown>,
  setting: RootSetting,
  clientRoots: readonly string[] | undefined,
  phrasing: Phrasing,
): ToolSuccess<CodeSearchOutput> {
  const [other] = Object.keys(rest).filter((field) => rest[field] !== undefined);
  if (other !== undefined) {
    throw invalid(
      other,
      `${phrasing.arg("code_search", "guide")} is read alone, without search fields: ${phrasing.call("code_search", { guide: true })}.`,
    );
  }
  let root: ProjectRoot | undefined;
  let line: string;
  try {
    root = rootForCall(setting, clientRoots);
    const named =
      root.origin === "host" || root.origin === "working directory" ? "" : ` (from ${root.origin})`;
    line = `${projectRootLine(root.path).trimEnd()}${named}\n`;
  } catch (error) {
    if (!isEvidentError(error)) throw error;
    line = `Project root: not set. ${error.message}\n`;
  }
  return success(`${line}${CODE_SEARCH_GUIDE}`, {
    status: "complete",
    view: "guide",
    guide: CODE_SEARCH_GUIDE,
    redacted: false,
    ...(root === undefined ? {} : { projectRoot: root.path }),
  });
}

/** The shared snapshot store the settings ask for, or undefined (configuration_error if it is wrong). */
async function sharedStore(env: ToolEnvironment) {
  const settings = settingValue(env.settings.sharedStore);
  if (settings === undefined) return undefined;
  const { redisSnapshots } = await import("../code/snapshots/backends.js");
  return redisSnapshots(settings, { maxBytes: settingValue(env.settings.keptMaxBytes), logger: env.logger });
}

/**
 * One root's snapshot store: the shared store (EVIDENT_SNAPSHOT_STORE) on every surface; else on
 * disk for one-shot surfaces, so the next process can continue a cursor; else the surface's one
 * memory store, so the roots served share its bound, each seeing its own.
 */
async function storeForRoot(
  env: ToolEnvironment,
  root: string,
  memory: () => Promise<MemoryKeptStore<StoredResult>>,
): Promise<SnapshotStore> {
  const { snapshotStore } = await import("../code/snapshots/store.js");
  const shared = await sharedStore(env);
  if (shared !== undefined) return snapshotStore(shared, root);
  if (env.snapshots === "persistent") {
    const { fileSnapshots } = await import("../code/snapshots/backends.js");
    // Per root: a relative EVIDENT_CACHE_DIR is relative to it.
    const dir = cacheDirOf(settingValue(env.settings.cache), root, "snapshots");
    return snapshotStore(fileSnapshots(dir, { maxBytes: settingValue(env.settings.keptMaxBytes) }), root);
  }
  return snapshotStore(await memory(), root);
}

/**
 * For servers at startup: refuses a wrong EVIDENT_SNAPSHOT_STORE or EVIDENT_CURSOR_KEY
 * (`configuration_error`) and an unreachable store (`store_unavailable`), so a replica that
 * could not share its cursors does not start serving.
 */
export async function checkSnapshotStore(env: ToolEnvironment): Promise<void> {
  const store = await sharedStore(env);
  if (store === undefined) return;
  try {
    await store.check();
  } finally {
    await store.close();
  }
}

/**
 * evident's own files, which code_search refuses like a credential store: the config file's
 * directory (saved keys) or the file EVIDENT_CONFIG names, and the cache directory that holds
 * snapshots, kept pages and their MAC keys, as spelled and canonical.
 */
function evidentsOwnPaths(env: ToolEnvironment, cwd: string): string[] {
  const config = env.settings.configFile;
  const paths = [
    config.explicit ? resolve(cwd, config.path) : dirname(config.path),
    // The parent of every kind's directory: EVIDENT_CACHE_DIR, or ~/.cache/evident.
    dirname(cacheDirOf(settingValue(env.settings.cache), cwd, "code")),
  ];
  return paths.flatMap((path) => {
    const canonical = canonicalPath(path);
    return canonical === path ? [path] : [path, canonical];
  });
}

interface KeptService {
  readonly service: Promise<CodeSearchService>;
  /** Calls using it now: a retired service closes once the last has ended. */
  inFlight: number;
  retired: boolean;
}

/**
 * One service per root searched: a surface has one, unless its client changes its roots; the
 * most recently used CODE_SEARCH_ROOTS_KEPT are kept, in use order (oldest first).
 */
class RootServices {
  readonly #services = new Map<string, KeptService>();
  readonly #closing = new Set<Promise<void>>();
  readonly #open: (root: ProjectRoot) => Promise<CodeSearchService>;

  constructor(open: (root: ProjectRoot) => Promise<CodeSearchService>) {
    this.#open = open;
  }

  /** The root's service, opened if needed, counted as in use until `release`. */
  async acquire(root: ProjectRoot): Promise<{ kept: KeptService; service: CodeSearchService }> {
    const kept = this.#load(root);
    kept.inFlight++;
    const service = await kept.service.catch((error: unknown) => {
      kept.inFlight--;
      // Not remembered: the next call tries again (and says again what is wrong).
      if (this.#services.get(root.path) === kept) this.#services.delete(root.path);
      throw error;
    });
    return { kept, service };
  }

  release(kept: KeptService): void {
    kept.inFlight--;
    if (kept.retired && kept.inFlight === 0) this.#close(kept);
  }

  async close(): Promise<void> {
    const all = [...this.#services.values()];
    this.#services.clear();
    for (const kept of all) this.#close(kept);
    while (this.#closing.size > 0) await Promise.all([...this.#closing]);
  }

  #load(root: ProjectRoot): KeptService {
    const known = this.#services.get(root.path);
    if (known !== undefined) {
      this.#services.delete(root.path);
      this.#services.set(root.path, known);
      return known;
    }
    const kept: KeptService = { service: this.#open(root), inFlight: 0, retired: false };
    this.#services.set(root.path, kept);
    for (const [path, old] of this.#services) {
      if (this.#services.size <= CODE_SEARCH_ROOTS_KEPT) break;
      this.#services.delete(path);
      old.retired = true;
      if (old.inFlight === 0) this.#close(old);
    }
    return kept;
  }

  #close(kept: KeptService): void {
    const done = kept.service.then(
      (service) => service.close(),
      () => {},
    );
    this.#closing.add(done);
    void done.finally(() => this.#closing.delete(done));
  }
}

/**
 * Opens the service of one root. The processes its searches run at once are bounded across
 * the surface's roots, and memory snapshots share one store's bounds.
 */
function serviceOpener(
  env: ToolEnvironment,
  phrasing: Phrasing,
): (root: ProjectRoot) => Promise<CodeSearchService> {
  let slots: Slots | undefined;
  let memory: MemoryKeptStore<StoredResult> | undefined;
  // One bound with web_read's pages: the surface's memory pool.
  const memoryStore = async () => {
    if (memory === undefined) {
      const { memoryKept } = await import("../code/snapshots/store.js");
      memory = memoryKept({ maxBytes: settingValue(env.settings.keptMaxBytes), pool: keptPoolFor(env) });
    }
    return memory;
  };
  return async (root) => {
    const { CodeSearchService } = await import("../code/service.js");
    const settings = settingValue(env.settings.code);
    slots ??= new Slots(settings.maxProcesses);
    const protectedPaths = evidentsOwnPaths(env, root.path);
    return new CodeSearchService({
      cwd: root.path,
      env: env.settings.childEnvironment,
      rgPath: env.settings.rgPath,
      settings,
      logger: env.logger,
      store: await storeForRoot(env, root.path, memoryStore),
      slots,
      pathRules: { protectedPaths, confined: env.confined === true },
      phrasing,
      oneShot: env.snapshots === "persistent",
    });
  };
}

/** Progress for searches that outlive PROGRESS_AFTER_MS (short ones stay silent), until `stop`. */
function progressReporter(progress: ToolContext["progress"]) {
  let matches = 0;
  let ticks = 0;
  let interval: NodeJS.Timeout | undefined;
  const start = setTimeout(() => {
    const report = () => {
      ticks++;
      progress({ progress: ticks, message: `searching: ${matches} matching lines so far` });
    };
    report();
    interval = setInterval(report, PROGRESS_INTERVAL_MS);
    interval.unref?.();
  }, PROGRESS_AFTER_MS);
  start.unref?.();
  return {
    onMatches: (count: number) => {
      matches = count;
    },
    stop: () => {
      clearTimeout(start);
      clearInterval(interval);
    },
  };
}

export function createCodeSearchTool(env: ToolEnvironment) {
  const phrasing = phrasingFor(env.surface ?? "mcp");
  const services = new RootServices(serviceOpener(env, phrasing));
  return defineTool({
    name: "code_search",
    title: "Code search",
    description: DESCRIPTION,
    inputSchema: codeSearchInputSchema,
    outputSchema: codeSearchOutputSchema,
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: async ({ guide, ...input }, context) => {
      const setting = env.root ?? { path: env.cwd, origin: "host" as const };
      const clientRoots = env.confined === true ? undefined : context.clientRoots;
      if (guide === true) return guideAnswer(input, setting, clientRoots, phrasing);
      // The search's deadline counts from here: loading a root's service is part of the call.
      const receivedAt = Date.now();
      // A remote caller cannot move the root: it searches only where the operator said.
      const root = rootForCall(setting, clientRoots);
      const { kept, service } = await services.acquire(root);
      const progress = progressReporter(context.progress);
      try {
        const result = await service.run(input, {
          caller: context.caller,
          signal: context.signal,
          receivedAt,
          contextUsage: context.contextUsage,
          onMatches: progress.onMatches,
        });
        return success(`${projectRootLine(root.path)}${result.text}`, {
          ...result.data,
          projectRoot: root.path,
        });
      } finally {
        progress.stop();
        services.release(kept);
      }
    },
    close: () => services.close(),
  });
}
