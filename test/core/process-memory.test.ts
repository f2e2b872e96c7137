/**
 * The executable's server tunes its own runtime's memory (core/process-memory.ts): one full
 * collection once no call has run for a while, never during a call; V8's young generation kept
 * from growing unless the operator sized it. The quiet period is checked with Node's
 * mock timers; the collection, the young generation and the server's wiring on the real runtime
 * (a child process each, so this test process keeps its own settings).
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { after, afterEach, before, describe, it, mock } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { z } from "zod";
import { EvidentError } from "../../src/core/errors.js";
import { HTTP_MIN_TOKEN_CHARS } from "../../src/core/limits.js";
import { fullCollection, IdleCollection } from "../../src/core/process-memory.js";
import { success } from "../../src/core/result.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { defineTool } from "../../src/tools/tool.js";

const ROOT = resolve(import.meta.dirname, "../..");
const CLI = resolve(ROOT, "dist/adapters/cli/main.js");
const AFTER_MS = 1_000;

describe("idle collection: once per quiet period, never during a call", () => {
  afterEach(() => mock.timers.reset());

  function idle() {
    mock.timers.enable({ apis: ["setTimeout"] });
    let collections = 0;
    const collection = new IdleCollection({ afterMs: AFTER_MS, collect: () => (collections += 1) });
    return { collection, collections: () => collections };
  }

  it("collects once the quiet period after the last call has passed, and only once", () => {
    const { collection, collections } = idle();
    collection.callStarted();
    collection.callEnded();
    mock.timers.tick(AFTER_MS - 1);
    assert.equal(collections(), 0);
    mock.timers.tick(1);
    assert.equal(collections(), 1);
    mock.timers.tick(AFTER_MS * 10);
    assert.equal(collections(), 1, "a quiet server is collected once, not over and over");
    collection.callStarted();
    collection.callEnded();
    mock.timers.tick(AFTER_MS);
    assert.equal(collections(), 2, "the next quiet period gets its own");
  });

  it("never while a call is in flight, and a call in the quiet period starts it again", () => {
    const { collection, collections } = idle();
    collection.callStarted();
    collection.callStarted();
    collection.callEnded();
    mock.timers.tick(AFTER_MS * 5);
    assert.equal(collections(), 0, "one call still runs");
    collection.callEnded();
    mock.timers.tick(AFTER_MS - 1);
    collection.callStarted();
    collection.callEnded();
    mock.timers.tick(AFTER_MS - 1);
    assert.equal(collections(), 0);
    mock.timers.tick(1);
    assert.equal(collections(), 1);
  });

  it("close ends a pending collection and arms no other", () => {
    const { collection, collections } = idle();
    collection.callStarted();
    collection.callEnded();
    collection.close();
    collection.callStarted();
    collection.callEnded();
    mock.timers.tick(AFTER_MS * 5);
    assert.equal(collections(), 0);
  });

  it("the registry tells its observers of every call, failed and unknown ones too", async () => {
    const events: string[] = [];
    const registry = new ToolRegistry()
      .register(
        defineTool({
          name: "echo",
          title: "Echo",
          description: "Echoes, or fails on request.",
          inputSchema: z.object({ fail: z.boolean() }),
          outputSchema: z.object({ ok: z.boolean() }),
          annotations: { readOnlyHint: true, openWorldHint: false },
          handler: async ({ fail }) => {
            events.push("ran");
            if (fail) throw new EvidentError("invalid_arguments", "asked to fail");
            return success("ok", { ok: true });
          },
        }),
      )
      .observe({ callStarted: () => events.push("started"), callEnded: () => events.push("ended") });
    assert.equal((await registry.call("echo", { fail: false })).isError, false);
    assert.equal((await registry.call("echo", { fail: true })).isError, true);
    assert.equal((await registry.call("nope", {})).isError, true);
    assert.equal((await registry.call("echo", { fail: "no" })).isError, true);
    assert.deepEqual(events, [
      "started",
      "ran",
      "ended",
      "started",
      "ran",
      "ended",
      "started",
      "ended",
      "started",
      "ended",
    ]);
  });
});

describe("the runtime: a full collection, the young generation", () => {
  it("this runtime offers a full collection, which frees what nothing references, without a global gc", async () => {
    const hadGlobal = typeof (globalThis as { gc?: unknown }).gc;
    const collect = fullCollection();
    assert.ok(collect !== undefined);
    let ref: WeakRef<object> | undefined = new WeakRef({ garbage: new Array(1_000).fill("x") });
    // A WeakRef's target is kept until the current job ends: collect in a later one.
    await new Promise((done) => setImmediate(done));
    collect();
    assert.equal(ref.deref(), undefined);
    ref = undefined;
    assert.equal(
      typeof (globalThis as { gc?: unknown }).gc,
      hadGlobal,
      "the process's own global is unchanged",
    );
  });

  /**
   * Runs keepYoungGenerationSmall in a node of its own, allocates, reports the young generation.
   * The built module, without tsx, whose own modules would grow the young generation first. The
   * allocation grows Node's default young generation to its most within half its rounds.
   */
  function youngGeneration(nodeOptions: string | undefined): { set: boolean; newSpaceMb: number } {
    const script = `
      import { getHeapSpaceStatistics } from "node:v8";
      import { keepYoungGenerationSmall } from ${JSON.stringify(resolve(ROOT, "dist/core/process-memory.js"))};
      const set = keepYoungGenerationSmall(process.env.NODE_OPTIONS, process.execArgv);
      let keep = [];
      for (let round = 0; round < 30; round++) {
        const batch = [];
        for (let i = 0; i < 20_000; i++) batch.push({ i, text: "x" + i });
        keep.push(batch);
        if (keep.length > 3) keep.shift();
      }
      const space = getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
      console.log(JSON.stringify({ set, newSpaceMb: space.space_size / 1048576 }));
    `;
    const env = { ...process.env };
    if (nodeOptions === undefined) delete env.NODE_OPTIONS;
    else env.NODE_OPTIONS = nodeOptions;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: ROOT,
      env,
      encoding: "utf8",
    });
    return JSON.parse(out.trim().split("\n").at(-1) ?? "{}");
  }

  it("stops the young generation growing under an allocation that grows it to its most otherwise, unless the operator sized it", () => {
    // Node's default, named: the operator's choice, so left alone.
    const grown = youngGeneration("--max-semi-space-size=16");
    assert.equal(grown.set, false);
    assert.equal(grown.newSpaceMb, 32);
    const chosen = youngGeneration("--max-semi-space-size=4");
    assert.equal(chosen.set, false);
    assert.equal(chosen.newSpaceMb, 8);
    // Where it stood when set: loading modules first may have grown it from 1 to 2 MB semi-spaces.
    const kept = youngGeneration(undefined);
    assert.equal(kept.set, true);
    assert.ok(kept.newSpaceMb <= 4, `young generation ${kept.newSpaceMb} MB`);
  });
});

