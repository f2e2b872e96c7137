/**
 * Which shared store the environment asks for (EVIDENT_SNAPSHOT_STORE, EVIDENT_CURSOR_KEY): none,
 * or Redis with keys every replica derives alike; a wrong value is refused, naming its variable.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sharedStoreSettings } from "../../src/config/settings.js";
import { EvidentError } from "../../src/core/errors.js";
import { CURSOR_KEY_MIN_CHARS } from "../../src/core/limits.js";
import { deriveKeys } from "../../src/core/redis/settings.js";

describe("shared store settings", () => {
  const url = "redis://127.0.0.1:6379";
  const good = "k".repeat(CURSOR_KEY_MIN_CHARS);
  it("none unless EVIDENT_SNAPSHOT_STORE names a redis:// or rediss:// URL", () => {
    assert.equal(sharedStoreSettings({}), undefined);
    assert.equal(sharedStoreSettings({ EVIDENT_SNAPSHOT_STORE: "memory" }), undefined);
    const settings = sharedStoreSettings({
      EVIDENT_SNAPSHOT_STORE: "rediss://user:s3cret@cache.internal:6380/2",
      EVIDENT_CURSOR_KEY: good,
    });
    assert.equal(settings?.shownUrl, "rediss://cache.internal:6380/2");
    assert.equal(settings?.password, "s3cret");
  });

  it("refuses a bad URL, or a missing, short or padded EVIDENT_CURSOR_KEY, naming the variable", () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ EVIDENT_SNAPSHOT_STORE: "localhost:6379", EVIDENT_CURSOR_KEY: good }, "EVIDENT_SNAPSHOT_STORE"],
      [
        { EVIDENT_SNAPSHOT_STORE: "http://127.0.0.1:6379", EVIDENT_CURSOR_KEY: good },
        "EVIDENT_SNAPSHOT_STORE",
      ],
      [{ EVIDENT_SNAPSHOT_STORE: "not a url" }, "EVIDENT_SNAPSHOT_STORE"],
      [{ EVIDENT_SNAPSHOT_STORE: url }, "EVIDENT_CURSOR_KEY"],
      [{ EVIDENT_SNAPSHOT_STORE: url, EVIDENT_CURSOR_KEY: "short" }, "EVIDENT_CURSOR_KEY"],
      [{ EVIDENT_SNAPSHOT_STORE: url, EVIDENT_CURSOR_KEY: `${good}\n` }, "EVIDENT_CURSOR_KEY"],
      [{ EVIDENT_SNAPSHOT_STORE: url, EVIDENT_CURSOR_KEY: " ".repeat(40) }, "EVIDENT_CURSOR_KEY"],
    ];
    for (const [env, variable] of cases) {
      assert.throws(
        () => sharedStoreSettings(env),
        (error: unknown) =>
          error instanceof EvidentError &&
          error.code === "configuration_error" &&
          error.details.key === variable &&
          error.message.includes(variable),
        JSON.stringify(env),
      );
    }
  });
});

describe("shared store keys", () => {
  it("every replica derives the same keys from the secret, each use its own", () => {
    const secret = "s".repeat(CURSOR_KEY_MIN_CHARS);
    const keys = deriveKeys(secret);
    assert.deepEqual(deriveKeys(secret), keys);
    const all = [keys.cursor, keys.data, keys.keptCursor, keys.keptData].map((k) => k.toString("hex"));
    assert.equal(new Set(all).size, 4);
    assert.notEqual(deriveKeys(`${secret}x`).namespace, keys.namespace);
  });
});
