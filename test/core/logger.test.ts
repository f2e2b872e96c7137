import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { secretsFromEnv } from "../../src/config/logging.js";
import { createStderrLogger, withFields } from "../../src/core/logger.js";

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
    assert.equal(lines.length, 1);
    assert.deepEqual({ ...JSON.parse(lines[0] ?? ""), time: "t" }, { time: "t", level: "warn", msg: "w" });
  });

  it("writes one JSON object per line: time, level, msg, then the fields; a field cannot take a line key", () => {
    const lines: string[] = [];
    const logger = createStderrLogger({ write: (l) => lines.push(l) });
    logger.error("two\nlines", { requestId: "r1", msg: "spoofed", cause: new Error("why") });
    assert.equal(lines.length, 1);
    assert.ok(lines[0]?.endsWith("}\n") && !lines[0].slice(0, -1).includes("\n"));
    const parsed = JSON.parse(lines[0] ?? "");
    assert.match(parsed.time, /^\d{4}-\d\d-\d\dT/);
    assert.equal(parsed.msg, "two\nlines");
    assert.equal(parsed.requestId, "r1");
    assert.equal(parsed["field.msg"], "spoofed");
    assert.deepEqual(parsed.cause, { name: "Error", message: "why" });
  });

  it("scrubs a secret that JSON would escape, in the message and in nested fields", () => {
    const secret = 'pa"ss\\word-1234';
    const lines: string[] = [];
    const logger = createStderrLogger({ write: (l) => lines.push(l), secrets: [secret] });
    logger.error(`failed with ${secret}`, { nested: { header: `Bearer ${secret}` }, list: [secret] });
    const line = lines[0] ?? "";
    assert.ok(!line.includes(secret) && !line.includes(JSON.stringify(secret).slice(1, -1)), line);
    const parsed = JSON.parse(line);
    assert.equal(parsed.msg, "failed with [redacted]");
    assert.equal(parsed.nested.header, "Bearer [redacted]");
    assert.deepEqual(parsed.list, ["[redacted]"]);
  });

  it("withFields adds a call's request id to every line, and a line cannot replace it", () => {
    const lines: string[] = [];
    const logger = withFields(createStderrLogger({ level: "debug", write: (l) => lines.push(l) }), {
      requestId: "req-1",
    });
    logger.debug("a");
    logger.warn("b", { requestId: "other", extra: 1 });
    assert.deepEqual(
      lines.map((l) => JSON.parse(l)).map(({ requestId, extra }) => ({ requestId, extra })),
      [
        { requestId: "req-1", extra: undefined },
        { requestId: "req-1", extra: 1 },
      ],
    );
  });
});
