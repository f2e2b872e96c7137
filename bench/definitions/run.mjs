#!/usr/bin/env node
// The bytes of evident's tool definitions as a client receives them: the `tools/list` answer of
// `evident mcp` (built dist), without and with structured output, asked by the official MCP SDK
// client over stdio. The server runs in an empty temporary project with no config file and no
// provider keys (the keyless defaults), so the figures do not depend on who runs it or where.
// Usage: npm run build && node bench/definitions/run.mjs [--package DIR]
//   --package DIR: measure another checkout's build (for example a worktree of an older commit).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const flag = process.argv.indexOf("--package");
const root =
  flag === -1 ? fileURLToPath(new URL("../../", import.meta.url)) : resolve(process.argv[flag + 1]);
const cli = join(root, "dist/adapters/cli/main.js");
const bytes = (value) => Buffer.byteLength(JSON.stringify(value));

async function list(structured) {
  const home = mkdtempSync(join(tmpdir(), "evident-defs-"));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, "mcp", ...(structured ? ["--structured"] : [])],
    cwd: home,
    env: { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: join(home, "config") },
    stderr: "ignore",
  });
  const client = new Client({ name: "bench-definitions", version: "1" });
  try {
    await client.connect(transport);
    return await client.listTools();
  } finally {
    await client.close();
    rmSync(home, { recursive: true, force: true });
  }
}

const rows = [];
for (const structured of [false, true]) {
  const answer = await list(structured);
  rows.push(
    `\n${structured ? "With structured output (`evident mcp --structured`)" : "Without structured output (`evident mcp`)"}: **${bytes(answer)} bytes**\n`,
  );
  rows.push(
    "| tool | tool bytes | description chars | input schema bytes | input properties | output schema bytes |",
  );
  rows.push("| --- | ---: | ---: | ---: | ---: | ---: |");
  for (const tool of answer.tools) {
    const output = tool.outputSchema === undefined ? 0 : bytes(tool.outputSchema);
    const properties = Object.keys(tool.inputSchema.properties ?? {}).length;
    rows.push(
      `| ${tool.name} | ${bytes(tool)} | ${tool.description?.length ?? 0} | ${bytes(tool.inputSchema)} | ${properties} | ${output} |`,
    );
  }
}
console.log(`tools/list of ${root} (bytes of the JSON result, as sent):\n${rows.join("\n")}`);
