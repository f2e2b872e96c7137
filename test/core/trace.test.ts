import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { traceContext, traceHeaders } from "../../src/core/trace.js";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";
const VALID = `00-${TRACE}-${PARENT}-01`;

describe("W3C traceparent", () => {
  it("reads a version 00 value into its trace and parent ids, and passes it on unchanged", () => {
    const trace = traceContext(VALID, "congo=t61rcWkgMzE");
    assert.deepEqual(trace, {
      traceparent: VALID,
      traceId: TRACE,
      parentId: PARENT,
      tracestate: "congo=t61rcWkgMzE",
    });
    assert.deepEqual(traceHeaders(trace), { traceparent: VALID, tracestate: "congo=t61rcWkgMzE" });
  });

  it("ignores a malformed traceparent: length, case, version ff, zero ids, extra fields on 00, not a string", () => {
    for (const bad of [
      "",
      VALID.slice(1),
      `${VALID}0`,
      VALID.toUpperCase(),
      `ff-${TRACE}-${PARENT}-01`,
      `00-${"0".repeat(32)}-${PARENT}-01`,
      `00-${TRACE}-${"0".repeat(16)}-01`,
      `00-${TRACE}-${PARENT}-01-extra`,
      `00_${TRACE}_${PARENT}_01`,
      `0g-${TRACE}-${PARENT}-01`,
      undefined,
      42,
      [VALID],
    ]) {
      assert.equal(traceContext(bad, "a=b"), undefined, String(bad));
    }
    assert.deepEqual(traceHeaders(undefined), {});
  });

  it("reads a later version's four known fields and passes them on as version 00", () => {
    const trace = traceContext(`cc-${TRACE}-${PARENT}-09-what-the-future-adds`);
    assert.equal(trace?.traceparent, `00-${TRACE}-${PARENT}-09`);
  });

  it("drops a tracestate that is too long or not printable ASCII, keeping the traceparent", () => {
    for (const state of ["x".repeat(513), "a=\tb", "a=\u00e9"]) {
      const trace = traceContext(VALID, state);
      assert.equal(trace?.traceparent, VALID);
      assert.equal(trace?.tracestate, undefined);
    }
  });
});
