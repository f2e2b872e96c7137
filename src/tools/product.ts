/**
 * The product's tools: only real tools are registered here, never placeholders. Every surface
 * (CLI, MCP stdio, MCP HTTP, SDK) builds its registry with this one function, so they list the
 * same tools in the same order.
 */
import { phrasingFor } from "../core/phrasing.js";
import { createCodeSearchTool } from "./code-search.js";
import { ToolRegistry } from "./registry.js";
import type { ToolEnvironment } from "./tool.js";
import { createWebReadTool } from "./web-read.js";
import { createWebSearchTool } from "./web-search.js";

export const PRODUCT_TOOL_NAMES = ["web_search", "web_read", "code_search"] as const;

export function createProductRegistry(environment: ToolEnvironment): ToolRegistry {
  return new ToolRegistry(phrasingFor(environment.surface ?? "mcp"))
    .register(createWebSearchTool(environment))
    .register(createWebReadTool(environment))
    .register(createCodeSearchTool(environment));
}
