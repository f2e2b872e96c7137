import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { runOwnedProcess, startOwnedProcess } from "../../../src/code/process/owned-process.js";
import { EvidentError } from "../../../src/core/errors.js";
import { PROCESS_CLOSE_TIMEOUT_MS, PROCESS_STDERR_MAX_BYTES } from "../../../src/core/limits.js";
import { Slots } from "../../../src/core/slots.js";
import { isAlive, RG } from "../helpers.js";

const node = process.execPath;

/** The parent pid of a running process, from the process table. */
function parentOf(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[1]);
}

async function drain(stdout: AsyncIterable<Buffer>): Promise<"done"> {
  for await (const _ of stdout);
  return "done";
}

/** Runs `script` under node, cancels once it prints, and returns the child's pid after the rejection. */
async function cancelAfterFirstOutput(script: string): Promise<number> {
  const controller = new AbortController();
  let pid = -1;
  await assert.rejects(
    runOwnedProcess(
      {
        command: node,
        args: ["-e", script],
        cwd: process.cwd(),
        signal: controller.signal,
        onSpawn: (p) => {
          pid = p;
        },
      },
      async (stdout) => {
        for await (const _ of stdout) controller.abort();
        return "done";
      },
    ),
    (error: unknown) => error instanceof EvidentError && error.code === "cancelled",
  );
  return pid;
}

