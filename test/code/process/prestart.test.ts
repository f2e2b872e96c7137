/**
 * A long-lived service keeps a ripgrep started for its next search (src/code/prestart.ts). It
 * must answer exactly what a ripgrep started for the search would, never outlive the service or
 * its process, and never search a directory that is no longer the one asked for.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { allMatches } from "../../../src/code/rg/match-table.js";
import type { CodeSearchInput } from "../../../src/code/schema.js";
import type { CodeSearchServiceOptions } from "../../../src/code/service.js";
import { MemorySnapshotStore, searchSnapshot } from "../../../src/code/snapshots/store.js";
import { asSet, gatedRipgrep, isRunning, processesIn, rawMatches, treesRemovedAfter } from "../helpers.js";
import { ctx, errorCode, makeService } from "../service-helpers.js";

const tree = treesRemovedAfter(after);

/** A process's arguments as /proc shows them ("" once it has gone). */
function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
}

/** Whether this pid is a ripgrep waiting for its pattern on stdin. */
function isWaiting(pid: number): boolean {
  return isRunning(pid) && commandLine(pid).includes("\0--file\0-\0");
}

/** Whether this process still holds the write end of `pid`'s stdin (a pattern not yet sent). */
function holdsStdinOf(pid: number): boolean {
  const pipe = readlinkSync(`/proc/${pid}/fd/0`);
  return readdirSync("/proc/self/fd").some((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === pipe;
    } catch {
      return false;
    }
  });
}

/** Polls (a process's end is reported by the kernel, not to us) until `condition` holds. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1_000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(condition(), what);
}

/** A service that starts ripgrep ahead, with every ripgrep it starts recorded. */
function prestarting(root: string, extra: Partial<CodeSearchServiceOptions> = {}) {
  const pids: number[] = [];
  const store = new MemorySnapshotStore();
  const service = makeService(root, {
    prestart: {},
    store,
    onProcessSpawn: (pid) => pids.push(pid),
    ...extra,
  });
  /**
   * The ripgrep now waiting for the next search (after `idle`), if any. The kernel reports an
   * exec done (spawn resolves) a moment before the new program's arguments show in /proc, so a
   * running child with none yet is waited for.
   */
  const waiting = async () => {
    for (const pid of pids) {
      await eventually(
        () => !isRunning(pid) || commandLine(pid) !== "",
        `ripgrep ${pid} shows its arguments`,
      );
    }
    return pids.filter(isWaiting);
  };
  /** A search's retained match set, and how many ripgreps were started to answer it. */
  const search = async (input: CodeSearchInput) => {
    const before = pids.length;
    const result = await service.run({ mode: "summary", ...input }, ctx());
    const started = pids.length - before;
    await service.idle();
    if (result.data.view === "empty") return { set: [] as string[], started, result };
    if (result.data.cursor === undefined) throw new Error(`no cursor: ${result.text}`);
    const state = store.decodeCursor(result.data.cursor);
    const matches = allMatches((await searchSnapshot(store, "caller-1", state.snapshotId)).matches);
    return { set: asSet({ matches }), started, result };
  };
  return { service, pids, waiting, search };
}

/** raw ripgrep's flags for the request's options. */
function rawFlags(input: CodeSearchInput): string[] {
  const flags = [input.ignoreCase === undefined ? "-S" : input.ignoreCase ? "-i" : "-s"];
  if (input.literal === true) flags.push("-F");
  if (input.wholeWord === true) flags.push("-w");
  return flags;
}

const FILES = {
  "a.txt": "needle Needle NEEDLE needles\nhaystack a(b x.y\n",
  "b.ts": "const needle = 1; // é needle\r\nx\r\nx\nfinal\n",
  "sub/c.md": "ne+dle nedle neeedle 😀 日本\n",
};

