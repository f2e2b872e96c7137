// The baseline: a bare MCP server built with the official SDK, one no-op tool, over stdio.
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

serveStdio(() => {
  const server = new McpServer({ name: "bare", version: "1.0.0" });
  server.registerTool(
    "noop",
    { description: "Does nothing.", inputSchema: z.object({ query: z.string() }) },
    async () => ({ content: [{ type: "text", text: "ok" }] }),
  );
  return server;
});
