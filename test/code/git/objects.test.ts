import assert from "node:assert/strict";
import { once } from "node:events";
import { PassThrough } from "node:stream";
import { after, describe, it } from "node:test";
import { readBatch, readBlobs } from "../../../src/code/git/objects.js";
import { Git } from "../../../src/code/git/process.js";
import { openRepository } from "../../../src/code/git/repository.js";
import { isRunning, removeTree } from "../helpers.js";
import { GIT_ENV, git, makeRepo } from "./helpers.js";

const repos: string[] = [];
after(async () => {
  await Promise.all(repos.map(removeTree));
});

async function blobsOf(files: Record<string, string>) {
  const root = await makeRepo(files);
  repos.push(root);
  const ids = Object.keys(files).map((name) => git(root, "rev-parse", `HEAD:${name}`).trim());
  return { root, ids };
}

describe("blob reads (git cat-file --batch)", () => {
  it("an output destroyed before it is handed over fails the read instead of waiting forever", async () => {
    const stdout = new PassThrough();
    stdout.destroy();
    await once(stdout, "close");
    const bounds = { maxBytes: 10, maxTotalBytes: 10 };
    await assert.rejects(readBatch(stdout, ["0".repeat(40)], bounds, new Map()), /closed before it ended/);
  });

  it("keeps blobs within the total bound and stops at the first past it, reading no further", async () => {
    const { root, ids } = await blobsOf({
      "a.txt": "a".repeat(100),
      "big.txt": "x".repeat(2_000),
      "b.txt": "b".repeat(100),
      "c.txt": "c",
    });
    const spawned: number[] = [];
    const g = new Git({ env: GIT_ENV, onSpawn: (pid) => spawned.push(pid) });
    const { repository } = await openRepository(g, root, [], false);
    const blobs = await readBlobs(g, repository, ids, 1_000, 150);
    assert.deepEqual(
      ids.map((id) => blobs.get(id)?.kind),
      ["bytes", "too-large", "over-total", "over-total"],
      "past the size bound: read past; the third would pass the total: it and the rest unread",
    );
    assert.ok(
      spawned.every((pid) => !isRunning(pid)),
      "Git stopped, not left running",
    );
    assert.equal((blobs.get(ids[0] as string) as { bytes: Buffer }).bytes.toString(), "a".repeat(100));
  });

  it("a read cancelled while Git streams ends as cancelled and leaves no Git running", async () => {
    const { root, ids } = await blobsOf({ "a.txt": "needle\n".repeat(200_000), "b.txt": "b\n" });
    const spawned: number[] = [];
    const controller = new AbortController();
    const probe = new Git({ env: GIT_ENV });
    const { repository } = await openRepository(probe, root, [], false);
    const g = new Git({
      env: GIT_ENV,
      onSpawn: (pid) => {
        spawned.push(pid);
        // The version probe first, then cat-file: abort as cat-file starts.
        if (spawned.length === 2) controller.abort();
      },
    });
    await g.version();
    const error = await readBlobs(g, repository, ids, 10_000_000, 100_000_000, controller.signal).catch(
      (e: unknown) => e,
    );
    assert.equal((error as { code?: string }).code, "cancelled");
    assert.ok(spawned.every((pid) => !isRunning(pid)));
  });
});
