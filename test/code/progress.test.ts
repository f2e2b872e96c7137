import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { codeSearchOutputSchema } from "../../src/code/schema.js";
import { resolveSettings } from "../../src/config/settings.js";
import { silentLogger } from "../../src/core/logger.js";
import { createCodeSearchTool } from "../../src/tools/code-search.js";
import type { ProgressUpdate } from "../../src/tools/tool.js";
import { type GatedRipgrep, gatedRipgrep, isAlive, makeTree, removeTree } from "./helpers.js";
import { ctx, errorCode, makeService } from "./service-helpers.js";

/**
 * A ripgrep held at a gate (see gatedRipgrep) runs as long as the test wants, with no sleeping
 * on either side.
 */
describe("long searches", () => {
  let root: string;
  let bin: string;
  let rg: GatedRipgrep;
  before(async () => {
    root = await makeTree({ "plain.txt": "needle\n" });
    bin = await makeTree({});
    rg = await gatedRipgrep(bin);
  });
  after(async () => {
    await removeTree(root);
    await removeTree(bin);
  });
  const env = () => ({ ...process.env, EVIDENT_RG_PATH: rg.path });

  it("report progress once they run longer than a second, and stop reporting when done", async () => {
    const tool = createCodeSearchTool({ cwd: root, settings: resolveSettings(env()), logger: silentLogger });
    const updates: ProgressUpdate[] = [];
    let firstUpdate: () => void = () => {};
    const reported = new Promise<void>((resolve) => {
      firstUpdate = resolve;
    });
    const started = Date.now();
    const call = tool.handler(
      { pattern: "needle", path: "plain.txt", mode: "matches" },
      {
        signal: new AbortController().signal,
        logger: silentLogger,
        caller: "p",
        progress: (update) => {
          updates.push(update);
          firstUpdate();
        },
      },
    );
    const gate = await rg.waiting();
    await reported;
    assert.ok(Date.now() - started >= 1000);
    await gate.pass();
    const result = await call;
    assert.equal(result.data.totalMatches, 1);
    assert.match(updates[0]?.message ?? "", /searching/);
    const count = updates.length;
    assert.equal(codeSearchOutputSchema.safeParse(result.data).success, true);
    await tool.close?.();
    assert.equal(updates.length, count);
  });

  it("G11: cancellation reaches a ripgrep blocked in a read", async () => {
    const tool = createCodeSearchTool({ cwd: root, settings: resolveSettings(env()), logger: silentLogger });
    const controller = new AbortController();
    const call = tool.handler(
      { pattern: "needle", path: "plain.txt" },
      {
        signal: controller.signal,
        logger: silentLogger,
        caller: "p",
        progress: () => controller.abort(),
      },
    );
    const gate = await rg.waiting();
    await assert.rejects(call, (error: unknown) => (error as { code?: string }).code === "cancelled");
    await gate.close();
    await tool.close?.();
  });
});

describe("structured data", () => {
  it("every view validates against the output schema", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`f${i}.ts`] = "needle\n".repeat(i + 1);
    const root = await makeTree(files);
    try {
      const tool = createCodeSearchTool({
        cwd: root,
        settings: resolveSettings(process.env),
        logger: silentLogger,
      });
      const context = {
        signal: new AbortController().signal,
        logger: silentLogger,
        caller: "s",
        progress: () => {},
      };
      const summary = await tool.handler({ pattern: "needle" }, context);
      const views = [
        summary,
        await tool.handler({ pattern: "absent" }, context),
        await tool.handler({ pattern: "needle", path: "f3.ts" }, context),
        await tool.handler({ cursor: summary.data.cursor as string, paths: ["f1.ts"], context: 1 }, context),
        await tool.handler({ cursor: summary.data.cursor as string, mode: "summary" }, context),
      ];
      assert.deepEqual(
        views.map((v) => v.data.view),
        ["summary", "empty", "details", "details", "summary"],
      );
      for (const view of views) assert.equal(codeSearchOutputSchema.safeParse(view.data).success, true);
      await tool.close?.();
    } finally {
      await removeTree(root);
    }
  });
});

describe("closing", () => {
  it("G11: close stops a running search, awaits its ripgrep, and refuses later calls", async () => {
    const root = await makeTree({ "a.txt": "needle\n" });
    const bin = await makeTree({});
    const rg = await gatedRipgrep(bin);
    const pids: number[] = [];
    const service = makeService(root, {
      env: {},
      rgPath: rg.path,
      onProcessSpawn: (pid) => pids.push(pid),
    });
    try {
      const outcome = errorCode(service.run({ pattern: "needle", path: "a.txt" }, ctx()));
      // A single-file root needs no enumeration: the one waiting is the content search.
      const gate = await rg.waiting();
      await service.close();
      assert.equal(await outcome, "cancelled");
      assert.equal(pids.length, 1);
      for (const pid of pids) assert.equal(isAlive(pid), false);
      assert.equal(await errorCode(service.run({ pattern: "needle" }, ctx())), "cancelled");
      await gate.close();
    } finally {
      await removeTree(root);
      await removeTree(bin);
    }
  });
});
