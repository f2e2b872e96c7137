/**
 * Shared snapshot store benchmark (not a test). On the typescript@5.9.3 package (the code_search
 * bench's quick corpus, from `npm pack`) and a redis-server started here on a free loopback port,
 * for a few patterns from narrow to broad it reports:
 *   - bytes per retained match: what the memory store counts (ripgrep's protocol bytes and
 *     offsets), what the Redis store writes (compressed blocks, header, MACs), and what Redis
 *     reports using for the snapshot (MEMORY USAGE, its own overhead included);
 *   - bytes Redis sends for one 50-match page and for a summary page, against the stored size;
 *   - the median time of a 50-match cursor page and of the search that stores the snapshot,
 *     with the Redis store divided by the memory store, both measured alternately in this run.
 *
 * Usage: npm run build && node --import tsx bench/snapshots/bench.ts [--runs N]
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "@redis/client";
import type { CodeSearchInput } from "../../src/code/schema.js";
import { CodeSearchService } from "../../src/code/service.js";
import { redisSnapshots } from "../../src/code/snapshots/backends.js";
import { memorySnapshotStore, snapshotStore } from "../../src/code/snapshots/store.js";
import { sharedStoreSettings } from "../../src/config/settings.js";
import { SUMMARY_FILES_PER_PAGE } from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";
import { deriveKeys } from "../../src/core/redis/settings.js";
import { startRedis } from "../../test/servers/services.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const args = process.argv.slice(2);
const runs = Number(args[args.indexOf("--runs") + 1] || 15);

const CASES: ReadonlyArray<{ name: string; input: CodeSearchInput }> = [
  { name: "narrow: createSourceFile", input: { pattern: "createSourceFile", literal: true } },
  { name: "medium: \\bnew Map\\b", input: { pattern: "\\bnew Map\\b" } },
  { name: "broad: function", input: { pattern: "function", literal: true } },
  { name: "broad: const", input: { pattern: "const", literal: true } },
];

function corpus(): string {
  const dir = join(repo, "bench/.corpora/typescript-5.9.3");
  if (!existsSync(join(dir, "package"))) {
    mkdirSync(dir, { recursive: true });
    execFileSync("npm", ["pack", "typescript@5.9.3", "--pack-destination", dir, "--silent"], {
      stdio: "inherit",
    });
    execFileSync("tar", ["xzf", join(dir, "typescript-5.9.3.tgz"), "-C", dir], { stdio: "inherit" });
  }
  return join(dir, "package");
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

async function main(): Promise<void> {
  const cwd = corpus();
  const redis = await startRedis();
  const key = randomBytes(32).toString("hex");
  const settings = sharedStoreSettings({ EVIDENT_SNAPSHOT_STORE: redis.url, EVIDENT_CURSOR_KEY: key });
  if (settings === undefined) throw new Error("no settings");
  const namespace = `evident:${deriveKeys(key).namespace}:`;
  const client = createClient({ url: redis.url });
  await client.connect();
  const netOut = async () => Number(/total_net_output_bytes:(\d+)/.exec(await client.info("stats"))?.[1]);
  const env = { PATH: process.env.PATH };
  const memory = new CodeSearchService({ cwd, env, logger: silentLogger, store: memorySnapshotStore() });
  const shared = new CodeSearchService({
    cwd,
    env,
    logger: silentLogger,
    store: snapshotStore(redisSnapshots(settings)),
  });
  const call = (service: CodeSearchService, input: CodeSearchInput) =>
    service.run(input, { caller: "bench", signal: new AbortController().signal });

  console.log(
    `corpus: ${cwd}; redis-server on ${redis.url}; ${runs} timed runs per figure, alternating stores`,
  );
  console.log(
    "| case | matches | memory store B/match | Redis stored B/match | Redis MEMORY USAGE B/match | " +
      "page (50) read B | next summary page read B | page ms memory | page ms Redis | page ratio | " +
      "search ms memory | search ms Redis | search ratio |",
  );
  console.log(`|${" --- |".repeat(13)}`);
  try {
    for (const c of CASES) {
      const input: CodeSearchInput = { ...c.input, mode: "summary" };
      // Warm-up: the scope's enumeration, for both services.
      await call(memory, input);
      await call(shared, input);
      const metaBefore = await client.hGetAll(`${namespace}meta`);
      const summary = await call(shared, input);
      const cursor = summary.data.cursor as string;
      const id = Object.keys(await client.hGetAll(`${namespace}meta`)).find((i) => !(i in metaBefore));
      if (id === undefined) throw new Error("the snapshot was not stored");
      const stored = Number((await client.hGet(`${namespace}meta`, id))?.split(" ")[1]);
      const usage = Number(await client.memoryUsage(`${namespace}s:${id}`));
      const matches = summary.data.totalMatches ?? 0;
      // Protocol bytes and offsets, as the memory store counts them (SnapshotData.bytes).
      const memorySummary = await call(memory, input);
      const memoryState = memory.store.decodeCursor(memorySummary.data.cursor as string);
      const memoryBytes = (await memory.store.get("bench", memoryState.snapshotId)).bytes;
      let before = await netOut();
      await call(shared, { cursor, limit: 50 });
      const pageBytes = (await netOut()) - before;
      let summaryBytes: number | string = "-";
      if ((summary.data.totalFiles ?? 0) > SUMMARY_FILES_PER_PAGE) {
        before = await netOut();
        await call(shared, { cursor, mode: "summary" });
        summaryBytes = (await netOut()) - before;
      }

      const pageTimes = { memory: [] as number[], redis: [] as number[] };
      const searchTimes = { memory: [] as number[], redis: [] as number[] };
      const memoryCursor = memorySummary.data.cursor as string;
      for (let i = 0; i < runs; i++) {
        let start = process.hrtime.bigint();
        await call(memory, { cursor: memoryCursor, limit: 50 });
        pageTimes.memory.push(ms(start));
        start = process.hrtime.bigint();
        await call(shared, { cursor, limit: 50 });
        pageTimes.redis.push(ms(start));
        start = process.hrtime.bigint();
        await call(memory, input);
        searchTimes.memory.push(ms(start));
        start = process.hrtime.bigint();
        await call(shared, input);
        searchTimes.redis.push(ms(start));
      }
      const row = [
        c.name,
        matches,
        (memoryBytes / matches).toFixed(0),
        (stored / matches).toFixed(0),
        (usage / matches).toFixed(0),
        pageBytes,
        summaryBytes,
        median(pageTimes.memory).toFixed(2),
        median(pageTimes.redis).toFixed(2),
        (median(pageTimes.redis) / median(pageTimes.memory)).toFixed(2),
        median(searchTimes.memory).toFixed(1),
        median(searchTimes.redis).toFixed(1),
        (median(searchTimes.redis) / median(searchTimes.memory)).toFixed(2),
      ];
      console.log(`| ${row.join(" | ")} |`);
    }
  } finally {
    await memory.close();
    await shared.close();
    await client.close();
    await redis.stop();
  }
}

await main();