describe("owned process", () => {
  it("the child's parent is the process that was asked to start it", async () => {
    let parent = -1;
    await runOwnedProcess(
      {
        command: node,
        // Alive until stopped, so its entry in the process table can be read.
        args: ["-e", "setInterval(() => {}, 1000)"],
        cwd: process.cwd(),
        onSpawn: (pid) => {
          parent = parentOf(pid);
        },
      },
      async () => "stop",
    );
    assert.equal(parent, process.pid);
  });

  it("runs without a shell and reports the exit", async () => {
    const outcome = await runOwnedProcess({ command: RG, args: ["--version"], cwd: process.cwd() }, drain);
    assert.equal(outcome.exitCode, 0);
    // A shell would expand this; without one it is a literal argument.
    const literal = await runOwnedProcess(
      {
        command: node,
        args: ["-e", "process.stdout.write(process.argv[1])", "$HOME;`id`"],
        cwd: process.cwd(),
      },
      async (stdout) => {
        let text = "";
        for await (const chunk of stdout) text += chunk.toString();
        assert.equal(text, "$HOME;`id`");
        return "done";
      },
    );
    assert.equal(literal.exitCode, 0);
  });

  it("keeps the cause of a startup error", async () => {
    await assert.rejects(
      runOwnedProcess({ command: "/nonexistent/rg", args: [], cwd: process.cwd() }, drain),
      (error: unknown) =>
        error instanceof EvidentError &&
        error.code === "configuration_error" &&
        (error.cause as NodeJS.ErrnoException).code === "ENOENT",
    );
  });

  it("bounds captured stderr", async () => {
    const outcome = await runOwnedProcess(
      {
        command: node,
        args: ["-e", `process.stderr.write("x".repeat(${PROCESS_STDERR_MAX_BYTES * 2}))`],
        cwd: process.cwd(),
      },
      drain,
    );
    assert.equal(outcome.stderr.length, PROCESS_STDERR_MAX_BYTES);
    assert.equal(outcome.stderrTruncated, true);
  });

  it("a started child waits for its input, which run() writes and ends", async () => {
    // Echoes its whole stdin once it ends: nothing comes out before run() writes.
    const echo = "let t='';process.stdin.on('data',(c)=>t+=c).on('end',()=>process.stdout.write('got:'+t))";
    const started = await startOwnedProcess({
      command: node,
      args: ["-e", echo],
      cwd: process.cwd(),
      input: true,
    });
    let text = "";
    const outcome = await started.run(
      async (stdout) => {
        for await (const chunk of stdout) text += chunk.toString();
        return "done";
      },
      { input: "pattern\n" },
    );
    assert.equal(text, "got:pattern\n");
    assert.equal(outcome.exitCode, 0);
    await assert.rejects(started.run(drain), /already run/);
  });

  it("input for a child started without a stdin pipe is an error, and the child is reaped", async () => {
    const started = await startOwnedProcess({
      command: node,
      args: ["-e", "setInterval(() => {}, 1000)"],
      cwd: process.cwd(),
    });
    await assert.rejects(started.run(drain, { input: "x" }), /without an input pipe/);
    assert.equal(isAlive(started.pid), false);
  });

  it("G11: cancellation mid-output terminates and awaits the child", async () => {
    const pid = await cancelAfterFirstOutput("setInterval(() => process.stdout.write('tick\\n'), 5)");
    assert.ok(pid > 0);
    assert.equal(isAlive(pid), false);
  });

  it("G11: a child that ignores SIGTERM is killed after the escalation delay", async () => {
    const pid = await cancelAfterFirstOutput(
      "process.on('SIGTERM', () => {}); process.stdout.write('ready\\n'); setInterval(() => {}, 1000)",
    );
    assert.equal(isAlive(pid), false);
  });

  it("G11: a consumer failure terminates the child and keeps the consumer's error", async () => {
    let pid = -1;
    await assert.rejects(
      runOwnedProcess(
        {
          command: node,
          args: ["-e", "setInterval(() => process.stdout.write('tick\\n'), 5)"],
          cwd: process.cwd(),
          onSpawn: (p) => {
            pid = p;
          },
        },
        async (stdout) => {
          for await (const _ of stdout) throw new Error("consumer broke");
          return "done";
        },
      ),
      /consumer broke/,
    );
    assert.equal(isAlive(pid), false);
  });

  it("G11: an early stop terminates the child and reports it", async () => {
    const outcome = await runOwnedProcess(
      {
        command: node,
        args: ["-e", "setInterval(() => process.stdout.write('tick\\n'), 5)"],
        cwd: process.cwd(),
      },
      async (stdout) => {
        for await (const _ of stdout) return "stop";
        return "done";
      },
    );
    assert.equal(outcome.stopped, true);
    assert.equal(isAlive(outcome.pid), false);
  });

  it("G11: a spec whose signal has aborted starts no process", async () => {
    const controller = new AbortController();
    controller.abort();
    const spawned: number[] = [];
    for (const start of [
      () =>
        startOwnedProcess({
          command: RG,
          args: ["--version"],
          cwd: process.cwd(),
          signal: controller.signal,
        }),
      () =>
        runOwnedProcess(
          {
            command: RG,
            args: ["--version"],
            cwd: process.cwd(),
            signal: controller.signal,
            onSpawn: (pid) => spawned.push(pid),
          },
          drain,
        ),
    ]) {
      await assert.rejects(
        start(),
        (error: unknown) => error instanceof EvidentError && error.code === "cancelled",
      );
    }
    assert.deepEqual(spawned, []);
  });

  it("G11: a start waits for a slot, holds it until its child has closed, and starts nothing if cancelled while waiting", async () => {
    const slots = new Slots(1);
    // Runs until its input ends, which only run() does.
    const first = await startOwnedProcess({
      command: "/bin/cat",
      args: [],
      cwd: process.cwd(),
      input: true,
      slots,
    });
    assert.equal(slots.running, 1);
    const controller = new AbortController();
    const spawned: number[] = [];
    const queued = runOwnedProcess(
      { command: RG, args: ["--version"], cwd: process.cwd(), slots, signal: controller.signal },
      drain,
    );
    const second = runOwnedProcess(
      { command: RG, args: ["--version"], cwd: process.cwd(), slots, onSpawn: (pid) => spawned.push(pid) },
      drain,
    );
    assert.equal(slots.waiting, 2);
    controller.abort();
    await assert.rejects(
      queued,
      (error: unknown) => error instanceof EvidentError && error.code === "cancelled",
    );
    assert.deepEqual(spawned, [], "nothing starts while the slot is held");
    await first.run(drain, { input: "" });
    const outcome = await second;
    assert.equal(outcome.exitCode, 0);
    assert.deepEqual(spawned, [outcome.pid]);
    assert.deepEqual([slots.running, slots.waiting], [0, 0]);
  });

  it("G11: a child that closed while the event loop was blocked past the close timeout is not reported stuck", async () => {
    const controller = new AbortController();
    let pid = -1;
    const running = runOwnedProcess(
      {
        command: node,
        args: ["-e", "setInterval(() => {}, 1000)"],
        cwd: process.cwd(),
        signal: controller.signal,
        onSpawn: (p) => {
          pid = p;
        },
      },
      drain,
    );
    // Started: spawn resolves before onSpawn, and the consumer is attached in the same turn.
    while (pid < 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    // The loop is held (a synchronous wait, as a long spawn under load holds it) while the
    // child dies of its SIGTERM and the close timeout expires.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, PROCESS_CLOSE_TIMEOUT_MS + 500);
    await assert.rejects(
      running,
      (error: unknown) => error instanceof EvidentError && error.code === "cancelled",
    );
    assert.equal(isAlive(pid), false);
  });

  it("G11: a child whose pipes outlive it is reported as a failure, not ignored", async () => {
    const controller = new AbortController();
    let grandchild = -1;
    const started = Date.now();
    try {
      await assert.rejects(
        runOwnedProcess(
          {
            command: "/bin/sh",
            // The background sleep inherits stdout, so the pipe stays open after sh is killed.
            args: ["-c", "sleep 30 & echo $!; wait"],
            cwd: process.cwd(),
            signal: controller.signal,
          },
          async (stdout) => {
            for await (const chunk of stdout) {
              grandchild = Number.parseInt(chunk.toString(), 10);
              controller.abort();
            }
            return "done";
          },
        ),
        (error: unknown) =>
          error instanceof EvidentError &&
          error.code === "internal_error" &&
          /did not close/.test(error.message),
      );
      assert.ok(Date.now() - started >= PROCESS_CLOSE_TIMEOUT_MS);
    } finally {
      if (grandchild > 0) process.kill(grandchild, "SIGKILL");
    }
  });
});
