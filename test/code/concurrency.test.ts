/**
 * Searches beyond the process bound (EVIDENT_CODE_SEARCH_MAX_PROCESSES): the rest wait their
 * turn, and a call cancelled while it waits starts nothing. ripgrep waits at a gate (see
 * gatedRipgrep), so which searches run is decided by the test, not by timing.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { resolveSettings, settingValue } from "../../src/config/settings.js";
import { Slots } from "../../src/core/slots.js";
import { gatedRipgrep, isRunning, processesIn, treesRemovedAfter } from "./helpers.js";
import { ctx, errorCode, makeService } from "./service-helpers.js";

const tree = treesRemovedAfter(after);

/** Resolves once `condition` holds, checking after each turn of the event loop. */
async function turnsUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe("searches beyond the process bound", () => {
  it("G11: run at most the bound at once; a waiting call that is cancelled never starts a process", async () => {
    const root = await tree({ "a.txt": "needle\n" });
    const rg = await gatedRipgrep(await tree({}));
    const slots = new Slots(2);
    const pids: number[] = [];
    const service = makeService(root, {
      env: {},
      rgPath: rg.path,
      slots,
      onProcessSpawn: (pid) => pids.push(pid),
    });
    // A single file: one ripgrep per search, no enumeration. Every call here ends cancelled.
    const search = () => {
      const controller = new AbortController();
      const outcome = errorCode(
        service.run({ pattern: "needle", path: "a.txt" }, ctx("c", { signal: controller.signal })),
      );
      return { cancel: () => controller.abort(), outcome };
    };
    try {
      const [first, second] = [search(), search()];
      await turnsUntil(() => pids.length === 2);
      const queued = [search(), search(), search()];
      await turnsUntil(() => slots.waiting === 3);
      assert.equal(slots.running, 2);
      for (const call of queued) call.cancel();
      for (const call of queued) assert.equal(await call.outcome, "cancelled");
      assert.equal(slots.waiting, 0, "cancelled calls leave the queue");
      const later = search();
      await turnsUntil(() => slots.waiting === 1);
      // A slot given back goes to the next waiting call, never to one that was cancelled.
      first.cancel();
      assert.equal(await first.outcome, "cancelled");
      await turnsUntil(() => pids.length === 3);
      assert.deepEqual([slots.running, slots.waiting], [2, 0]);
      second.cancel();
      later.cancel();
      assert.deepEqual([await second.outcome, await later.outcome], ["cancelled", "cancelled"]);
      assert.equal(pids.length, 3, "only calls that had a slot started a ripgrep");
      assert.deepEqual([slots.running, slots.waiting], [0, 0]);
    } finally {
      await service.close();
    }
    for (const pid of pids) assert.equal(isRunning(pid), false);
    assert.deepEqual(await processesIn(root), []);
  });

  it("G11: an unusable EVIDENT_CODE_SEARCH_MAX_PROCESSES is configuration_error naming it", async () => {
    const root = await tree({ "a.txt": "needle\n" });
    for (const value of ["0", "many", "-1"]) {
      const error = await errorCode(
        Promise.resolve().then(() =>
          // Read by config/, as every surface reads it, and handed to the service.
          makeService(root, {
            settings: settingValue(resolveSettings({ EVIDENT_CODE_SEARCH_MAX_PROCESSES: value }).code),
          }).run({ pattern: "needle" }, ctx()),
        ),
      );
      assert.equal(error, "configuration_error", value);
    }
  });
});
