/**
 * code_search through the launcher process: the same answers as starting ripgrep directly, the
 * same ownership (cancellation reaps ripgrep, nothing outlives the service's process), and a
 * launcher that dies mid-search ends the search with an error rather than a hang or a silent
 * short result.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { directSpawn, Launcher, launcherExecArgv } from "../../src/code/launcher.js";
import { runOwnedProcess } from "../../src/code/owned-process.js";
import { EvidentError } from "../../src/core/errors.js";
import { LAUNCHER_RSS_THRESHOLD_BYTES } from "../../src/core/limits.js";
import { isAlive, isRunning, makeTree, processesIn, removeTree } from "./helpers.js";
import { ctx, errorCode, makeService } from "./service-helpers.js";

/** A service on a started launcher of its own; `spawned` settles once ripgrep runs. */
async function launchedService(root: string) {
  const launcher = new Launcher();
  await launcher.start();
  const pids: number[] = [];
  let ran: () => void = () => {};
  const spawned = new Promise<void>((resolve) => {
    ran = resolve;
  });
  const service = makeService(root, {
    spawner: launcher.spawn,
    onProcessSpawn: (pid) => {
      pids.push(pid);
      ran();
    },
  });
  const close = async () => {
    await service.close();
    await launcher.close();
  };
  return { launcher, service, pids, spawned, close };
}

