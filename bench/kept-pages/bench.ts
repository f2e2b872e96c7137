/**
 * web_read's kept pages in the shared store (not a test). With a redis-server started here on a
 * free loopback port, for pages of a few sizes up to what a 4 MiB response can hold, it reports:
 *   - bytes Redis stores for the page (what the bounds count) against its characters;
 *   - bytes Redis sends to continue one part (the whole kept page is read: see ARCHITECTURE.md);
 *   - the median time to keep a page and to continue one part, the Redis store divided by the
 *     memory store, both measured alternately in this run.
 *
 * Usage: node --import tsx bench/kept-pages/bench.ts [--runs N]
 */
import { randomBytes } from "node:crypto";
import { createClient } from "@redis/client";
import { sharedStoreSettings } from "../../src/config/settings.js";
import { type KeptOptions, type KeptStore, redoErrors } from "../../src/core/kept.js";
import { MemoryKeptStore } from "../../src/core/kept-memory.js";
import { KEPT_MAX_BYTES, WEB_PAGES_TTL_MS } from "../../src/core/limits.js";
import { RedisKeptStore } from "../../src/core/redis/kept-store.js";
import { deriveKeys } from "../../src/core/redis/settings.js";
import { type KeptPage, ReadPages } from "../../src/web/read-pages.js";
import { startRedis } from "../../test/servers/services.js";

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf("--runs") + 1] || 21);
const SIZES = [40_000, 400_000, 4_000_000];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

function page(chars: number): KeptPage {
  const line = "A line of extracted page text, with some words: évidence, 证据. ";
  return {
    provenance: {
      tool: "web_read",
      url: "https://example.com/long",
      mode: "reader",
      attempted: ["direct"],
      used: ["direct"],
      anonymous: [],
      retrievedAt: new Date().toISOString(),
    },
    title: "A long page",
    warnings: [],
    text: line.repeat(Math.ceil(chars / line.length)).slice(0, chars),
  };
}

async function main(): Promise<void> {
  const redis = await startRedis();
  const key = randomBytes(32).toString("hex");
  const settings = sharedStoreSettings({ EVIDENT_SNAPSHOT_STORE: redis.url, EVIDENT_CURSOR_KEY: key });
  if (settings === undefined) throw new Error("no settings");
  const client = createClient({ url: redis.url });
  await client.connect();
  const netOut = async () => Number(/total_net_output_bytes:(\d+)/.exec(await client.info("stats"))?.[1]);
  const bounds: KeptOptions = {
    ttlMs: WEB_PAGES_TTL_MS,
    maxBytes: KEPT_MAX_BYTES,
    errors: redoErrors("read the URL again"),
  };
  const stores: Record<"memory" | "redis", KeptStore<KeptPage>> = {
    memory: new MemoryKeptStore<KeptPage>(bounds),
    redis: new RedisKeptStore<KeptPage>({
      ...bounds,
      settings,
      keys: { cursor: settings.keys.keptCursor, data: settings.keys.keptData },
      scope: "pages:",
      tool: "web_read",
      consequence: "web_read cannot keep or continue long pages",
    }),
  };
  const pages = { memory: new ReadPages(stores.memory), redis: new ReadPages(stores.redis) };
  console.log(`kept pages, ${runs} runs each, medians (Redis on loopback, redis-server ${redis.url})`);
  console.log("chars | stored bytes | sent per part | keep ms mem / redis (x) | part ms mem / redis (x)");
  try {
    for (const chars of SIZES) {
      const value = page(chars);
      const keep = { memory: [] as number[], redis: [] as number[] };
      const part = { memory: [] as number[], redis: [] as number[] };
      let cursor = { memory: "", redis: "" };
      for (let run = 0; run < runs; run++) {
        for (const kind of ["memory", "redis"] as const) {
          const start = process.hrtime.bigint();
          const make = await pages[kind].keep("bench", value);
          keep[kind].push(ms(start));
          cursor = { ...cursor, [kind]: make.cursor(Math.floor(chars / 2)) ?? "" };
        }
        for (const kind of ["memory", "redis"] as const) {
          const start = process.hrtime.bigint();
          const resumed = await pages[kind].resume("bench", cursor[kind]);
          part[kind].push(ms(start));
          if (resumed.page.text.length !== chars) throw new Error("wrong page");
        }
      }
      const meta = await client.hGetAll(`evident:${deriveKeys(key).namespace}:pages:meta`);
      // Sizes only grow from one case to the next: the largest is this case's page.
      const stored = Math.max(...Object.values(meta).map((v) => Number(v.split(" ")[1])));
      const before = await netOut();
      await pages.redis.resume("bench", cursor.redis);
      const sent = (await netOut()) - before;
      const [km, kr, pm, pr] = [keep.memory, keep.redis, part.memory, part.redis].map(median) as [
        number,
        number,
        number,
        number,
      ];
      console.log(
        `${chars} | ${stored} | ${sent} | ${km.toFixed(2)} / ${kr.toFixed(2)} (${(kr / km).toFixed(0)}x) | ${pm.toFixed(2)} / ${pr.toFixed(2)} (${(pr / pm).toFixed(0)}x)`,
      );
    }
  } finally {
    await pages.memory.close();
    await pages.redis.close();
    await client.close();
    await redis.stop();
  }
}

await main();
