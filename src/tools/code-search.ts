/**
 * The code_search tool definition. Registration stays cheap: only the schema (zod and limits)
 * loads here; the service, ripgrep resolution and snapshot store load on the first call, so an
 * MCP server answers `tools/list` without paying for them. `snapshots: "persistent"` in the
 * environment selects the file store (for the one-shot CLI) instead of the memory store; the
 * memory store's long-lived surfaces also keep a ripgrep started for the next search.
 */

import { realpathSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { codeSearchInputSchema, codeSearchOutputSchema } from "../code/schema.js";
import type { CodeSearchService } from "../code/service.js";
import { codeSearchSettings } from "../code/settings.js";
import type { MemorySnapshotStore, SnapshotStore } from "../code/snapshots/store.js";
import { CODE_SEARCH_ROOTS_KEPT, PROGRESS_AFTER_MS, PROGRESS_INTERVAL_MS } from "../core/limits.js";
import { phrasingFor } from "../core/phrasing.js";
import { success } from "../core/result.js";
import { Slots } from "../core/slots.js";
import { type ProjectRoot, projectRootLine, rootForCall } from "./project-root.js";
import { defineTool, type ToolEnvironment } from "./tool.js";

const DESCRIPTION = `Search the project's files with ripgrep and get bounded, exact evidence: each matching line keeps its path, line, columns and a stable index [n]; nothing is dropped silently.

1. Search: "pattern" (Rust regex; literal=true for exact text), narrowed by "path", "glob", "exclude". Small results come whole; large ones as files ranked by matches, with a "cursor".
2. Page: {"cursor"} reads matching lines without searching again ("paths" for chosen files, "mode":"summary" for more files).
3. Inspect instead of reading files: {"path", "line"} of a shown match (or {"path", "symbol"}) returns the whole function, class or type there, with line numbers; with a cursor, {"cursor", "inspect": n}. Up to 5 via "targets" or "matchIndices". One 16 KiB budget; the rest via {"sourceCursor"}.
4. "structure" instead of "pattern" matches syntax (ast-grep, e.g. "console.log($A)") in JS/TS, Python, Go, Rust, Java, with each match's enclosing symbol.
5. "anyOf": 2-64 exact texts at once. "changes": "worktree"|"staged"|"A..B" keeps what Git changed. "impact":true + a symbol as in 3: its uses by syntax role, then tests. "navigate":"imports"|"tests"+"path".

Answers say what is partial, changed, unverified or not parsed; coverage of matches, syntax and retention is told apart. .git internals and credential stores are never searched. Every result starts with the project root it searched.`;

/** The description, naming the root when the surface fixed one (and client roots where they apply). */
function describe(env: ToolEnvironment): string {
  const root = env.root ?? { path: env.cwd, origin: "host" };
  if ("error" in root) return `${DESCRIPTION}\nProject root: not set (${root.error.message})`;
  const origin =
    root.origin === "host" || root.origin === "working directory" ? "" : ` (from ${root.origin})`;
  // Only a local MCP client's roots are followed (rootForCall); HTTP ignores a remote one's.
  const roots =
    (env.surface ?? "mcp") === "mcp" && env.confined !== true
      ? ", unless the client names its roots (MCP roots), whose first one is searched"
      : "";
  return `${DESCRIPTION}\nProject root: ${root.path}${origin}${roots}.`;
}

/** The shared snapshot store the environment asks for, or undefined (configuration_error if it is wrong). */
async function sharedStore(env: ToolEnvironment) {
  const { resolveRedisStoreSettings } = await import("../core/redis/settings.js");
  const settings = resolveRedisStoreSettings(env.env);
  if (settings === undefined) return undefined;
  const { RedisSnapshotStore } = await import("../code/snapshots/redis-store/store.js");
  return new RedisSnapshotStore({ settings, logger: env.logger });
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
async function evidentsOwnPaths(env: ToolEnvironment, cwd: string): Promise<string[]> {
  const { cacheDir } = await import("../core/private-dir.js");
  const { configPath } = await import("../config/load.js");
  const config = configPath(env.env);
  const paths = [
    config.explicit ? resolve(cwd, config.path) : dirname(config.path),
    // The parent of every kind's directory: EVIDENT_CACHE_DIR, or ~/.cache/evident.
    dirname(cacheDir(env.env, cwd, "code")),
  ];
  return paths.flatMap((path) => {
    try {
      const canonical = realpathSync.native(path);
      return canonical === path ? [path] : [path, canonical];
    } catch {
      return [path];
    }
  });
}

interface KeptService {
  readonly service: Promise<CodeSearchService>;
  /** Calls using it now: a retired service closes once the last has ended. */
  inFlight: number;
  retired: boolean;
}

export function createCodeSearchTool(env: ToolEnvironment) {
  // One service per root searched: a surface has one, unless its client changes its roots; the
  // most recently used CODE_SEARCH_ROOTS_KEPT are kept, in use order (oldest first).
  const services = new Map<string, KeptService>();
  const closing = new Set<Promise<void>>();
  // The surface's bound on the processes its searches run at once, whatever root they search.
  let slots: Slots | undefined;
  let memory: MemorySnapshotStore | undefined;
  const closeService = (kept: KeptService) => {
    const done = kept.service.then(
      (service) => service.close(),
      () => {},
    );
    closing.add(done);
    void done.finally(() => closing.delete(done));
  };
  const retireBeyondBound = () => {
    for (const [path, kept] of services) {
      if (services.size <= CODE_SEARCH_ROOTS_KEPT) break;
      services.delete(path);
      kept.retired = true;
      if (kept.inFlight === 0) closeService(kept);
    }
  };
  const load = (root: ProjectRoot): KeptService => {
    const known = services.get(root.path);
    if (known !== undefined) {
      services.delete(root.path);
      services.set(root.path, known);
      return known;
    }
    const service = (async () => {
      const { CodeSearchService } = await import("../code/service.js");
      slots ??= new Slots(codeSearchSettings(env.env).maxProcesses);
      // Per root: a relative EVIDENT_CACHE_DIR is relative to it, as for the file store.
      const protectedPaths = await evidentsOwnPaths(env, root.path);
      // A shared store (EVIDENT_SNAPSHOT_STORE) serves every surface; otherwise one-shot
      // surfaces keep snapshots on disk so the next process can continue a cursor.
      const shared = await sharedStore(env);
      let store: SnapshotStore;
      const { scopedStore } = await import("../code/snapshots/store.js");
      if (shared !== undefined) store = scopedStore(shared, root.path);
      else if (env.snapshots === "persistent") {
        const { FileSnapshotStore } = await import("../code/snapshots/file-store/store.js");
        const files = new FileSnapshotStore({ env: env.env, cwd: root.path, logger: env.logger });
        store = scopedStore(files, root.path);
      } else {
        // One memory store, so the roots served share its bounds; each service sees its own.
        memory ??= new (await import("../code/snapshots/store.js")).MemorySnapshotStore();
        store = memory.view(root.path);
      }
      return new CodeSearchService({
        cwd: root.path,
        env: env.env,
        logger: env.logger,
        store,
        slots,
        pathRules: { protectedPaths, confined: env.confined === true },
        phrasing: phrasingFor(env.surface ?? "mcp"),
        // A long-lived surface keeps the next search's ripgrep started; a one-shot run would not use it.
        ...(env.snapshots === "persistent" ? {} : { prestart: {} }),
      });
    })();
    const kept: KeptService = { service, inFlight: 0, retired: false };
    services.set(root.path, kept);
    retireBeyondBound();
    return kept;
  };
  return defineTool({
    name: "code_search",
    title: "Code search",
    description: describe(env),
    inputSchema: codeSearchInputSchema,
    outputSchema: codeSearchOutputSchema,
    annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: false },
    handler: async (input, context) => {
      // The search's deadline counts from here: loading a root's service is part of the call.
      const receivedAt = Date.now();
      // A remote caller cannot move the root: it searches only where the operator said.
      const root = rootForCall(
        env.root ?? { path: env.cwd, origin: "host" },
        env.confined === true ? undefined : context.clientRoots,
      );
      const kept = load(root);
      kept.inFlight++;
      const instance = await kept.service.catch((error: unknown) => {
        kept.inFlight--;
        // Not remembered: the next call tries again (and says again what is wrong).
        if (services.get(root.path) === kept) services.delete(root.path);
        throw error;
      });
      let matches = 0;
      let ticks = 0;
      let interval: NodeJS.Timeout | undefined;
      // Progress only for searches that outlive PROGRESS_AFTER_MS; short ones stay silent.
      const start = setTimeout(() => {
        const report = () => {
          ticks++;
          context.progress({ progress: ticks, message: `searching: ${matches} matching lines so far` });
        };
        report();
        interval = setInterval(report, PROGRESS_INTERVAL_MS);
        interval.unref?.();
      }, PROGRESS_AFTER_MS);
      start.unref?.();
      try {
        const result = await instance.run(input, {
          caller: context.caller,
          signal: context.signal,
          receivedAt,
          contextUsage: context.contextUsage,
          onMatches: (count) => {
            matches = count;
          },
        });
        return success(`${projectRootLine(root.path)}${result.text}`, {
          ...result.data,
          projectRoot: root.path,
        });
      } finally {
        clearTimeout(start);
        clearInterval(interval);
        kept.inFlight--;
        if (kept.retired && kept.inFlight === 0) closeService(kept);
      }
    },
    close: async () => {
      const all = [...services.values()];
      services.clear();
      for (const kept of all) closeService(kept);
      while (closing.size > 0) await Promise.all([...closing]);
    },
  });
}
