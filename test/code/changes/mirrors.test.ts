import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { MirrorCache } from "../../../src/code/changes/mirrors.js";

describe("change scope trees", () => {
  it("builds a tree once per digest, keeps the most recent unused ones, and removes the rest", async () => {
    const cache = new MirrorCache<string>(2);
    let builds = 0;
    const build = (label: string) => async (dir: string) => {
      builds++;
      await writeFile(join(dir, "file"), label);
      return label;
    };
    const a = await cache.acquire("a", build("a"));
    const again = await cache.acquire("a", build("a"));
    assert.equal(again.dir, a.dir);
    assert.equal(builds, 1);
    a.release();
    again.release();
    const b = await cache.acquire("b", build("b"));
    const c = await cache.acquire("c", build("c"));
    // Three trees, two kept: the least recently used one that nothing holds goes.
    await cache.idle();
    assert.equal(cache.size, 2);
    assert.equal(existsSync(a.dir), false);
    // A tree in use is never removed, however many come after it.
    const d = await cache.acquire("d", build("d"));
    assert.equal(existsSync(b.dir) && existsSync(c.dir) && existsSync(d.dir), true);
    b.release();
    c.release();
    d.release();
    await cache.close();
    for (const tree of [b, c, d]) assert.equal(existsSync(tree.dir), false);
  });

  it("a failed build leaves no directory, and a tree held at close goes when released", async () => {
    const cache = new MirrorCache<string>(2);
    let seen = "";
    const failed = await cache
      .acquire("x", async (dir) => {
        seen = dir;
        throw new Error("no");
      })
      .catch((e: unknown) => e);
    assert.ok(failed instanceof Error);
    assert.equal(existsSync(seen), false);
    const held = await cache.acquire("y", async () => "y");
    await cache.close();
    assert.equal(existsSync(held.dir), true);
    held.release();
    await cache.close();
    assert.equal(existsSync(held.dir), false);
  });
});