describe("the runtime: the old generation", () => {
  /**
   * Runs a workload in a node of its own: buffers (C memory) held across young collections, as
   * read chunks are during a search, then dropped. Reports the most their garbage and the live
   * ones held at once. `tight` sets the factor through keepOldGenerationTight first. The built
   * module, without tsx, whose own modules would change what V8 sees as the live heap. The peaks
   * are those of twice as many rounds.
   */
  function bufferPeak(
    tight: boolean,
    execArgv: string[] = [],
    rounds = 500,
  ): { set: boolean; peakMb: number } {
    const script = `
      import { keepOldGenerationTight, keepYoungGenerationSmall } from ${JSON.stringify(resolve(ROOT, "dist/core/process-memory.js"))};
      keepYoungGenerationSmall(undefined, process.execArgv);
      const set = ${tight} ? keepOldGenerationTight(undefined, process.execArgv) : false;
      // A live heap of some size, as a server's is: V8 lets a small one grow more, relatively.
      const live = Array.from({ length: 200_000 }, (_, i) => ({ i, text: "live" + i }));
      const inFlight = [];
      let peak = 0;
      for (let round = 0; round < ${rounds}; round++) {
        const chunks = [];
        for (let k = 0; k < 4; k++) chunks.push(Buffer.allocUnsafeSlow(65_536));
        inFlight.push({ chunks, parsed: Array.from({ length: 2_000 }, (_, i) => ({ i })) });
        if (inFlight.length > 8) inFlight.shift();
        if (round % 50 === 0) peak = Math.max(peak, process.memoryUsage().arrayBuffers);
      }
      console.log(JSON.stringify({ set, peakMb: peak / 1048576, live: live.length }));
    `;
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    const out = execFileSync(process.execPath, [...execArgv, "--input-type=module", "-e", script], {
      cwd: ROOT,
      env,
      encoding: "utf8",
    });
    return JSON.parse(out.trim().split("\n").at(-1) ?? "{}");
  }

  it("is collected before buffers it no longer holds pile up, unless the operator chose the factor", () => {
    const defaults = bufferPeak(false);
    const tight = bufferPeak(true);
    assert.equal(tight.set, true);
    // 2 MB are live at any time; by V8's own factor tens of MB of dropped ones wait for a collection.
    assert.ok(
      tight.peakMb < defaults.peakMb * 0.6,
      `most buffers at once: ${tight.peakMb.toFixed(1)} MB, against ${defaults.peakMb.toFixed(1)} MB`,
    );
    // Only whether the factor was set is asked here: no workload.
    const chosen = bufferPeak(true, ["--heap-growing-percent=300"], 0);
    assert.equal(chosen.set, false);
  });
});

