/**
 * One memory pool of kept data per tool environment: code_search's results and web_read's long
 * pages, kept in memory, hold one byte bound together (EVIDENT_KEPT_MAX_BYTES), as one surface.
 */
import { KeptPool } from "../core/kept-memory.js";
import type { ToolEnvironment } from "./tool.js";

const pools = new WeakMap<ToolEnvironment, KeptPool>();

export function keptPoolFor(env: ToolEnvironment): KeptPool {
  let pool = pools.get(env);
  if (pool === undefined) {
    pool = new KeptPool();
    pools.set(env, pool);
  }
  return pool;
}
