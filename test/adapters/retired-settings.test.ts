/**
 * A setting evident no longer has is ignored: an operator who still sets it (whatever its value)
 * gets a server that starts and answers, and a start-up warning that calls it retired (not
 * unknown, and no error). Through the built executable, the only process that ever read
 * EVIDENT_IDLE_COLLECT_MS.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { EVIDENT_CLI } from "./run-evident.js";

describe("retired settings", () => {
  let base: string;
  before(async () => {
    base = await mkdtemp(join(tmpdir(), "evident-retired-"));
    await writeFile(join(base, "notes.txt"), "needle in a file\n");
  });
  after(() => rm(base, { recursive: true, force: true }));

  for (const value of ["0", "soon"]) {
    it(`evident mcp with EVIDENT_IDLE_COLLECT_MS=${value} starts and answers`, async () => {
      let stderr = "";
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [EVIDENT_CLI, "mcp"],
        cwd: base,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: base,
          XDG_CONFIG_HOME: join(base, "config"),
          EVIDENT_CACHE_DIR: join(base, "cache"),
          EVIDENT_ROOT: base,
          EVIDENT_IDLE_COLLECT_MS: value,
        },
        stderr: "pipe",
      });
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const client = new Client({ name: "retired", version: "1.0.0" });
      try {
        await client.connect(transport);
        const result = await client.callTool({ name: "code_search", arguments: { pattern: "needle" } });
        assert.equal(result.isError ?? false, false, stderr);
        assert.match((result.content as Array<{ text: string }>)[0]?.text ?? "", /notes\.txt/);
        assert.match(stderr, /EVIDENT_IDLE_COLLECT_MS is retired and ignored/);
        assert.doesNotMatch(stderr, /EVIDENT_IDLE_COLLECT_MS is not a variable|error/i);
      } finally {
        await client.close();
      }
    });
  }
});
