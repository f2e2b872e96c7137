/**
 * Process hygiene, short form (the long form, 1,000 cancelled searches over MCP stdio on a large
 * tree, is bench/hardening/process-hygiene.ts): many searches at once on a service with the
 * default process bound, each cancelled at a seeded moment or answered. Every call ends answered
 * or cancelled, no more ripgreps run at once than the bound, and none is left once the calls have
 * ended and the service has closed.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { CODE_SEARCH_MAX_PROCESSES } from "../../src/core/limits.js";
import { seeded } from "../fixtures/seeded.js";
import { isRunning, processesIn, treesRemovedAfter } from "./helpers.js";
import { ctx, makeService } from "./service-helpers.js";

const tree = treesRemovedAfter(after);

const WORDS = ["alpha", "beta", "needle", "gamma", "delta", "return", "const"];
const PATTERNS = ["needle", "alp.a", "\\bbeta\\b", "(gamma|delta) \\d+", "zzz-absent"];

function files(count: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    out[`d${i % 40}/e${i % 7}/f${i}.txt`] = Array.from(
      { length: 30 },
      (_, line) => `${WORDS[(i + line) % WORDS.length]} ${WORDS[(i * line) % WORDS.length]} ${line}`,
    ).join("\n");
  }
  return out;
}

describe("process hygiene", () => {
  it("G11: 120 searches, 12 at a time, cancelled mid-flight: no error, the bound held, no ripgrep left", async () => {
    const seed = Number(process.env.EVIDENT_TEST_SEED ?? 18);
    const random = seeded(seed);
    // Large enough that searches outlast the seeded cancel times: the calls' outcomes are those
    // of a tree three times the size, at a third of the work.
    const root = await tree(files(1_000));
    const spawned: number[] = [];
    let most = 0;
    const service = makeService(root, {
      onProcessSpawn: (pid) => {
        spawned.push(pid);
        most = Math.max(most, spawned.filter(isRunning).length);
      },
    });
    const outcomes = new Map<string, number>();
    let next = 0;
    const call = async () => {
      const i = next++;
      const controller = new AbortController();
      const when = random();
      // A third are cancelled before anything starts, most of the rest at a seeded moment.
      if (when < 0.33) controller.abort();
      const timer = when < 0.9 ? setTimeout(() => controller.abort(), when * 300) : undefined;
      try {
        await service.run(
          {
            pattern: PATTERNS[i % PATTERNS.length] as string,
            ...(random() < 0.4 ? { glob: [`d${Math.floor(random() * 40)}/**`] } : {}),
            ...(random() < 0.3 ? { mode: "summary" as const } : {}),
          },
          ctx("hygiene", { signal: controller.signal }),
        );
        outcomes.set("answered", (outcomes.get("answered") ?? 0) + 1);
      } catch (error) {
        const code = (error as { code?: string }).code ?? String(error);
        outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
      } finally {
        clearTimeout(timer);
      }
    };
    try {
      await Promise.all(
        Array.from({ length: 12 }, async () => {
          while (next < 120) await call();
        }),
      );
      const summary = `seed ${seed}: ${JSON.stringify([...outcomes])}`;
      assert.deepEqual(
        [...outcomes.keys()].filter((code) => code !== "answered" && code !== "cancelled"),
        [],
        summary,
      );
      assert.ok((outcomes.get("cancelled") ?? 0) > 0, summary);
      assert.ok(most <= CODE_SEARCH_MAX_PROCESSES, `${most} ripgreps ran at once`);
    } finally {
      await service.close();
    }
    for (const pid of spawned) assert.equal(isRunning(pid), false, `ripgrep ${pid} outlived the service`);
    assert.deepEqual(await processesIn(root), []);
  });
});
