/**
 * Counting happens in the registry every surface shares, not in an adapter; `/metrics` follows
 * the HTTP transport's guards; owned children are counted while they run.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createHttpHandler } from "../../src/adapters/mcp/http-handler.js";
import { resolveHttpSettings } from "../../src/config/http.js";
import { resolveSettings, settingValue } from "../../src/config/settings.js";
import { EvidentError } from "../../src/core/errors.js";
import { HTTP_MIN_TOKEN_CHARS } from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";
import type { Surface } from "../../src/core/phrasing.js";
import { createProductRegistry } from "../../src/tools/product.js";
import { evidentInProcess } from "../adapters/run-evident.js";
import { gatedRipgrep, treesRemovedAfter } from "../code/helpers.js";
import { parseExposition } from "./exposition.js";

const tree = treesRemovedAfter(after);
const TOKEN = "m".repeat(HTTP_MIN_TOKEN_CHARS);

describe("metrics beyond HTTP", () => {
  for (const surface of ["mcp", "http", "cli", "sdk", "pi"] as const satisfies readonly Surface[]) {
    it(`a call on the ${surface} surface is counted by tool, surface and outcome in the shared registry`, async () => {
      const root = await tree({ "a.txt": "needle\n" });
      const registry = createProductRegistry({
        cwd: root,
        settings: resolveSettings({ PATH: process.env.PATH }),
        logger: silentLogger,
        surface,
      });
      try {
        await registry.call("web_search", { query: "" });
        await registry.call("no_such_tool", {});
        const parsed = parseExposition(registry.metrics.render());
        const count = (tool: string) =>
          parsed.value("evident_tool_calls_total", { tool, surface, outcome: "invalid_arguments" });
        assert.equal(count("web_search"), 1);
        assert.equal(count("unknown"), 1, "an unknown tool name is one label, not the caller's text");
        assert.equal(parsed.value("evident_tool_call_duration_seconds_count", { tool: "web_search" }), 1);
      } finally {
        await registry.close();
      }
    });
  }

  it("an owned ripgrep is counted while it runs and not once it is reaped", async () => {
    const root = await tree({ "a.txt": "needle\n" });
    const rg = await gatedRipgrep(await tree({}));
    const registry = createProductRegistry({
      cwd: root,
      settings: resolveSettings({ PATH: process.env.PATH, EVIDENT_RG_PATH: rg.path }),
      logger: silentLogger,
    });
    const running = () =>
      parseExposition(registry.metrics.render()).value("evident_child_processes_running", {
        program: "rg",
      }) ?? 0;
    try {
      const before = running();
      const call = registry.call("code_search", { pattern: "needle", path: "a.txt" });
      const gate = await rg.waiting();
      assert.equal(running(), before + 1);
      await gate.pass();
      const result = await call;
      assert.equal(result.isError, false, result.text);
      assert.equal(running(), before);
    } finally {
      await registry.close();
    }
  });
});

describe("GET /metrics and its setting", () => {
  it("EVIDENT_METRICS_PUBLIC takes true or false; anything else is a configuration_error naming it", () => {
    assert.equal(settingValue(resolveSettings({}).metricsPublic), false);
    assert.equal(settingValue(resolveSettings({ EVIDENT_METRICS_PUBLIC: "true" }).metricsPublic), true);
    const bad = resolveSettings({ EVIDENT_METRICS_PUBLIC: "yes" }).metricsPublic;
    assert.throws(
      () => settingValue(bad),
      (error: unknown) =>
        error instanceof EvidentError &&
        error.code === "configuration_error" &&
        /EVIDENT_METRICS_PUBLIC/.test(error.message),
    );
  });

  it("evident mcp --transport http refuses to start with a bad EVIDENT_METRICS_PUBLIC, naming it", {
    timeout: 30_000,
  }, async () => {
    const dir = await tree({});
    const run = await evidentInProcess(["mcp", "--transport", "http", "--root", dir], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: dir,
        EVIDENT_HTTP_PORT: "0",
        EVIDENT_AUTH_TOKEN: TOKEN,
        EVIDENT_METRICS_PUBLIC: "yes",
      },
    });
    assert.equal(run.code, 1, run.stderr);
    const payload = JSON.parse(run.stderr.trim().split("\n").at(-1) ?? "") as {
      error: { code: string; message: string };
    };
    assert.equal(payload.error.code, "configuration_error");
    assert.match(payload.error.message, /EVIDENT_METRICS_PUBLIC must be true or false/);
  });

  it("A05: public metrics answer without the token while /mcp still refuses; Host and method are checked", async () => {
    const registry = createProductRegistry({
      cwd: process.cwd(),
      settings: resolveSettings({ PATH: process.env.PATH }),
      logger: silentLogger,
      surface: "http",
    });
    const handler = createHttpHandler({
      registry,
      logger: silentLogger,
      metricsPublic: true,
      settings: resolveHttpSettings({ EVIDENT_AUTH_TOKEN: TOKEN, EVIDENT_HTTP_PORT: "0" }),
    });
    const send = (path: string, init: RequestInit & { host?: string } = {}) =>
      handler.fetch(
        new Request(`http://127.0.0.1${path}`, {
          ...init,
          headers: { host: init.host ?? "127.0.0.1", ...(init.headers as Record<string, string>) },
        }),
      );
    try {
      const scrape = await send("/metrics");
      assert.equal(scrape.status, 200);
      parseExposition(await scrape.text());
      assert.equal((await send("/mcp", { method: "POST", body: "{}" })).status, 401);
      assert.equal((await send("/metrics", { method: "POST", body: "" })).status, 405);
      assert.equal((await send("/metrics", { host: "evil.example" })).status, 403);
    } finally {
      await handler.close();
      await registry.close();
    }
  });
});
