import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Gauge } from "../../src/core/gauge.js";

describe("Gauge", () => {
  it("zero() resolves at once at zero, and otherwise only once the count is back to zero", async () => {
    const gauge = new Gauge();
    await gauge.zero();
    gauge.add(2);
    let settled = false;
    const zero = gauge.zero().then(() => {
      settled = true;
    });
    gauge.remove();
    await new Promise(setImmediate); // every settled promise has run its callbacks by now
    assert.equal(settled, false);
    assert.equal(gauge.value, 1);
    gauge.remove();
    await zero;
    assert.equal(gauge.value, 0);
  });
});
