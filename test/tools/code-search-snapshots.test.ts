/**
 * `snapshots` in the tool environment picks where code_search keeps results behind cursors:
 * "persistent" (the CLI's tool commands) survives the registry, the default memory does not;
 * EVIDENT_SNAPSHOT_STORE (a real redis-server here) overrides both, on every surface.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { resolveSettings } from "../../src/config/settings.js";
import { KEPT_MIN_BYTES } from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";
import { createCodeSearchTool } from "../../src/tools/code-search.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import type { ToolEnvironment } from "../../src/tools/tool.js";
import { makeTree, removeTree } from "../code/helpers.js";
import { missing } from "../fixtures/optional-tools.js";
import { startRedis } from "../servers/services.js";

describe("code_search snapshots by surface", () => {
  let root: string;
  let base: string;
  before(async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`f${i}.ts`] = "needle\n".repeat(i + 1);
    root = await makeTree(files);
    base = await mkdtemp(join(tmpdir(), "evident-tool-snapshots-"));
  });
  after(async () => {
    await removeTree(root);
    await rm(base, { recursive: true, force: true });
  });

  /** One registry per "process"; each is closed after its call, as the CLI does. */
  async function call(env: Partial<ToolEnvironment>, args: Record<string, unknown>) {
    const registry = new ToolRegistry().register(
      createCodeSearchTool({
        cwd: root,
        settings: resolveSettings({ PATH: process.env.PATH }),
        logger: silentLogger,
        ...env,
      }),
    );
    try {
      return await registry.call("code_search", args, { caller: "cli:test" });
    } finally {
      await registry.close();
    }
  }

  it('G06: "persistent" continues a cursor in a new registry; memory reads it as cursor_malformed', async () => {
    const cache = join(base, "cache");
    const persistent = {
      snapshots: "persistent" as const,
      settings: resolveSettings({ PATH: process.env.PATH, EVIDENT_CACHE_DIR: cache }),
    };
    const first = await call(persistent, { pattern: "needle" });
    assert.equal(first.isError, false);
    const cursor = (first.data as { cursor?: string }).cursor as string;
    assert.ok(cursor);
    const next = await call(persistent, { cursor, paths: ["f2.ts"] });
    assert.equal(next.isError, false, next.text);
    assert.equal((next.data as { matches: unknown[] }).matches.length, 3);

    const memory = await call({}, { pattern: "needle" });
    const lost = await call({}, { cursor: (memory.data as { cursor: string }).cursor });
    assert.equal(lost.isError, true);
    assert.equal(lost.isError && lost.error.code, "cursor_malformed");
  });

  it("a compact result is kept so that its numbers can be inspected from the next run", async () => {
    const persistent = {
      snapshots: "persistent" as const,
      settings: resolveSettings({ PATH: process.env.PATH, EVIDENT_CACHE_DIR: join(base, "compact") }),
    };
    const result = await call(persistent, { pattern: "needle", path: "f0.ts" });
    assert.equal(result.isError, false, result.text);
    const data = result.data as { cursor?: string; inspectCursor?: string };
    assert.equal(data.cursor, undefined, "nothing is left to page");
    assert.ok(data.inspectCursor);
    const inspected = await call(persistent, { cursor: data.inspectCursor, inspect: 1 });
    assert.equal(inspected.isError, false, inspected.text);
    assert.match(inspected.text, /match \[1\] f0\.ts:1/);
  });

  it("a compact result still answers when its matches cannot be kept, and says so", async () => {
    const blocked = join(base, "not-a-directory");
    await writeFile(blocked, "");
    const persistent = {
      snapshots: "persistent" as const,
      settings: resolveSettings({ PATH: process.env.PATH, EVIDENT_CACHE_DIR: blocked }),
    };
    const result = await call(persistent, { pattern: "needle", path: "f0.ts" });
    assert.equal(result.isError, false, result.text);
    assert.equal((result.data as { inspectCursor?: string }).inspectCursor, undefined);
    assert.equal((result.data as { totalMatches: number }).totalMatches, 1);
    assert.match(result.text, /could not be kept, so their numbers cannot be inspected \(The cursor cache /);
    assert.match(
      result.text,
      /inspect one by its path and line instead: call code_search with \{"path":path,"line":line\}\./,
    );
    // A result that needs its cursor to be read at all fails as before.
    const broad = await call(persistent, { pattern: "needle" });
    assert.equal(broad.isError, true);
    assert.equal(broad.isError && broad.error.code, "configuration_error");
  });

  it("a result over its share of a lowered EVIDENT_KEPT_MAX_BYTES is not kept and says so; nothing is evicted for it", async () => {
    const long = await makeTree({
      "long.ts": `const needle = "${"x".repeat(3_000)}";\n`,
      "a.ts": "needle\n",
    });
    const registry = new ToolRegistry().register(
      createCodeSearchTool({
        cwd: long,
        settings: resolveSettings({ PATH: process.env.PATH, EVIDENT_KEPT_MAX_BYTES: String(KEPT_MIN_BYTES) }),
        logger: silentLogger,
      }),
    );
    const run = (args: Record<string, unknown>) => registry.call("code_search", args, { caller: "cli:test" });
    try {
      const small = await run({ pattern: "needle", path: "a.ts" });
      const kept = (small.data as { inspectCursor?: string }).inspectCursor;
      assert.ok(kept, small.text);
      // Complete and compact: every match is in the answer, only its numbers are lost, and said.
      const whole = await run({ pattern: "needle", path: "long.ts" });
      assert.equal(whole.isError, false, whole.text);
      assert.equal((whole.data as { inspectCursor?: string }).inspectCursor, undefined);
      assert.match(
        whole.text,
        /could not be kept, so their numbers cannot be inspected \(This result \(\d+ bytes\) is larger than one kept result may be here \(1024 bytes/,
      );
      // A result that needs its cursor to be read at all is refused, naming the setting.
      const paged = await run({ pattern: "needle", limit: 1, mode: "matches" });
      assert.equal(paged.isError && paged.error.code, "configuration_error", paged.text);
      assert.match(paged.text, /EVIDENT_KEPT_MAX_BYTES/);
      const inspected = await run({ cursor: kept, inspect: 1 });
      assert.equal(inspected.isError, false, inspected.text);
    } finally {
      await registry.close();
      await removeTree(long);
    }
  });

  it("S11: an unusable EVIDENT_KEPT_MAX_BYTES is configuration_error on every call, naming it", async () => {
    for (const snapshots of ["persistent", undefined] as const) {
      for (const wrong of ["lots", "100"]) {
        const env = {
          PATH: process.env.PATH,
          EVIDENT_KEPT_MAX_BYTES: wrong,
          EVIDENT_CACHE_DIR: join(base, "bad"),
        };
        const result = await call(
          { settings: resolveSettings(env), ...(snapshots === undefined ? {} : { snapshots }) },
          { pattern: "needle" },
        );
        assert.equal(result.isError && result.error.code, "configuration_error", wrong);
        assert.match(result.text, /EVIDENT_KEPT_MAX_BYTES must be an integer from 4096/);
      }
    }
  });

  it("G06: EVIDENT_SNAPSHOT_STORE continues a cursor in another registry, on any surface", {
    skip: missing("redis-server"),
  }, async () => {
    const redis = await startRedis();
    try {
      const env = {
        PATH: process.env.PATH,
        EVIDENT_SNAPSHOT_STORE: redis.url,
        EVIDENT_CURSOR_KEY: "0123456789abcdef".repeat(4),
      };
      const cache = join(base, "not-used");
      const first = await call(
        { settings: resolveSettings({ ...env, EVIDENT_CACHE_DIR: cache }) },
        { pattern: "needle" },
      );
      assert.equal(first.isError, false, first.text);
      const cursor = (first.data as { cursor?: string }).cursor as string;
      const next = await call(
        { snapshots: "persistent", settings: resolveSettings(env) },
        { cursor, paths: ["f4.ts"] },
      );
      assert.equal(next.isError, false, next.text);
      assert.equal((next.data as { matches: unknown[] }).matches.length, 5);
      assert.equal(existsSync(cache), false);
      // Inspection reads a match of the shared snapshot (its block fetched first), in another registry.
      const inspected = await call({ settings: resolveSettings(env) }, { cursor, matchIndices: [1, 3] });
      assert.equal(inspected.isError, false, inspected.text);
      const inspections = (inspected.data as { inspections: { status: string; path: string }[] }).inspections;
      assert.deepEqual(
        inspections.map((o) => o.status),
        ["complete", "complete"],
      );
      // A structure search's nodes and coverage survive the shared store too.
      const structure = await call(
        { settings: resolveSettings(env) },
        { structure: "needle", mode: "summary" },
      );
      assert.equal(structure.isError, false, structure.text);
      const structured = await call(
        { settings: resolveSettings(env) },
        { cursor: (structure.data as { cursor: string }).cursor, limit: 1 },
      );
      const shown = structured.data as { matches: { node?: { startLine: number } }[]; coverage?: unknown };
      assert.equal(shown.matches[0]?.node?.startLine, 1);
      assert.ok(shown.coverage !== undefined);

      await redis.stop();
      const down = await call({ settings: resolveSettings(env) }, { cursor });
      assert.equal(down.isError && down.error.code, "store_unavailable");
      // Nothing is silently kept per process instead: a new search says so too.
      const search = await call({ settings: resolveSettings(env) }, { pattern: "needle" });
      assert.equal(search.isError && search.error.code, "store_unavailable");
    } finally {
      await redis.stop();
    }
  });

  it("S11: a wrong shared-store setting is configuration_error on every call, naming the variable", async () => {
    for (const env of [
      { EVIDENT_SNAPSHOT_STORE: "127.0.0.1:6379", EVIDENT_CURSOR_KEY: "k".repeat(40) },
      { EVIDENT_SNAPSHOT_STORE: "redis://127.0.0.1:1" },
    ]) {
      for (let i = 0; i < 2; i++) {
        const result = await call(
          { settings: resolveSettings({ PATH: process.env.PATH, ...env }) },
          { pattern: "needle" },
        );
        assert.equal(result.isError && result.error.code, "configuration_error");
        assert.match(result.text, /EVIDENT_SNAPSHOT_STORE|EVIDENT_CURSOR_KEY/);
      }
    }
  });
});
