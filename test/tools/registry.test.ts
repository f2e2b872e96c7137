import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { EvidentError } from "../../src/core/errors.js";
import { ARGUMENT_ISSUES_SHOWN, ARGUMENT_NAME_MAX_CHARS } from "../../src/core/limits.js";
import { success } from "../../src/core/result.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { defineTool } from "../../src/tools/tool.js";

const echo = defineTool({
  name: "echo",
  title: "Echo",
  description: "Echoes its input.",
  inputSchema: z.strictObject({
    text: z.string().min(1).max(10),
    times: z.number().int().min(1).max(3).optional(),
  }),
  outputSchema: z.object({ text: z.string() }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler: async (input) => {
    if (input.text === "boom") throw new Error("secret internals /etc/passwd");
    if (input.text === "denied") throw new EvidentError("path_not_allowed", "not there");
    return success(input.text.repeat(input.times ?? 1), { text: input.text });
  },
});

describe("ToolRegistry", () => {
  const registry = new ToolRegistry().register(echo);

  it("runs a valid call and returns text plus structured data", async () => {
    const result = await registry.call("echo", { text: "ab", times: 2 });
    assert.equal(result.isError, false);
    assert.equal(result.text, "abab");
    assert.deepEqual(result.data, { text: "ab" });
  });

  for (const [label, args, field] of [
    ["empty string", { text: "" }, "text"],
    ["wrong type", { text: 5 }, "text"],
    ["unknown field", { text: "a", extra: 1 }, "extra"],
    ["out of range", { text: "a", times: 9 }, "times"],
    ["oversized string", { text: "x".repeat(11) }, "text"],
    ["missing field", {}, "text"],
  ] as const) {
    it(`A07: ${label} is invalid_arguments naming ${field}`, async () => {
      const result = await registry.call("echo", args);
      assert.equal(result.isError, true);
      assert.equal(result.isError && result.data.error.code, "invalid_arguments");
      assert.equal(result.isError && result.data.error.field, field);
      assert.match(result.text, /"code":"invalid_arguments"/);
    });
  }

  it("keeps a thrown EvidentError's code and hides unknown failures' text", async () => {
    const denied = await registry.call("echo", { text: "denied" });
    assert.equal(denied.isError && denied.data.error.code, "path_not_allowed");
    const boom = await registry.call("echo", { text: "boom" });
    assert.equal(boom.isError && boom.data.error.code, "internal_error");
    assert.doesNotMatch(boom.text, /passwd/);
  });

  it("A07: an invalid_arguments answer stays bounded however many unknown fields, and however long, the call names", async () => {
    const args: Record<string, unknown> = { text: "a", [`long${"x".repeat(100_000)}`]: 1 };
    for (let i = 0; i < 60_000; i++) args[`k${i}`] = i;
    const result = await registry.call("echo", args);
    assert.equal(result.isError && result.data.error.code, "invalid_arguments");
    // Each name shown is cut to its bound, and the list to its count; the rest is counted.
    const bound = ARGUMENT_ISSUES_SHOWN * (ARGUMENT_NAME_MAX_CHARS + 10) * 4 + 1_000;
    assert.ok(result.text.length < bound, `${result.text.length} characters`);
    assert.match(result.text, /unknown fields: longx{96}\.\.\., k0, k1/);
    assert.match(result.text, new RegExp(`and ${60_001 - ARGUMENT_ISSUES_SHOWN} more`));
  });

  it("A07: many invalid fields are counted past the first few", async () => {
    const many = defineTool({
      name: "many",
      title: "Many",
      description: "Many numbers.",
      inputSchema: z.strictObject({ values: z.array(z.number()) }),
      outputSchema: z.object({}),
      annotations: { readOnlyHint: true, openWorldHint: false },
      handler: async () => success("", {}),
    });
    const result = await new ToolRegistry().register(many).call("many", { values: Array(5_000).fill("x") });
    assert.equal(result.isError && result.data.error.code, "invalid_arguments");
    assert.equal(result.isError && result.data.error.field, "values[0]");
    assert.ok(result.text.length < 5_000, `${result.text.length} characters`);
    assert.match(result.text, new RegExp(`and ${5_000 - ARGUMENT_ISSUES_SHOWN} more issues`));
  });

  it("lists JSON schemas that reject unknown fields", () => {
    const [listing] = registry.list();
    assert.equal(listing?.name, "echo");
    assert.equal(listing?.inputSchema.additionalProperties, false);
    assert.deepEqual(listing?.inputSchema.required, ["text"]);
  });

  it("reports an unknown tool as invalid_arguments", async () => {
    const result = await registry.call("nope", {});
    assert.equal(result.isError && result.data.error.code, "invalid_arguments");
    const long = await registry.call(`nope${"x".repeat(100_000)}`, {});
    assert.equal(long.isError && long.data.error.code, "invalid_arguments");
    assert.ok(long.text.length < ARGUMENT_NAME_MAX_CHARS + 500, `${long.text.length} characters`);
  });

  it("returns cancelled when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await registry.call("echo", { text: "a" }, { signal: controller.signal });
    assert.equal(result.isError && result.data.error.code, "cancelled");
  });

  it("runs nothing once closed: a later call is cancelled, its handler never started", async () => {
    let started = 0;
    let closed = 0;
    const counted = defineTool({
      ...echo,
      name: "counted",
      handler: async (input) => {
        started++;
        return success(input.text, { text: input.text });
      },
      close: async () => {
        closed++;
      },
    });
    const own = new ToolRegistry().register(counted);
    assert.equal((await own.call("counted", { text: "a" })).isError, false);
    await own.close();
    const late = await own.call("counted", { text: "b" });
    assert.equal(late.isError && late.data.error.code, "cancelled");
    assert.match(late.text, /closed/);
    assert.equal(started, 1);
    await own.close();
    assert.equal(closed, 1);
  });
});
