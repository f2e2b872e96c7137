/**
 * `evident mcp --transport http` on an address it cannot listen on ends with configuration_error
 * naming the address and the variables to change, exit 1, one JSON document on stderr: not a
 * stack trace from an uncaught listen error.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { evidentInProcess } from "./run-evident.js";

const dir = mkdtempSync(join(tmpdir(), "evident-http-listen-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("the HTTP server's listen address", () => {
  it("a port another process holds is configuration_error naming it, exit 1", async () => {
    const holder = createServer();
    holder.listen(0, "127.0.0.1");
    await once(holder, "listening");
    const { port } = holder.address() as { port: number };
    try {
      const run = await evidentInProcess(["mcp", "--transport", "http", "--root", dir], {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: dir,
          EVIDENT_HTTP_HOST: "127.0.0.1",
          EVIDENT_HTTP_PORT: String(port),
          EVIDENT_AUTH_TOKEN: "a".repeat(40),
        },
      });
      assert.equal(run.code, 1, run.stderr);
      const lines = run.stderr.trim().split("\n");
      const payload = JSON.parse(lines.at(-1) ?? "") as { error: { code: string; message: string } };
      assert.equal(payload.error.code, "configuration_error");
      assert.match(
        payload.error.message,
        new RegExp(`127\\.0\\.0\\.1:${port}: another process is listening there`),
      );
      assert.match(payload.error.message, /EVIDENT_HTTP_PORT/);
      assert.doesNotMatch(run.stderr, /a{40}/, "the token is not in the output");
    } finally {
      holder.close();
    }
  });
});