describe("evident mcp: the executable's server collects when idle", () => {
  let base: string;
  before(async () => {
    assert.ok(existsSync(CLI), "run `npm run build` first (npm test does)");
    base = await mkdtemp(join(tmpdir(), "evident-idle-"));
    await writeFile(join(base, "notes.txt"), "needle in a file\n");
  });
  after(() => rm(base, { recursive: true, force: true }));

  function serve(env: Record<string, string>, args: readonly string[] = []) {
    const child = spawn(process.execPath, [CLI, "mcp", ...args], {
      cwd: base,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: base,
        XDG_CONFIG_HOME: join(base, "config"),
        EVIDENT_CACHE_DIR: join(base, "cache"),
        EVIDENT_ROOT: base,
        ...env,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const log: string[] = [];
    const waiters: Array<() => void> = [];
    createInterface({ input: child.stderr }).on("line", (line) => {
      log.push(line);
      for (const wake of waiters.splice(0)) wake();
    });
    const answers = new Map<number, (message: unknown) => void>();
    createInterface({ input: child.stdout }).on("line", (line) => {
      const message = JSON.parse(line) as { id?: number };
      if (message.id !== undefined) answers.get(message.id)?.(message);
    });
    let next = 0;
    const request = (method: string, params: unknown) =>
      new Promise<unknown>((done) => {
        next += 1;
        answers.set(next, done);
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: next, method, params })}\n`);
      });
    /** Resolves with the index of the first log line matching, once there is one. */
    const logged = async (pattern: RegExp, from = 0): Promise<number> => {
      for (;;) {
        const at = log.findIndex((line, i) => i >= from && pattern.test(line));
        if (at >= 0) return at;
        await new Promise<void>((wake) => waiters.push(wake));
      }
    };
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
    return { child, log, request, logged, exited };
  }

  it("after a call, once it has been quiet for EVIDENT_IDLE_COLLECT_MS, with its young generation kept", async () => {
    const server = serve({ EVIDENT_IDLE_COLLECT_MS: "50", EVIDENT_LOG_LEVEL: "debug" });
    try {
      await server.request("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "idle", version: "1.0.0" },
      });
      server.child.stdin.write(
        `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
      );
      assert.ok(server.log.some((line) => /young generation kept from growing/.test(line)));
      const answer = (await server.request("tools/call", {
        name: "code_search",
        arguments: { pattern: "needle" },
      })) as { result: { content: Array<{ text: string }> } };
      assert.match(answer.result.content[0]?.text ?? "", /notes\.txt/);
      const answered = server.log.length;
      const at = await server.logged(/idle: full garbage collection/);
      assert.ok(at >= answered, "the collection comes after the call, not during it");
      assert.match(server.log[at] ?? "", /heapUsedMb/);
    } finally {
      server.child.stdin.end();
      await server.exited;
    }
  });

  it("over HTTP too, after the call, and once per quiet period", async () => {
    const token = `${"i".repeat(HTTP_MIN_TOKEN_CHARS)}-idle`;
    const server = serve(
      {
        EVIDENT_IDLE_COLLECT_MS: "50",
        EVIDENT_LOG_LEVEL: "debug",
        EVIDENT_AUTH_TOKEN: token,
        EVIDENT_HTTP_PORT: "0",
      },
      ["--transport", "http"],
    );
    const client = new Client({ name: "idle", version: "1.0.0" });
    try {
      const url =
        /listening on (\S+)/.exec(server.log[await server.logged(/listening on /)] ?? "")?.[1] ?? "";
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      for (let round = 0; round < 2; round++) {
        const from = server.log.length;
        const result = await client.callTool({ name: "code_search", arguments: { pattern: "needle" } });
        assert.match((result.content as Array<{ text: string }>)[0]?.text ?? "", /notes\.txt/);
        const at = await server.logged(/idle: full garbage collection/, from);
        assert.ok(at >= from);
      }
    } finally {
      await client.close().catch(() => {});
      server.child.kill("SIGTERM");
      assert.equal(await server.exited, 0);
    }
  });

  it("a bad EVIDENT_IDLE_COLLECT_MS stops the server with a configuration_error naming it", async () => {
    const server = serve({ EVIDENT_IDLE_COLLECT_MS: "soon" });
    assert.equal(await server.exited, 1);
    const line = server.log.find((entry) => entry.startsWith("{")) ?? "";
    const payload = JSON.parse(line) as { error: { code: string; message: string } };
    assert.equal(payload.error.code, "configuration_error");
    assert.match(payload.error.message, /EVIDENT_IDLE_COLLECT_MS/);
  });
});
