/**
 * The product's tools: only real tools are registered here, never placeholders. Every surface
 * (CLI, MCP stdio, MCP HTTP, SDK) builds its registry with this one function, so they list the
 * same tools in the same order, and count their calls in one `Metrics` (the registry's).
 */
import { Metrics } from "../core/metrics.js";
import { phrasingFor } from "../core/phrasing.js";
import { createCodeSearchTool } from "./code-search.js";
import { keptPoolFor } from "./kept-pool.js";
import { ToolRegistry } from "./registry.js";
import type { ToolEnvironment } from "./tool.js";
import { createWebReadTool } from "./web-read.js";
import { createWebSearchTool } from "./web-search.js";

export const PRODUCT_TOOL_NAMES = ["web_search", "web_read", "code_search"] as const;

export function createProductRegistry(environment: ToolEnvironment): ToolRegistry {
  const metrics = environment.metrics ?? new Metrics();
  // One object for every tool: they share its kept-data pool (keptPoolFor) and its metrics.
  const env: ToolEnvironment = environment.metrics === undefined ? { ...environment, metrics } : environment;
  countKept(env, metrics);
  return new ToolRegistry(phrasingFor(env.surface ?? "mcp"), metrics)
    .register(createWebSearchTool(env))
    .register(createWebReadTool(env))
    .register(createCodeSearchTool(env));
}

/**
 * Kept bytes and evictions of the memory pool, which surfaces that outlive a call use. A shared
 * (Redis) store or the CLI's files hold the data elsewhere: then these are not reported at all,
 * rather than reported as an empty pool.
 */
function countKept(env: ToolEnvironment, metrics: Metrics): void {
  const shared = env.settings.sharedStore;
  if ((env.snapshots ?? "memory") !== "memory" || !shared.ok || shared.value !== undefined) return;
  const pool = keptPoolFor(env);
  metrics.sampled(
    "evident_kept_bytes",
    "Bytes held now by the in-memory kept-data store (code_search results, long web_read pages).",
    "gauge",
    () => [{ value: pool.bytes }],
  );
  metrics.sampled(
    "evident_kept_evictions_total",
    "Kept entries evicted to stay within the byte bound (EVIDENT_KEPT_MAX_BYTES).",
    "counter",
    () => [{ value: pool.evictions }],
  );
}
