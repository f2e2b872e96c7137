/**
 * The load benchmark's baseline: a bare MCP server built with the official SDK, stateless
 * Streamable HTTP (`createMcpHandler` + `toNodeHandler`), with one tool that runs the same
 * ripgrep search as code_search (`rg --json` with the pattern, in the same directory) and
 * answers with the number of matching lines. No token, no limits, no snapshots: what any
 * server must at least do. Prints `READY <url>` on stdout; ends when stdin closes.
 *
 *   node --import tsx bench/load/bare-server.ts <directory>
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { rgPath } from "@vscode/ripgrep";
import { z } from "zod";

const directory = process.argv[2] ?? process.cwd();
const rg = process.env.EVIDENT_RG_PATH || rgPath;

function search(pattern: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(rg, ["--json", "--no-config", "--smart-case", "--", pattern, "."], {
      cwd: directory,
      stdio: ["ignore", "pipe", "ignore"],
    });
    let matches = 0;
    let rest = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) if (line.startsWith('{"type":"match"')) matches += 1;
    });
    child.once("error", reject);
    child.once("close", () => resolve(matches));
  });
}

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "bare", version: "1.0.0" });
  server.registerTool(
    "code_search",
    { description: "ripgrep, bare.", inputSchema: z.object({ pattern: z.string() }) },
    async ({ pattern }) => ({ content: [{ type: "text", text: `${await search(pattern)} matching lines` }] }),
  );
  return server;
});
const node = toNodeHandler(handler);
const server = createServer((req, res) => {
  void node(req, res);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
process.stdout.write(`READY http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp\n`);
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
