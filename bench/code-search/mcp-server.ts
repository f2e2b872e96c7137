/**
 * A stdio MCP server exposing only code_search, rooted at argv[2]: the benchmark's view of the
 * tool over the real MCP transport (the product entry point registers more tools).
 */
import { startStdioServer } from "../../src/adapters/mcp/stdio.js";
import { createStderrLogger } from "../../src/core/logger.js";
import { createCodeSearchTool } from "../../src/tools/code-search.js";
import { ToolRegistry } from "../../src/tools/registry.js";

const cwd = process.argv[2] ?? process.cwd();
const logger = createStderrLogger({ level: "warn" });
const registry = new ToolRegistry().register(createCodeSearchTool({ cwd, env: process.env, logger }));
const handle = startStdioServer({ registry, logger });
await handle.closed;
await registry.close();
