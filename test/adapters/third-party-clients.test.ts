/**
 * Clients we did not write, against our real servers: the MCP Inspector CLI over stdio and
 * HTTP, and mcp-remote bridging the HTTP endpoint to a stdio client.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { realpathSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { RunningHttpServer } from "../../src/adapters/mcp/http-server.js";
import { TEST_CLI } from "../fixtures/spawned.js";
import { startTestServer } from "../helpers/http-server.js";

const run = promisify(execFile);
const INSPECTOR = realpathSync("node_modules/.bin/mcp-inspector");
const MCP_REMOTE = realpathSync("node_modules/.bin/mcp-remote");
const TOKEN = "k".repeat(48);
const STDIO_SERVER = [process.execPath, TEST_CLI, "mcp"];

async function inspector(args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, [INSPECTOR, "--cli", ...args], { timeout: 60_000 });
  return JSON.parse(stdout);
}

describe("MCP Inspector CLI", () => {
  let server: RunningHttpServer;
  before(async () => {
    server = await startTestServer(TOKEN);
  });
  after(() => server.close());

  it("lists and calls tools over stdio", async () => {
    const listed = (await inspector([...STDIO_SERVER, "--method", "tools/list"])) as {
      tools: Array<{ name: string }>;
    };
    assert.deepEqual(
      listed.tools.map((t) => t.name),
      ["echo", "hold", "fail"],
    );
    const called = (await inspector([
      ...STDIO_SERVER,
      "--method",
      "tools/call",
      "--tool-name",
      "echo",
      "--tool-arg",
      "text=hey",
    ])) as { content: Array<{ text: string }> };
    assert.equal(called.content[0]?.text, "hey");
  });

  it("lists and calls tools over HTTP with --header", async () => {
    const common = [server.url, "--transport", "http", "--header", `Authorization: Bearer ${TOKEN}`];
    const listed = (await inspector([...common, "--method", "tools/list"])) as {
      tools: Array<{ name: string }>;
    };
    assert.equal(listed.tools.length, 3);
    const called = (await inspector([
      ...common,
      "--method",
      "tools/call",
      "--tool-name",
      "echo",
      "--tool-arg",
      "text=over-http",
    ])) as { content: Array<{ text: string }> };
    assert.equal(called.content[0]?.text, "over-http");
    // The Inspector turns an isError result into its own failure exit; the result was an error.
    await assert.rejects(
      inspector([...common, "--method", "tools/call", "--tool-name", "fail", "--tool-arg", "query=q"]),
      /isError/,
    );
  });
});

describe("mcp-remote bridge", () => {
  let server: RunningHttpServer;
  before(async () => {
    server = await startTestServer(TOKEN);
  });
  after(() => server.close());

  it("bridges the HTTP endpoint to a stdio client", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        MCP_REMOTE,
        server.url,
        "--header",
        `Authorization: Bearer ${TOKEN}`,
        "--transport",
        "http-only",
      ],
      stderr: "pipe",
    });
    const client = new Client({ name: "bridge-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ["echo", "hold", "fail"],
      );
      const result = await client.callTool({ name: "echo", arguments: { text: "bridged" } });
      assert.equal((result.content as Array<{ text: string }>)[0]?.text, "bridged");
    } finally {
      await client.close();
    }
  });
});
