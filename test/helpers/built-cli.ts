/**
 * The built `evident` executable for tests that run it as users do (npm test builds first): its
 * path, an environment that keeps its config and cache in a test's own directory, and an MCP
 * client connected to `evident mcp` over stdio.
 */
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

/** The built executable. */
export const EVIDENT_CLI = resolve(import.meta.dirname, "../../dist/adapters/cli/main.js");

/**
 * The whole environment of an evident process living in `base`: its home, config and cache are
 * there, and nothing of the test process's is added but PATH.
 */
export function homeEnv(base: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: base,
    XDG_CONFIG_HOME: join(base, "config"),
    EVIDENT_CACHE_DIR: join(base, "cache"),
    ...extra,
  };
}

export interface StdioServer {
  /** `evident mcp` by default; other arguments, or another script, as the test needs. */
  readonly args?: readonly string[];
  readonly cwd?: string;
  readonly env?: Record<string, string>;
  readonly stderr?: "pipe" | "ignore" | "inherit";
  /** The client's name in `initialize`. */
  readonly name: string;
}

/** An MCP client connected over stdio to a process of the built executable. */
export async function connectStdio(
  server: StdioServer,
): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(server.args ?? [EVIDENT_CLI, "mcp"])],
    ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
    ...(server.env === undefined ? {} : { env: server.env }),
    ...(server.stderr === undefined ? {} : { stderr: server.stderr }),
  });
  const client = new Client({ name: server.name, version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

/** The text of a tool result's first content block ("" when there is none). */
export function firstText(result: { content?: unknown }): string {
  return (result.content as Array<{ text?: string }> | undefined)?.[0]?.text ?? "";
}
