import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EvidentError } from "../../src/core/errors.js";
import { Slots } from "../../src/core/slots.js";

const cancelled = (error: unknown) => error instanceof EvidentError && error.code === "cancelled";

describe("slots", () => {
  it("grant up to the limit at once, then in arrival order as slots are given back", async () => {
    const slots = new Slots(2);
    const a = await slots.acquire();
    const b = await slots.acquire();
    const order: string[] = [];
    const c = slots.acquire().then((release) => {
      order.push("c");
      return release;
    });
    const d = slots.acquire().then((release) => {
      order.push("d");
      return release;
    });
    assert.deepEqual([slots.running, slots.waiting], [2, 2]);
    a();
    a(); // a second release of the same slot frees nothing more
    const releaseC = await c;
    assert.deepEqual([slots.running, slots.waiting, order], [2, 1, ["c"]]);
    b();
    const releaseD = await d;
    assert.deepEqual(order, ["c", "d"]);
    releaseC();
    releaseD();
    assert.deepEqual([slots.running, slots.waiting], [0, 0]);
  });

  it("a wait cancelled before or during it leaves no trace and is cancelled", async () => {
    const slots = new Slots(1);
    const held = await slots.acquire();
    const early = new AbortController();
    early.abort();
    await assert.rejects(slots.acquire(early.signal), cancelled);
    const late = new AbortController();
    const waiting = slots.acquire(late.signal);
    const next = slots.acquire();
    assert.equal(slots.waiting, 2);
    late.abort();
    await assert.rejects(waiting, cancelled);
    assert.equal(slots.waiting, 1);
    held();
    (await next)();
    assert.deepEqual([slots.running, slots.waiting], [0, 0]);
  });
});
