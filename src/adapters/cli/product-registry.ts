/**
 * The registry the `evident` executable gives the CLI: the product's tools, built for the
 * surface a command serves. One function, so tests that run `runCli` in their own process wire
 * it exactly as the executable does.
 */
import type { Settings } from "../../config/settings.js";
import type { Logger } from "../../core/logger.js";
import { createProductRegistry } from "../../tools/product.js";
import type { RootSetting } from "../../tools/project-root.js";
import type { ToolRegistry } from "../../tools/registry.js";
import type { CliOptions } from "./cli.js";

export function productRegistryFor(cwd: string): CliOptions["createRegistry"] {
  return (
    logger: Logger,
    surface: "command" | "server" | "remote",
    root: RootSetting | undefined,
    settings: Settings,
  ): ToolRegistry =>
    createProductRegistry({
      cwd,
      settings,
      logger,
      surface: surface === "command" ? "cli" : surface === "remote" ? "http" : "mcp",
      // A tool command is one process per call: its cursors must outlive it (MCP keeps memory).
      snapshots: surface === "command" ? "persistent" : "memory",
      confined: surface === "remote",
      ...(root === undefined ? {} : { root }),
    });
}
