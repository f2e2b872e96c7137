import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { secretsFromEnv } from "../../src/config/logging.js";
import { createStderrLogger } from "../../src/core/logger.js";

describe("logger", () => {
  it("never prints a secret from the environment, wherever it appears in a line", () => {
    const env = { TAVILY_API_KEY: "tvly-secret-123", EVIDENT_AUTH_TOKEN: "t".repeat(40), PATH: "/usr/bin" };
    const lines: string[] = [];
    const logger = createStderrLogger({
      level: "debug",
      write: (l) => lines.push(l),
      secrets: secretsFromEnv(env),
    });
    logger.error("provider failed: https://api.example/?key=tvly-secret-123", {
      cause: new Error(`Authorization: Bearer ${"t".repeat(40)}`),
    });
    assert.equal(lines.length, 1);
    assert.doesNotMatch(lines[0] ?? "", /tvly-secret-123/);
    assert.doesNotMatch(lines[0] ?? "", /t{40}/);
    assert.match(lines[0] ?? "", /\[redacted\]/);
    assert.match(lines[0] ?? "", /\/usr\/bin|provider failed/);
  });

  it("scrubs each token of a list variable (EVIDENT_AUTH_TOKENS)", () => {
    const [a, b] = ["a".repeat(40), "b".repeat(40)];
    const lines: string[] = [];
    const logger = createStderrLogger({
      write: (l) => lines.push(l),
      secrets: secretsFromEnv({ EVIDENT_AUTH_TOKENS: `${a},${b}` }),
    });
    logger.error(`rejected Bearer ${b}`);
    assert.doesNotMatch(lines[0] ?? "", /b{40}/);
  });

  it("drops lines below its level", () => {
    const lines: string[] = [];
    const logger = createStderrLogger({ level: "warn", write: (l) => lines.push(l) });
    logger.debug("d");
    logger.info("i");
    logger.warn("w");
    assert.deepEqual(lines, ["evident warn: w\n"]);
  });
});
