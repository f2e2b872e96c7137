/**
 * The code_search tool definition. Registration stays cheap: only the schema (zod and limits)
 * loads here; the service, ripgrep resolution and snapshot store load on the first call, so an
 * MCP server answers `tools/list` without paying for them. `snapshots: "persistent"` in the
 * environment selects the file store (for the one-shot CLI) instead of the memory store; the
 * memory store's long-lived surfaces also keep a ripgrep started for the next search.
 */

import { codeSearchInputSchema, codeSearchOutputSchema } from "../code/schema.js";
import type { CodeSearchService } from "../code/service.js";
import { PROGRESS_AFTER_MS, PROGRESS_INTERVAL_MS } from "../core/limits.js";
import { success } from "../core/result.js";
import { type ProjectRoot, rootForCall } from "./project-root.js";
import { defineTool, type ToolEnvironment } from "./tool.js";

const DESCRIPTION = `Search the project's files with ripgrep and get bounded, exact evidence: every matching line keeps its path, line number, columns and a stable index [n], and nothing is silently dropped.

How to use it:
- Start with just "pattern" (a Rust regex; set literal=true for exact text such as code with brackets). Small results come back whole. Large ones come back as a summary: files ranked by number of matching lines, a few sample lines, and a "cursor".
- Continue with {"cursor": "..."} to read matching lines page by page without searching again. Add "paths": ["a.ts", "b.ts"] (up to 20, as listed in the summary) to read only those files; {"cursor": "...", "mode": "summary"} lists further files. A cursor fixes the search; "limit", "context" and "redact" apply per call, so repeat them on each page.
- Narrow a search with "path" (a file or directory; default the project root), "glob" (e.g. "*.ts" or ["src/**"]) and "exclude" (e.g. "dist"). If "path" has no match the project root is searched too, unless scope="strict".
- "mode": "matches" always returns matching lines (one page); "summary" always returns the ranked file list. "limit" sets matches per page and also returns lines directly. "context" adds up to 20 surrounding lines from the current file, only when it is unchanged since the search.
- ignoreCase omitted means smart case (case-sensitive only if the pattern has capitals). wholeWord matches whole words. Hidden files are searched (hidden=false to skip them); .git internals and credential stores never are.
- "anyOf": ["a", "b", ...] (2-64 exact texts) finds them all in one call, each occurrence attributed to its term.
- "changes": "worktree", "staged" or "BASE..TARGET" keeps only what Git shows changed (changed lines; changeScope="files" for whole files).
- The text says when a result is partial (too many matches to keep), when files changed during or after the search, and when the search moved from "path" to the project root. redact=true masks credential-like values in what is shown (the search itself is unchanged).
- Every result starts with the project root it searched.`;

/** The description, naming the root when the surface fixed one. */
function describe(env: ToolEnvironment): string {
  const root = env.root ?? { path: env.cwd, origin: "host" };
  if ("error" in root) return `${DESCRIPTION}\nProject root: not set (${root.error.message})`;
  const origin =
    root.origin === "host" || root.origin === "working directory" ? "" : ` (from ${root.origin})`;
  return `${DESCRIPTION}\nProject root: ${root.path}${origin}, unless the client names its roots (MCP roots), whose first one is searched.`;
}

/** The shared snapshot store the environment asks for, or undefined (configuration_error if it is wrong). */
async function sharedStore(env: ToolEnvironment) {
  const { resolveRedisStoreSettings } = await import("../code/snapshots/redis-store/settings.js");
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

export function createCodeSearchTool(env: ToolEnvironment) {
  // One service per root searched: a surface has one, unless its client changes its roots.
  const services = new Map<string, Promise<CodeSearchService>>();
  const load = (root: ProjectRoot) => {
    let service = services.get(root.path);
    if (service !== undefined) return service;
    service = (async () => {
      const { CodeSearchService } = await import("../code/service.js");
      // A shared store (EVIDENT_SNAPSHOT_STORE) serves every surface; otherwise one-shot
      // surfaces keep snapshots on disk so the next process can continue a cursor.
      const shared = await sharedStore(env);
      const store =
        shared ??
        (env.snapshots === "persistent"
          ? new (await import("../code/snapshots/file-store/store.js")).FileSnapshotStore({
              env: env.env,
              cwd: root.path,
              logger: env.logger,
            })
          : undefined);
      return new CodeSearchService({
        cwd: root.path,
        env: env.env,
        logger: env.logger,
        store,
        // A long-lived surface keeps the next search's ripgrep started; a one-shot run would not use it.
        ...(env.snapshots === "persistent" ? {} : { prestart: {} }),
      });
    })();
    services.set(root.path, service);
    return service;
  };
  return defineTool({
    name: "code_search",
    title: "Code search",
    description: describe(env),
    inputSchema: codeSearchInputSchema,
    outputSchema: codeSearchOutputSchema,
    annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: false },
    handler: async (input, context) => {
      const root = rootForCall(env.root ?? { path: env.cwd, origin: "host" }, context.clientRoots);
      const instance = await load(root).catch((error: unknown) => {
        // Not remembered: the next call tries again (and says again what is wrong).
        services.delete(root.path);
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
          contextUsage: context.contextUsage,
          onMatches: (count) => {
            matches = count;
          },
        });
        return success(`Project root: ${root.path}\n${result.text}`, {
          ...result.data,
          projectRoot: root.path,
        });
      } finally {
        clearTimeout(start);
        clearInterval(interval);
      }
    },
    close: async () => {
      const all = [...services.values()];
      services.clear();
      await Promise.all(all.map(async (service) => (await service.catch(() => undefined))?.close()));
    },
  });
}
