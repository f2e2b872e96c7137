/**
 * The fuzz suite's short run (the long one: bench/fuzz/run.ts, 10,000 cases per tool per
 * transport): seeded argument objects for web_search, web_read and code_search, over stdio and
 * over HTTP, each against the real server in a process of its own (compiled, as the runner
 * builds it), every outbound request on loopback. No crash, no call left unanswered, every answer
 * in the documented shape, no internal_error, no key in an answer, the loopback canary never
 * reached, no process left.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { caseSeed, fuzzArguments, type JsonSchema } from "./arguments.js";
import { fuzz, judge } from "./harness.js";
import { type FuzzWorld, startFuzzWorld } from "./world.js";

const SEED = 18;
const CASES = 40;
const TOOLS = ["web_search", "web_read", "code_search"];
/**
 * A call with no answer by then hangs. A guard, not a measurement: the server's own deadlines
 * (test/fuzz/world.ts) end every call long before it, however loaded the machine.
 */
const HANG_GUARD_MS = 120_000;

describe("fuzz: seeded arguments", () => {
  const schema: JsonSchema = {
    type: "object",
    properties: { pattern: { type: "string" }, limit: { type: "integer", minimum: 1, maximum: 100 } },
    required: ["pattern"],
  };
  const targets = { site: "site.fuzz.test", loopbackPort: 1 };

  it("the same seed, tool and index give the same case; others differ", () => {
    const cases = (seed: number) =>
      Array.from({ length: 50 }, (_, i) =>
        JSON.stringify(fuzzArguments("code_search", schema, seed, i, targets)),
      );
    assert.deepEqual(cases(7), cases(7));
    assert.notDeepEqual(cases(7), cases(8));
    assert.ok(new Set(cases(7)).size > 25, "cases repeat");
    assert.notEqual(caseSeed(7, "web_read", 0), caseSeed(7, "code_search", 0));
  });

  it("a judged answer outside the documented shapes is a finding", () => {
    const ok = (text: string, isError = true) => ({
      status: 200,
      message: { jsonrpc: "2.0", id: 1, result: { isError, content: [{ type: "text", text }] } },
      raw: text,
    });
    assert.equal(judge(ok('{"error":{"code":"cancelled","message":"m"}}'), {}, []).problem, undefined);
    assert.equal(judge(ok("plain", false), {}, []).problem, undefined);
    assert.equal(judge(ok('{"error":{"code":"no_such_code","message":"m"}}'), {}, []).problem?.kind, "shape");
    assert.equal(
      judge(ok('{"error":{"code":"internal_error","message":"m"}}'), {}, []).problem?.kind,
      "internal_error",
    );
    assert.equal(judge(ok("not json"), {}, []).problem?.kind, "shape");
    assert.equal(judge(ok("key sk-123 here", false), {}, ["sk-123"]).problem?.kind, "leak");
    const protocol = {
      status: 200,
      message: { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "m" } },
      raw: "",
    };
    assert.equal(judge(protocol, [1], []).problem, undefined);
    assert.equal(judge(protocol, {}, []).problem?.kind, "shape");
    assert.equal(judge({ status: 0, message: undefined, raw: "reset" }, {}, []).problem?.kind, "crash");
  });
});

describe("fuzz: short run", () => {
  let world: FuzzWorld;
  before(async () => {
    world = await startFuzzWorld();
  });
  after(() => world.close());

  for (const transport of ["stdio", "http"] as const) {
    it(`${CASES} cases per tool over ${transport}: no crash, hang, malformed answer, internal error, leak or leftover`, async () => {
      const vendorBefore = world.hits.vendor;
      const report = await fuzz({
        world,
        transport,
        seed: SEED,
        tools: TOOLS,
        cases: CASES,
        concurrency: 4,
        hangMs: HANG_GUARD_MS,
        compiled: true,
      });
      assert.deepEqual(report.findings, []);
      assert.deepEqual(report.leftover, []);
      assert.equal(report.calls, CASES * TOOLS.length);
      assert.equal(report.exitCode, 0);
      // The cases reached the tools, not only their validation, and the vendors answered.
      assert.ok((report.outcomes.ok ?? 0) >= 5, JSON.stringify(report.outcomes));
      assert.ok((report.outcomes.invalid_arguments ?? 0) > 10, JSON.stringify(report.outcomes));
      assert.ok(world.hits.vendor > vendorBefore, "no vendor was asked");
      assert.equal(world.hits.canary, 0);
    });
  }
});
