import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { TEST_CLI } from "../fixtures/spawned.js";
import { textOf } from "../helpers/mcp-client.js";

for (const negotiation of ["legacy", "auto"] as const) {
  describe(`MCP stdio (${negotiation === "legacy" ? "2025-11-25 client" : "current revision"})`, () => {
    let client: Client;
    let stderr = "";

    before(async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [TEST_CLI, "mcp"],
        stderr: "pipe",
      });
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      client = new Client(
        { name: "evident-test", version: "1.0.0" },
        negotiation === "auto" ? { versionNegotiation: { mode: "auto" } } : {},
      );
      await client.connect(transport);
    });

    after(async () => {
      await client.close();
    });

    it("A01: `evident mcp` with no flags serves stdio and lists the registry's tools", async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ["echo", "hold", "fail"],
      );
      const echo = tools.find((t) => t.name === "echo");
      assert.equal(echo?.inputSchema.additionalProperties, false);
      assert.equal(echo?.annotations?.readOnlyHint, true);
    });

    it("negotiates the expected protocol revision", () => {
      const version = client.getNegotiatedProtocolVersion();
      if (negotiation === "legacy") assert.equal(version, "2025-11-25");
      else assert.equal(version, "2026-07-28");
    });

    it("returns the model-facing text alone by default: no structuredContent, no outputSchema", async () => {
      // Some clients give the model structuredContent in place of the text when both are sent.
      const result = await client.callTool({ name: "echo", arguments: { text: "hi", times: 2 } });
      assert.equal(result.isError ?? false, false);
      assert.equal(textOf(result), "hihi");
      assert.equal(result.structuredContent, undefined);
      const { tools } = await client.listTools();
      for (const tool of tools) assert.equal(tool.outputSchema, undefined, tool.name);
    });

    it("A06: a tool failure is an isError result carrying the shared payload", async () => {
      const result = await client.callTool({ name: "fail", arguments: { query: "q" } });
      assert.equal(result.isError, true);
      assert.equal(JSON.parse(textOf(result)).error.code, "all_providers_failed");
    });

    for (const [label, args, field] of [
      ["empty string", { text: "" }, "text"],
      ["wrong type", { text: 3 }, "text"],
      ["unknown field", { text: "a", extra: true }, "extra"],
      ["out of range", { text: "a", times: 0 }, "times"],
      ["oversized string", { text: "x".repeat(101) }, "text"],
    ] as const) {
      it(`A07: ${label} -> invalid_arguments naming ${field}`, async () => {
        const result = await client.callTool({ name: "echo", arguments: args });
        assert.equal(result.isError, true);
        const payload = JSON.parse(textOf(result));
        assert.equal(payload.error.code, "invalid_arguments");
        assert.equal(payload.error.field, field);
      });
    }

    it("keeps stdout for the protocol (logs, if any, went to stderr)", async () => {
      // Every exchange above parsed as JSON-RPC; a stray stdout line would have broken the client.
      assert.doesNotMatch(stderr, /"jsonrpc"/);
    });
  });
}

for (const [label, args, env] of [
  ["--structured", ["mcp", "--structured"], {}],
  ["EVIDENT_MCP_STRUCTURED=true", ["mcp"], { EVIDENT_MCP_STRUCTURED: "true" }],
] as const) {
  describe(`MCP stdio with ${label}`, () => {
    let client: Client;

    before(async () => {
      client = new Client({ name: "evident-test", version: "1.0.0" });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [TEST_CLI, ...args],
          env: { ...(process.env as Record<string, string>), ...env },
          stderr: "ignore",
        }),
      );
    });

    after(async () => {
      await client.close();
    });

    it("lists each tool's output schema and returns text plus structured content bound to the connection", async () => {
      const { tools } = await client.listTools();
      assert.equal(tools.find((t) => t.name === "echo")?.outputSchema?.type, "object");
      const result = await client.callTool({ name: "echo", arguments: { text: "hi", times: 2 } });
      assert.equal(textOf(result), "hihi");
      const structured = result.structuredContent as { text: string; caller: string };
      assert.equal(structured.text, "hihi");
      assert.match(structured.caller, /^stdio:/);
    });

    it("a failure still carries only the error payload as text", async () => {
      const result = await client.callTool({ name: "fail", arguments: { query: "q" } });
      assert.equal(result.isError, true);
      assert.equal(result.structuredContent, undefined);
      assert.equal(JSON.parse(textOf(result)).error.code, "all_providers_failed");
    });
  });
}

describe("MCP stdio progress on the wire", () => {
  it("sends notifications/progress for the call's token before the call's result", async () => {
    const child = spawn(process.execPath, [TEST_CLI, "mcp"], {
      stdio: ["pipe", "pipe", "ignore"],
    });
    const lines = createInterface({ input: child.stdout });
    const seen: Array<{ id?: number; method?: string; params?: { progressToken?: unknown } }> = [];
    const done = new Promise<void>((resolve) => {
      lines.on("line", (line) => {
        const message = JSON.parse(line);
        seen.push(message);
        if (message.id === 2) resolve();
      });
    });
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "wire", version: "1" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "p" }, _meta: { progressToken: "tok" } },
    });
    await done;
    child.stdin.end();
    const progressAt = seen.findIndex(
      (m) => m.method === "notifications/progress" && m.params?.progressToken === "tok",
    );
    const resultAt = seen.findIndex((m) => m.id === 2);
    assert.ok(progressAt !== -1, "a progress notification was sent");
    assert.ok(progressAt < resultAt, "progress precedes the result");
    await new Promise((resolve) => child.once("exit", resolve));
  });
});
