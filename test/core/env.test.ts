/**
 * A variable holding only whitespace is a configuration_error naming it, on every setting that
 * reads one: read as unset, it quietly changed what evident did (a blank key dropped a provider,
 * a blank port served on a random one). An empty variable (`NAME= cmd`) still means unset.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { envValue } from "../../src/config/env.js";
import { resolveHttpSettings } from "../../src/config/http.js";
import { logLevelFromEnv } from "../../src/config/logging.js";
import { cacheDir, resolveSettings, settingValue, sharedStoreSettings } from "../../src/config/settings.js";
import { EvidentError } from "../../src/core/errors.js";
import { resolveProjectRoot } from "../../src/tools/project-root.js";
import { loadWebConfig } from "../../src/web/service.js";

const BLANKS = [" ", "   ", "\t", " \n"];

function assertNamed(thrown: unknown, name: string): void {
  assert.ok(thrown instanceof EvidentError, `${name}: ${String(thrown)}`);
  assert.equal(thrown.code, "configuration_error", name);
  assert.equal(thrown.details.key, name);
  assert.match(thrown.message, new RegExp(`${name} holds only whitespace`));
}

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("a variable holding only whitespace", () => {
  it("is refused naming it; an empty one is unset", () => {
    for (const blank of BLANKS)
      assertNamed(
        thrownBy(() => envValue({ X_SETTING: blank }, "X_SETTING")),
        "X_SETTING",
      );
    assert.equal(envValue({ X_SETTING: "" }, "X_SETTING"), undefined);
    assert.equal(envValue({}, "X_SETTING"), undefined);
    assert.equal(envValue({ X_SETTING: " value " }, "X_SETTING"), "value");
  });

  it("is a configuration_error naming it for every web setting and key", async () => {
    const base = { XDG_CONFIG_HOME: "/nonexistent-evident-test" };
    const names = [
      "TAVILY_API_KEY",
      "BRAVE_SEARCH_API_KEY",
      "SEARXNG_URL",
      "EVIDENT_RESPONSES_BASE_URL",
      "EVIDENT_SEARCH_ROUTE",
      "EVIDENT_READ_ROUTE",
      "EVIDENT_CALL_DEADLINE_MS",
      "EVIDENT_ENVELOPE_BUDGET_CHARS",
      "EVIDENT_ALLOW_PRIVATE_NETWORK",
      "EVIDENT_AGENT_URLS_VIA_PROXY",
      "HTTPS_PROXY",
      "https_proxy",
      "NO_PROXY",
      "EVIDENT_CONFIG",
      "EVIDENT_MCP_PRESETS",
      "EVIDENT_DUCKDUCKGO_DEADLINE_MS",
    ];
    for (const name of names) {
      const loaded = await loadWebConfig(resolveSettings({ ...base, [name]: "   " }));
      assert.equal(loaded.ok, false, `${name} was read as unset`);
      if (!loaded.ok) assertNamed(loaded.error, name);
    }
    assert.equal((await loadWebConfig(resolveSettings({ ...base, TAVILY_API_KEY: "" }))).ok, true);
  });

  it("named by a credential reference leaves that provider unusable, saying it is blank", async () => {
    const dir = mkdtempSync(join(tmpdir(), "evident-env-"));
    try {
      const file = join(dir, "config.json");
      writeFileSync(
        file,
        JSON.stringify({ providers: { tav: { type: "tavily", apiKey: { env: "TAV_KEY" } } } }),
        {
          mode: 0o600,
        },
      );
      const loaded = await loadWebConfig(resolveSettings({ EVIDENT_CONFIG: file, TAV_KEY: "  " }));
      assert.ok(loaded.ok);
      assert.equal(
        loaded.config.providers.get("tav")?.unavailable,
        "the environment variable TAV_KEY holds only whitespace (providers.tav.apiKey)",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is a configuration_error naming it for server, code_search, store and log settings", () => {
    const anonymous = { EVIDENT_ALLOW_ANONYMOUS: "true" };
    for (const name of [
      "EVIDENT_HTTP_HOST",
      "EVIDENT_HTTP_PORT",
      "PORT",
      "EVIDENT_ALLOWED_HOSTS",
      "EVIDENT_ALLOWED_ORIGINS",
      "EVIDENT_HTTP_MAX_CONCURRENT",
      "EVIDENT_HTTP_MAX_CONNECTIONS_PER_CLIENT",
    ]) {
      assertNamed(
        thrownBy(() => resolveHttpSettings({ ...anonymous, [name]: " " })),
        name,
      );
    }
    assertNamed(
      thrownBy(() => settingValue(resolveSettings({ EVIDENT_CODE_SEARCH_DEADLINE_MS: " " }).code)),
      "EVIDENT_CODE_SEARCH_DEADLINE_MS",
    );
    assertNamed(
      thrownBy(() => sharedStoreSettings({ EVIDENT_SNAPSHOT_STORE: " " })),
      "EVIDENT_SNAPSHOT_STORE",
    );
    assertNamed(
      thrownBy(() => logLevelFromEnv({ EVIDENT_LOG_LEVEL: " " }, "warn")),
      "EVIDENT_LOG_LEVEL",
    );
    assertNamed(
      thrownBy(() => cacheDir({ EVIDENT_CACHE_DIR: " " }, "/tmp", "snapshots")),
      "EVIDENT_CACHE_DIR",
    );
    const root = resolveProjectRoot({
      surface: "mcp",
      settings: resolveSettings({ EVIDENT_ROOT: " " }),
      cwd: "/tmp",
    });
    assert.ok("error" in root);
    assertNamed(root.error, "EVIDENT_ROOT");
  });
});
