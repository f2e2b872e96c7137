/**
 * The product's tools: only real tools are registered here, never placeholders. Every surface
 * (CLI, MCP stdio, MCP HTTP, SDK, Pi) builds its registry with this one function.
 */
import { ToolRegistry } from "./registry.js";
import type { ToolEnvironment } from "./tool.js";

export function createProductRegistry(_environment: ToolEnvironment): ToolRegistry {
  return new ToolRegistry();
}
