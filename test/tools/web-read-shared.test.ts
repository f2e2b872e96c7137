/**
 * EVIDENT_SNAPSHOT_STORE (a real redis-server here) keeps web_read's long pages too, on every
 * surface: a page read through one registry (one replica, or one CLI process) is continued
 * through another, never from a cache directory or memory; while Redis is away a long read
 * fails with store_unavailable instead of handing out a cursor no other replica could open.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { resolveSettings } from "../../src/config/settings.js";
import { silentLogger } from "../../src/core/logger.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import type { ToolEnvironment } from "../../src/tools/tool.js";
import { createWebReadTool } from "../../src/tools/web-read.js";
import { missing } from "../fixtures/optional-tools.js";
import { type Loopback, startLoopback } from "../net/loopback.js";
import { type RedisServer, startRedis } from "../servers/services.js";

const PAGE = Array.from(
  { length: 300 },
  (_, i) => `line ${String(i).padStart(4, "0")} of the long page`,
).join("\n");

// biome-ignore lint/suspicious/noExplicitAny: envelopes are read loosely; their shapes are asserted.
type Envelope = Record<string, any>;

describe("web_read's long pages in the shared store", () => {
  let base: string;
  let site: Loopback;
  let env: Record<string, string | undefined>;

  before(async () => {
    base = await mkdtemp(join(tmpdir(), "evident-web-shared-"));
    site = await startLoopback((req, res) => {
      res.setHeader("content-type", "text/plain; charset=utf-8");
      res.end(req.url === "/long" ? PAGE : "a short page");
    });
    env = {
      XDG_CONFIG_HOME: join(base, "no-config"),
      EVIDENT_CACHE_DIR: join(base, "cache"),
      EVIDENT_ALLOW_PRIVATE_NETWORK: "true",
      EVIDENT_ENVELOPE_BUDGET_CHARS: "3000",
      // Port 1: nothing listens; the tests that need a store set the Redis they started.
      EVIDENT_SNAPSHOT_STORE: "redis://127.0.0.1:1",
      EVIDENT_CURSOR_KEY: "0123456789abcdef".repeat(4),
    };
  });
  after(async () => {
    await site?.close();
    await rm(base, { recursive: true, force: true });
  });

  /** One registry per call, closed after it: another process (CLI) or another replica each time. */
  async function read(
    args: Record<string, unknown>,
    extra: Partial<ToolEnvironment> = {},
    caller = "http:a",
  ) {
    const registry = new ToolRegistry().register(
      createWebReadTool({ cwd: base, settings: resolveSettings(env), logger: silentLogger, ...extra }),
    );
    try {
      const result = await registry.call("web_read", args, { caller });
      return {
        isError: result.isError,
        envelope: result.data as Envelope,
        error: result.isError ? result.error : undefined,
      };
    } finally {
      await registry.close();
    }
  }

  it("S11: a wrong shared-store setting is configuration_error on every call, naming the variable, never a per-process store", async () => {
    const saved = env;
    try {
      for (const [wrong, variable] of [
        [{ EVIDENT_SNAPSHOT_STORE: "127.0.0.1:6379" }, "EVIDENT_SNAPSHOT_STORE"],
        [{ EVIDENT_CURSOR_KEY: undefined }, "EVIDENT_CURSOR_KEY"],
      ] as const) {
        env = { ...saved, ...wrong };
        for (const args of [{ url: `${site.url}/long` }, { url: `${site.url}/short` }]) {
          const result = await read(args);
          assert.equal(result.isError && result.error?.code, "configuration_error");
          assert.match(result.error?.message ?? "", new RegExp(variable));
        }
      }
    } finally {
      env = saved;
    }
  });

  it("S11: an unusable EVIDENT_KEPT_MAX_BYTES is configuration_error on every call, naming it", async () => {
    const saved = env;
    try {
      for (const wrong of ["lots", "100", "-1"]) {
        env = { ...saved, EVIDENT_KEPT_MAX_BYTES: wrong };
        const result = await read({ url: `${site.url}/short` });
        assert.equal(result.isError && result.error?.code, "configuration_error", wrong);
        assert.match(result.error?.message ?? "", /EVIDENT_KEPT_MAX_BYTES must be an integer from 4096/);
      }
    } finally {
      env = saved;
    }
  });

  describe("with a Redis", { skip: missing("redis-server") }, () => {
    let redis: RedisServer;
    let unshared: Record<string, string | undefined>;
    before(async () => {
      redis = await startRedis();
      unshared = env;
      env = { ...env, EVIDENT_SNAPSHOT_STORE: redis.url };
    });
    after(async () => {
      env = unshared;
      await redis?.stop();
    });

    it("G06: each part through a new registry, persistent or not: the parts add up to the page, fetched once, and no cache directory is used", async () => {
      const fetched = site.requests.filter((r) => r.url === "/long").length;
      const parts = [(await read({ url: `${site.url}/long` })).envelope];
      while (parts.at(-1)?.cursor !== undefined) {
        assert.ok(parts.length < 20);
        const next = await read(
          { cursor: parts.at(-1)?.cursor },
          parts.length % 2 === 0 ? {} : { snapshots: "persistent" },
        );
        assert.equal(next.isError, false, JSON.stringify(next.error));
        parts.push(next.envelope);
      }
      assert.ok(parts.length >= 3);
      assert.equal(parts.map((p) => p.content.map((c: { text: string }) => c.text).join("")).join(""), PAGE);
      assert.equal(site.requests.filter((r) => r.url === "/long").length - fetched, 1);
      assert.equal(existsSync(join(base, "cache")), false);
      const stolen = await read({ cursor: parts[0]?.cursor }, {}, "http:b");
      assert.equal(stolen.isError && stolen.error?.code, "cursor_not_found");
    });

    it("while Redis is away a long read is store_unavailable (no cursor kept elsewhere); a short one needs no store", async () => {
      const own = await startRedis();
      const saved = env;
      env = { ...saved, EVIDENT_SNAPSHOT_STORE: own.url };
      try {
        const first = await read({ url: `${site.url}/long` });
        assert.equal(first.isError, false);
        await own.stop();
        const down = await read({ cursor: first.envelope.cursor });
        assert.equal(down.isError && down.error?.code, "store_unavailable");
        const long = await read({ url: `${site.url}/long` });
        assert.equal(long.isError && long.error?.code, "store_unavailable");
        assert.match(
          long.error?.message ?? "",
          /EVIDENT_SNAPSHOT_STORE.*web_read cannot keep or continue long pages/s,
        );
        const short = await read({ url: `${site.url}/short` });
        assert.equal(short.isError, false);
        assert.equal(short.envelope.cursor, undefined);
      } finally {
        env = saved;
        await own.stop();
      }
    });
  });
});
