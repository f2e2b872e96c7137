/**
 * The settings object: resolved once from the environment an adapter hands over, frozen, and
 * never throwing at resolution: a set but unusable value is kept as its configuration_error,
 * thrown where the value is used (so a bad code_search variable is reported by every call).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cacheDirOf, resolveSettings, settingValue } from "../../src/config/settings.js";
import { EvidentError } from "../../src/core/errors.js";
import {
  CODE_SEARCH_DEADLINE_MS,
  CODE_SEARCH_MAX_PROCESSES,
  WEB_READ_MEMORY_MB,
} from "../../src/core/limits.js";

function thrownBy(read: () => unknown): unknown {
  try {
    read();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("resolved settings", () => {
  it("defaults come from limits.ts when nothing is set", () => {
    const settings = resolveSettings({});
    assert.deepEqual(settingValue(settings.code), {
      deadlineMs: CODE_SEARCH_DEADLINE_MS,
      maxProcesses: CODE_SEARCH_MAX_PROCESSES,
    });
    assert.equal(settingValue(settings.root), undefined);
    assert.equal(settingValue(settings.sharedStore), undefined);
    assert.deepEqual(settingValue(settings.web.mcpPresets), []);
  });

  it("a bad value does not stop resolution; using it is the configuration_error naming the variable", () => {
    for (const [name, value, message] of [
      [
        "EVIDENT_CODE_SEARCH_DEADLINE_MS",
        "soon",
        /EVIDENT_CODE_SEARCH_DEADLINE_MS must be an integer from 1 to/,
      ],
      [
        "EVIDENT_CODE_SEARCH_MAX_PROCESSES",
        "0",
        /EVIDENT_CODE_SEARCH_MAX_PROCESSES must be an integer from 1 to/,
      ],
      ["EVIDENT_CODE_SEARCH_MAX_PROCESSES", " ", /EVIDENT_CODE_SEARCH_MAX_PROCESSES holds only whitespace/],
    ] as const) {
      const settings = resolveSettings({ [name]: value });
      // Everything else still resolves: one bad variable hides no tool.
      assert.equal(settings.web.privateNetworkAtStart, false);
      for (let call = 0; call < 2; call += 1) {
        const error = thrownBy(() => settingValue(settings.code));
        assert.ok(error instanceof EvidentError, `${name}=${value}`);
        assert.equal(error.code, "configuration_error");
        assert.equal(error.details.key, name);
        assert.match(error.message, message);
      }
    }
    const store = thrownBy(() =>
      settingValue(resolveSettings({ EVIDENT_SNAPSHOT_STORE: "ftp://x" }).sharedStore),
    );
    assert.ok(store instanceof EvidentError);
    assert.equal(store.details.key, "EVIDENT_SNAPSHOT_STORE");
    const reader = thrownBy(() =>
      settingValue(resolveSettings({ EVIDENT_WEB_READ_MEMORY_MB: "-1" }).web.reader),
    );
    assert.ok(reader instanceof EvidentError);
    assert.equal(reader.details.key, "EVIDENT_WEB_READ_MEMORY_MB");
    const idle = thrownBy(() =>
      settingValue(resolveSettings({ EVIDENT_WEB_READ_THREAD_IDLE_MS: "soon" }).web.reader),
    );
    assert.ok(idle instanceof EvidentError);
    assert.equal(idle.details.key, "EVIDENT_WEB_READ_THREAD_IDLE_MS");
    assert.deepEqual(settingValue(resolveSettings({ EVIDENT_WEB_READ_THREAD_IDLE_MS: "0" }).web.reader), {
      memoryMb: WEB_READ_MEMORY_MB,
      idleMs: 0,
    });
  });

  it("is read once: frozen, and a later change of the environment changes nothing", () => {
    const env: Record<string, string | undefined> = {
      EVIDENT_CODE_SEARCH_DEADLINE_MS: "1234",
      EVIDENT_RG_PATH: "/opt/rg",
      EVIDENT_CONFIG: "/etc/evident.json",
    };
    const settings = resolveSettings(env);
    env.EVIDENT_CODE_SEARCH_DEADLINE_MS = "99";
    env.EVIDENT_RG_PATH = "/elsewhere/rg";
    env.EVIDENT_CONFIG = "/elsewhere.json";
    assert.equal(settingValue(settings.code).deadlineMs, 1234);
    assert.equal(settings.rgPath, "/opt/rg");
    assert.deepEqual(settings.configFile, { path: "/etc/evident.json", explicit: true });
    assert.equal(settings.childEnvironment.EVIDENT_RG_PATH, "/opt/rg");
    assert.ok(Object.isFrozen(settings));
    assert.ok(Object.isFrozen(settings.childEnvironment));
    assert.ok(Object.isFrozen(settings.web));
  });

  it("a relative EVIDENT_CACHE_DIR is relative to each root; otherwise XDG_CACHE_HOME, then HOME", () => {
    const relative = settingValue(resolveSettings({ EVIDENT_CACHE_DIR: "cache" }).cache);
    assert.equal(cacheDirOf(relative, "/a", "snapshots"), "/a/cache/snapshots");
    assert.equal(cacheDirOf(relative, "/b", "pages"), "/b/cache/pages");
    const xdg = settingValue(resolveSettings({ XDG_CACHE_HOME: "/x", HOME: "/h" }).cache);
    assert.equal(cacheDirOf(xdg, "/a", "code"), "/x/evident/code");
    // A relative XDG_CACHE_HOME is ignored, as the XDG spec says.
    const home = settingValue(resolveSettings({ XDG_CACHE_HOME: "x", HOME: "/h" }).cache);
    assert.equal(cacheDirOf(home, "/a", "code"), "/h/.cache/evident/code");
  });
});