describe("a ripgrep started ahead", () => {
  it("G11: answers a search with the last one's options, with raw rg's match set and no new ripgrep", async () => {
    const root = await tree(FILES);
    const regexes = ["needle", "ne+dle", "\\bneedle\\b", "", "(needle|haystack)", "[A-Z]+", "é|😀", "a\\(b"];
    const literals = fc.string({
      unit: fc.constantFrom("n", "e", "d", "l", "(", ".", "é", "N", " "),
      maxLength: 4,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom<boolean | undefined>(true, false, undefined),
        fc.constantFrom(...regexes),
        literals,
        async (literal, wholeWord, ignoreCase, regex, text) => {
          const { service, waiting, search } = prestarting(root);
          try {
            const options = { literal, wholeWord, ...(ignoreCase === undefined ? {} : { ignoreCase }) };
            await search({ pattern: "warm", ...options });
            const [parked] = await waiting();
            assert.ok(parked !== undefined, "a ripgrep waits after the first search");
            const pattern = literal ? text : regex;
            const second = await search({ pattern, ...options });
            assert.equal(second.started, 0, "answered by the waiting ripgrep");
            assert.equal(isRunning(parked), false, "the waiting ripgrep ran and was reaped");
            assert.deepEqual(
              second.set,
              rawMatches(root, pattern, rawFlags(options)),
              JSON.stringify(options),
            );
          } finally {
            await service.close();
          }
        },
      ),
      { numRuns: 20 },
    );
  });

  it("G11: a pattern it rejects is invalid_arguments with ripgrep's explanation, as without it", async () => {
    const root = await tree(FILES);
    const { service, search } = prestarting(root);
    const plain = makeService(root);
    const failure = (run: Promise<unknown>) =>
      run.then(
        () => assert.fail("an unclosed group was accepted"),
        (error: unknown) => error as { code: string; message: string },
      );
    try {
      await search({ pattern: "warm" });
      const waiting = await failure(service.run({ pattern: "a(b" }, ctx()));
      const started = await failure(plain.run({ pattern: "a(b" }, ctx()));
      assert.equal(waiting.code, "invalid_arguments");
      assert.match(waiting.message, /unclosed group/);
      assert.equal(waiting.message, started.message);
    } finally {
      await service.close();
      await plain.close();
    }
  });

  it("is replaced, and reaped, when a search has other options or another scope", async () => {
    const root = await tree(FILES);
    const { service, waiting, search } = prestarting(root);
    try {
      await search({ pattern: "needle" });
      const [first] = await waiting();
      assert.ok(first !== undefined);
      const other = await search({ pattern: "needle", ignoreCase: true });
      assert.equal(other.started, 1, "a search with other options starts its own ripgrep");
      assert.equal(isRunning(first), false);
      const [second] = await waiting();
      assert.ok(second !== undefined && second !== first);
      const scoped = await search({ pattern: "neeedle", ignoreCase: true, path: "sub" });
      assert.ok(scoped.started > 0, "another path is another scope");
      assert.equal(scoped.set.length, 1);
      assert.equal((await waiting()).length, 1, "one ripgrep waits at a time");
    } finally {
      await service.close();
    }
  });

  it("is not used once its directory has been replaced by another at the same path", async () => {
    const parent = await tree({ "keep.txt": "" });
    const root = join(parent, "project");
    await mkdir(root);
    await writeFile(join(root, "old.txt"), "needle from before\n");
    const { service, search } = prestarting(root);
    try {
      await search({ pattern: "warm" });
      await rename(root, join(parent, "project-before"));
      await mkdir(root);
      await writeFile(join(root, "new.txt"), "needle of now\n");
      const now = await search({ pattern: "needle" });
      assert.equal(now.started, 1);
      assert.deepEqual(now.set, rawMatches(root, "needle"));
      assert.match(now.result.text, /new\.txt/);
    } finally {
      await service.close();
    }
  });

  it("sees files changed after it started: nothing is read before the pattern arrives", async () => {
    const root = await tree({ "a.txt": "nothing yet\n" });
    const { service, search } = prestarting(root);
    try {
      await search({ pattern: "warm" });
      await writeFile(join(root, "a.txt"), "needle now\n");
      await writeFile(join(root, "b.txt"), "needle too\n");
      const now = await search({ pattern: "needle" });
      assert.equal(now.started, 0);
      assert.deepEqual(now.set, rawMatches(root, "needle"));
      assert.equal(now.set.length, 2);
    } finally {
      await service.close();
    }
  });

  it("G11: cancelling a search it answers leaves no ripgrep", async () => {
    const root = await tree({ "plain.txt": "needle\n" });
    const rg = await gatedRipgrep(await tree({}));
    const { service, pids, search } = prestarting(root, { env: { EVIDENT_RG_PATH: rg.path } });
    try {
      // The first search passes the gate; the ripgrep started after it for the next search
      // waits there, and so does the next search, which writes its pattern to it, until it is
      // cancelled.
      const first = search({ pattern: "needle", path: "plain.txt" });
      await (await rg.waiting()).pass();
      await first;
      const gate = await rg.waiting();
      const controller = new AbortController();
      const before = pids.length;
      const running = service.run(
        { pattern: "needle", path: "plain.txt" },
        ctx("caller-1", { signal: controller.signal }),
      );
      // Settled below; should an assertion fail first, close() cancels it and nothing is unhandled.
      running.catch(() => {});
      const parked = pids[pids.length - 1] as number;
      await eventually(() => !holdsStdinOf(parked), "the search wrote its pattern to the waiting ripgrep");
      controller.abort();
      assert.equal(await errorCode(running), "cancelled");
      assert.equal(pids.length, before, "the search was the waiting ripgrep's");
      await gate.close();
      await service.close();
      for (const pid of pids) assert.equal(isRunning(pid), false, `ripgrep ${pid} outlived the search`);
      assert.deepEqual(await processesIn(root), []);
    } finally {
      await service.close();
    }
  });

  it("G11: is reaped when the service closes, and ended after its idle time", async () => {
    const root = await tree(FILES);
    const closing = prestarting(root);
    await closing.search({ pattern: "needle" });
    const [parked] = await closing.waiting();
    assert.ok(parked !== undefined);
    await closing.service.close();
    assert.equal(isRunning(parked), false, "close() awaited the waiting ripgrep");

    const idle = prestarting(root, { prestart: { idleMs: 1_000 } });
    try {
      await idle.search({ pattern: "needle" });
      const [unused] = await idle.waiting();
      assert.ok(unused !== undefined);
      await eventually(() => !isRunning(unused), "an unused ripgrep is ended after its idle time");
      const after = await idle.search({ pattern: "needle" });
      assert.equal(after.started, 1, "once ended, a search starts its own");
      assert.deepEqual(after.set, rawMatches(root, "needle", ["-S"]));
    } finally {
      await idle.service.close();
    }
  });
});

describe("a process with a ripgrep started ahead", () => {
  const script = join(fileURLToPath(new URL(".", import.meta.url)), "../../fixtures/prestart-owner.ts");
  it("G11: ends without closing its service, and the waiting ripgrep ends with it", async () => {
    const root = await tree(FILES);
    const owner = spawn(process.execPath, [...process.execArgv, script, root], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    // A process held alive by its waiting ripgrep would never end: end it, and fail.
    const guard = setTimeout(() => owner.kill("SIGKILL"), 30_000);
    let output = "";
    for await (const chunk of owner.stdout) output += chunk;
    const code = await new Promise<number | null>((resolve) => {
      if (owner.exitCode !== null || owner.signalCode !== null) resolve(owner.exitCode);
      else owner.once("exit", (exit) => resolve(exit));
    });
    clearTimeout(guard);
    assert.equal(code, 0, "the process ended on its own");
    const waiting = output.trim().split(",").filter(Boolean).map(Number);
    assert.equal(waiting.length, 1, `one ripgrep was waiting: ${output}`);
    await eventually(() => waiting.every((pid) => !isRunning(pid)), "the waiting ripgrep ended");
  });
});
