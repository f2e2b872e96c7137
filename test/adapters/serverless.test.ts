/**
 * createHttpHandler from the package entry: the web-standard function a serverless host mounts,
 * called here exactly as such a host would, with `Request` objects and no socket.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, it } from "node:test";
import { HTTP_RETRY_AFTER_SECONDS } from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";
import { createHttpHandler, EvidentError } from "../../src/index.js";

const ROOT = resolve(import.meta.dirname, "../..");
const TOKEN = "z".repeat(40);
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

describe("createHttpHandler (serverless)", () => {
  it("refuses to build without a token unless anonymous is explicit", () => {
    assert.throws(
      () => createHttpHandler({ env: {}, logger: silentLogger }),
      (error: unknown) => error instanceof EvidentError && error.code === "configuration_error",
    );
  });

  it("A03/A05: answers healthz publicly, 401 without the token, and MCP with it", async () => {
    const handler = createHttpHandler({
      env: { EVIDENT_AUTH_TOKEN: TOKEN },
      cwd: ROOT,
      logger: silentLogger,
    });
    try {
      const health = await handler.fetch(new Request("http://localhost/healthz"));
      assert.equal(health.status, 200);
      assert.equal(((await health.json()) as { status: string }).status, "ok");
      const list = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
      const denied = await handler.fetch(
        new Request("http://localhost/mcp", { method: "POST", headers: HEADERS, body: list }),
      );
      assert.equal(denied.status, 401);
      const ok = await handler.fetch(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { ...HEADERS, authorization: `Bearer ${TOKEN}`, "mcp-protocol-version": "2025-11-25" },
          body: list,
        }),
      );
      assert.equal(ok.status, 200);
      const text = await ok.text();
      for (const name of ["web_search", "web_read", "code_search"])
        assert.match(text, new RegExp(`"name":"${name}"`));
    } finally {
      await handler.close();
    }
  });
});

describe("createHttpHandler (serverless) and EVIDENT_MCP_STRUCTURED", () => {
  const listTools = async (env: Record<string, string>): Promise<string> => {
    const handler = createHttpHandler({
      env: { EVIDENT_AUTH_TOKEN: TOKEN, ...env },
      cwd: ROOT,
      logger: silentLogger,
    });
    try {
      const response = await handler.fetch(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { ...HEADERS, authorization: `Bearer ${TOKEN}`, "mcp-protocol-version": "2025-11-25" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
        }),
      );
      assert.equal(response.status, 200);
      return await response.text();
    } finally {
      await handler.close();
    }
  };

  it("lists no output schema by default, and every tool's with EVIDENT_MCP_STRUCTURED=true", async () => {
    assert.doesNotMatch(await listTools({}), /"outputSchema"/);
    const structured = await listTools({ EVIDENT_MCP_STRUCTURED: "true" });
    assert.equal(structured.match(/"outputSchema"/g)?.length, 3);
  });

  it("refuses any other value as configuration_error", () => {
    assert.throws(
      () =>
        createHttpHandler({
          env: { EVIDENT_AUTH_TOKEN: TOKEN, EVIDENT_MCP_STRUCTURED: "1" },
          logger: silentLogger,
        }),
      (error: unknown) =>
        error instanceof EvidentError &&
        error.code === "configuration_error" &&
        /EVIDENT_MCP_STRUCTURED/.test(error.message),
    );
  });
});

describe("CLI help for the product commands", () => {
  for (const [command, flag] of [
    ["grep", "--ignore-case"],
    ["search", "--max-results"],
    ["read", "--focus"],
  ] as const) {
    it(`evident ${command} --help lists the schema's options`, () => {
      const run = spawnSync(
        process.execPath,
        [resolve(ROOT, "dist/adapters/cli/main.js"), command, "--help"],
        {
          encoding: "utf8",
        },
      );
      assert.equal(run.status, 0);
      assert.match(run.stdout, new RegExp(flag));
    });
  }
});

describe("createHttpHandler (serverless) while its host shuts down", () => {
  it("answers every request after drain() 503 overloaded with Retry-After, health checks included", async () => {
    const handler = createHttpHandler({
      env: { EVIDENT_AUTH_TOKEN: TOKEN },
      cwd: ROOT,
      logger: silentLogger,
    });
    try {
      const list = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
      const post = () =>
        handler.fetch(
          new Request("http://localhost/mcp", {
            method: "POST",
            headers: { ...HEADERS, authorization: `Bearer ${TOKEN}`, "mcp-protocol-version": "2025-11-25" },
            body: list,
          }),
        );
      const before = await post();
      assert.equal(before.status, 200);
      await before.text();
      handler.drain();
      for (const answer of [await post(), await handler.fetch(new Request("http://localhost/healthz"))]) {
        assert.equal(answer.status, 503);
        assert.equal(answer.headers.get("retry-after"), String(HTTP_RETRY_AFTER_SECONDS));
        assert.equal(((await answer.json()) as { error: { code: string } }).error.code, "overloaded");
      }
      assert.equal(handler.inFlight(), 0);
    } finally {
      await handler.close();
    }
  });
});