describe("code_search through the launcher", () => {
  let root: string;
  before(async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) {
      files[`src/f${i}.ts`] = Array.from(
        { length: 200 },
        (_, n) => `const needle${n} = ${i}; // needle\n`,
      ).join("");
    }
    files["é/ünï.txt"] = "needle in a non-ASCII path\r\n";
    root = await makeTree(files);
  });
  after(() => removeTree(root));

  it("answers exactly as a direct start does, from ripgrep started by the launcher", async () => {
    const launcher = new Launcher();
    await launcher.start();
    // Every start goes through the ready launcher (that it really is the parent is checked in
    // owned-process.test.ts, with a child that lives long enough to be looked at).
    const starts: boolean[] = [];
    const launched = makeService(root, {
      spawner: (command, args, options) => {
        starts.push(launcher.ready);
        return launcher.spawn(command, args, options);
      },
    });
    const direct = makeService(root, { spawner: directSpawn });
    try {
      for (const input of [
        { pattern: "needle" },
        { pattern: "needle", mode: "matches" as const, limit: 7 },
        { pattern: "nothing-matches-this" },
        { pattern: "in a non", literal: true },
      ]) {
        const a = await launched.run(input, ctx());
        const b = await direct.run(input, ctx());
        const strip = (text: string) => text.replace(/"cursor":"[^"]+"/g, '"cursor":"…"');
        assert.equal(strip(a.text), strip(b.text), JSON.stringify(input));
        assert.equal(a.data.totalMatches, b.data.totalMatches);
      }
      assert.ok(starts.length >= 4);
      assert.ok(starts.every((ready) => ready));
    } finally {
      await launched.close();
      await direct.close();
      await launcher.close();
    }
  });

  it("G11: cancelling a launched search reaps ripgrep", async () => {
    const launched = await launchedService(root);
    const controller = new AbortController();
    try {
      const running = launched.service.run(
        { pattern: "needle" },
        ctx("caller-1", { signal: controller.signal }),
      );
      await launched.spawned;
      controller.abort();
      assert.equal(await errorCode(running), "cancelled");
      for (const pid of launched.pids) assert.equal(isAlive(pid), false);
      assert.deepEqual(await processesIn(root), []);
    } finally {
      await launched.close();
    }
  });

  it("a launcher killed mid-search ends the search with an error and leaves no ripgrep behind", async () => {
    const launched = await launchedService(root);
    try {
      const running = launched.service.run({ pattern: "needle" }, ctx());
      await launched.spawned;
      process.kill(launched.launcher.pid as number, "SIGKILL");
      const code = await errorCode(running);
      // Either ripgrep had already finished (a complete answer), or the search failed loudly.
      if (code !== "no error") assert.equal(code, "internal_error");
      for (const pid of launched.pids) assert.equal(isRunning(pid), false);
      // The next search still works: the launcher starts again, or ripgrep is started directly.
      const next = await launched.service.run({ pattern: "needle", mode: "summary" }, ctx());
      assert.equal(next.data.totalMatches, 8001);
    } finally {
      await launched.close();
    }
  });

  it("the launcher does not outlive the process that started it", async () => {
    const script = join(fileURLToPath(new URL(".", import.meta.url)), "../fixtures/launcher-owner.ts");
    const owner = spawn(process.execPath, [...process.execArgv, script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    for await (const chunk of owner.stdout) output += chunk;
    const launcherPid = Number(output.trim());
    assert.ok(launcherPid > 0, output);
    await new Promise((resolve) => (owner.exitCode === null ? owner.once("close", resolve) : resolve(null)));
    // The launcher notices its parent is gone on the IPC channel; give the kernel a moment.
    for (let i = 0; i < 200 && isRunning(launcherPid); i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(isRunning(launcherPid), false);
  });
});

describe("a launcher whose owner exits mid-run", () => {
  it("G11: kills and reaps what it started, so no zombie is left for the adopting process", async () => {
    const script = join(fileURLToPath(new URL(".", import.meta.url)), "../fixtures/launcher-owner.ts");
    const owner = spawn(process.execPath, [...process.execArgv, script, "child"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    for await (const chunk of owner.stdout) output += chunk;
    const [launcherPid, childPid] = output.trim().split("\n").map(Number);
    assert.ok(launcherPid !== undefined && childPid !== undefined && childPid > 0, output);
    // The launcher notices its parent is gone on the IPC channel; give the kernel a moment.
    for (let i = 0; i < 200 && isRunning(launcherPid); i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(isRunning(launcherPid), false);
    // Not even a zombie: the launcher reaped its child before it ended.
    assert.equal(isAlive(childPid), false, `child ${childPid} is still in the process table`);
  });
});

describe("the launcher's Node flags", () => {
  it("keep a loader but drop inspector and profiler flags together with their separate values", () => {
    const flags = [
      "--import",
      "tsx",
      "--cpu-prof",
      "--cpu-prof-interval",
      "50",
      "--cpu-prof-dir=/tmp/profiles",
      "--heap-prof-name",
      "heap.heapprofile",
      "--inspect=127.0.0.1:9229",
      "--inspect-port",
      "9230",
      "--prof",
      "--max-old-space-size=512",
    ];
    assert.deepEqual(launcherExecArgv(flags), ["--import", "tsx", "--max-old-space-size=512"]);
  });
});

describe("a launcher that cannot start", () => {
  it("is given up after one try, and children start directly", async () => {
    const launcher = new Launcher({ script: "/nonexistent/launcher-main.js" });
    await launcher.start();
    assert.equal(launcher.ready, false);
    const child = launcher.spawn(process.execPath, ["-e", ""], { cwd: process.cwd(), env: process.env });
    await new Promise((resolve) => child.once("close", resolve));
    assert.equal(child.exitCode, 0);
    assert.equal(launcher.pid, undefined);
  });
});

describe("concurrent launched searches", () => {
  it("keep their own output apart", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++)
      files[`d${i % 3}/f${i}.txt`] = `alpha ${i}\nbeta ${i}\ngamma ${i}\n`.repeat(20);
    const tree = await makeTree(files);
    const launcher = new Launcher();
    await launcher.start();
    const launched = makeService(tree, { spawner: launcher.spawn });
    const direct = makeService(tree, { spawner: directSpawn });
    try {
      const inputs = ["alpha", "beta", "gamma", "alpha 1", "beta 2|gamma 2"].map((pattern) => ({
        pattern,
        mode: "matches" as const,
        limit: 100,
      }));
      const together = await Promise.all(inputs.map((input) => launched.run(input, ctx())));
      for (const [i, input] of inputs.entries()) {
        const alone = await direct.run(input, ctx());
        assert.deepEqual(together[i]?.data.matches, alone.data.matches, input.pattern);
        assert.equal(together[i]?.data.totalMatches, alone.data.totalMatches);
      }
    } finally {
      await launched.close();
      await direct.close();
      await launcher.close();
      await removeTree(tree);
    }
  });
});

describe("a launcher closed and started again", () => {
  it("runs the new launcher's children to the end while the old one goes away", async () => {
    const launcher = new Launcher();
    await launcher.start();
    const first = launcher.pid;
    // Not awaited: the old launcher's exit is to arrive while the new one works.
    const closing = launcher.close();
    await launcher.start();
    assert.notEqual(launcher.pid, first);
    try {
      // Started at once, while the closed launcher's exit is still on its way.
      const outcome = await runOwnedProcess(
        {
          command: process.execPath,
          args: ["-e", "process.stdout.write('x'.repeat(100000))"],
          cwd: process.cwd(),
          spawner: launcher.spawn,
        },
        async (stdout) => {
          let bytes = 0;
          for await (const chunk of stdout) bytes += (chunk as Buffer).length;
          assert.equal(bytes, 100000);
          return "done";
        },
      );
      assert.equal(outcome.exitCode, 0);
      await closing;
      assert.equal(isRunning(first ?? 0), false);
    } finally {
      await launcher.close();
    }
  });

  it("close() resolves once the launcher has exited, so nothing outlives an awaited close", async () => {
    const launcher = new Launcher();
    await launcher.start();
    const pid = launcher.pid;
    assert.ok(pid !== undefined && isRunning(pid));
    await launcher.close();
    assert.equal(isRunning(pid), false);
    assert.equal(launcher.pid, undefined);
    // Closing again, or closing one never started, resolves at once.
    await launcher.close();
    await new Launcher().close();
  });
});

describe("a launcher that breaks the protocol", () => {
  const script = join(fileURLToPath(new URL(".", import.meta.url)), "../fixtures/launcher-misbehaving.ts");
  const run = (launcher: Launcher) =>
    runOwnedProcess(
      {
        command: process.execPath,
        args: ["-e", "process.stdout.write('out'); process.stderr.write('err')"],
        cwd: process.cwd(),
        spawner: launcher.spawn,
      },
      async (stdout) => {
        let text = "";
        for await (const chunk of stdout) text += chunk;
        assert.equal(text, "out");
        return "done";
      },
    );

  it("an exit reported before the pipes waits for them, and the output is whole", async () => {
    process.env.LAUNCHER_FAULT = "exit-first";
    const launcher = new Launcher({ script });
    try {
      await launcher.start();
      assert.equal(launcher.ready, true);
      const outcome = await run(launcher);
      assert.equal(outcome.exitCode, 0);
      assert.equal(outcome.stderr, "err");
    } finally {
      await launcher.close();
      delete process.env.LAUNCHER_FAULT;
    }
  });

  it("pipes announced but not handed over fail the start loudly, never an empty output", async () => {
    process.env.LAUNCHER_FAULT = "no-handle";
    const launcher = new Launcher({ script });
    try {
      await launcher.start();
      await assert.rejects(
        run(launcher),
        (error: unknown) => error instanceof EvidentError && error.code === "internal_error",
      );
    } finally {
      await launcher.close();
      delete process.env.LAUNCHER_FAULT;
    }
  });

  it("an empty output that ended before the child was reported started still ends the search", async () => {
    process.env.LAUNCHER_FAULT = "late-stderr";
    const launcher = new Launcher({ script });
    const tree = await makeTree({ "a.txt": "x\n" });
    const service = makeService(tree, { spawner: launcher.spawn });
    try {
      await launcher.start();
      // ripgrep rejects the pattern: nothing on stdout, an explanation on stderr.
      assert.equal(await errorCode(service.run({ pattern: "(unclosed" }, ctx())), "invalid_arguments");
      const none = await service.run({ pattern: "nothing here", literal: true }, ctx());
      assert.equal(none.data.view, "empty");
    } finally {
      await service.close();
      await launcher.close();
      delete process.env.LAUNCHER_FAULT;
      await removeTree(tree);
    }
  });
});

describe("when the launcher takes over", () => {
  it("only once this process is past the resident-memory threshold", async () => {
    const launcher = new Launcher();
    const start = () =>
      new Promise((resolve) =>
        launcher
          .spawn(process.execPath, ["-e", ""], { cwd: process.cwd(), env: process.env })
          .once("close", resolve),
      );
    const ballast: Buffer[] = [];
    try {
      if (process.memoryUsage.rss() <= LAUNCHER_RSS_THRESHOLD_BYTES) {
        await start();
        assert.equal(launcher.pid, undefined, "a small process starts its children itself");
        // Resident, not just reserved: filled buffers.
        while (process.memoryUsage.rss() <= LAUNCHER_RSS_THRESHOLD_BYTES)
          ballast.push(Buffer.alloc(16 << 20, 1));
      }
      await start();
      assert.notEqual(launcher.pid, undefined, "past the threshold the launcher is started");
    } finally {
      ballast.length = 0;
      await launcher.close();
    }
  });
});
