// A measuring process for bench.ts, driven by one JSON request per stdin line and answering one
// JSON line per request, each timed here (so the pipe to the bench is not part of it).
//
//   node host.mjs rg          raw ripgrep, output read and discarded: the baseline
//   node host.mjs sdk DIR [BUILD]
//                             code_search in process, as an SDK user runs it (dist/ of this
//                             checkout, or of the checkout BUILD: an earlier build to compare)
//
// (host-spawn.py is a third: raw ripgrep started with posix_spawn instead of Node's fork.)
//
// Each subject gets a process of its own because starting a child costs time in proportion to
// the memory of the process that starts it (fork copies its page tables): ripgrep launched from
// the benchmark's own process would pay for everything the benchmark holds, and code_search
// would not pay for the snapshots it keeps.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { rgPath } from "@vscode/ripgrep";

const root = fileURLToPath(new URL("../../", import.meta.url));
const [mode, dir, build] = process.argv.slice(2);
const dist = `${build === undefined ? root : `${build}/`}dist`;

function rawRg({ cwd, args }) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(rgPath, args, { cwd, stdio: ["ignore", "pipe", "ignore"] });
    let bytes = 0;
    child.stdout.on("data", (chunk) => {
      bytes += chunk.length;
    });
    child.on("error", reject);
    child.on("close", () => resolve({ ms: Number(process.hrtime.bigint() - start) / 1e6, bytes }));
  });
}

async function timed(fn) {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

let handle;
if (mode === "rg") {
  handle = rawRg;
} else if (mode === "sdk" && dir !== undefined) {
  const { CodeSearchService } = await import(`${dist}/code/service.js`);
  const { silentLogger } = await import(`${dist}/core/logger.js`);
  const { REVISION_CACHE_TTL_MS } = await import(`${dist}/core/limits.js`);
  // The warm service's clock can be moved on, to search a scope whose enumeration has aged.
  let clockOffset = 0;
  // As the SDK and the servers build it. A build from before issue 32 kept the next search's
  // ripgrep started when asked (`prestart`), as they asked; later builds have no such option.
  const make = (now) =>
    new CodeSearchService({
      cwd: dir,
      env: process.env,
      logger: silentLogger,
      revisionCache: { now },
      prestart: {},
    });
  const service = make(() => Date.now() + clockOffset);
  const call = () => ({ caller: "bench", signal: new AbortController().signal });
  handle = async (request) => {
    if (request.op === "idle") {
      // Background work (a stale scope's new enumeration) finished: nothing runs meanwhile.
      await service.idle();
      return {};
    }
    if (request.op === "stale") {
      // As after an agent's pause longer than the time to live: the search finds the scope's
      // enumeration stale. It is timed alone; the enumeration it starts afterwards is awaited
      // untimed, so it overlaps nothing measured.
      clockOffset += REVISION_CACHE_TTL_MS + 1;
      const stale = await timed(() => service.run(request.input, call()));
      await service.idle();
      return { ms: stale.ms };
    }
    if (request.op === "cold") {
      // A new service has no revision cache, so it pays for the names-only enumeration.
      const fresh = make(Date.now);
      const cold = await timed(() => fresh.run(request.input, call()));
      await fresh.close();
      return { ms: cold.ms };
    }
    const { ms, value } = await timed(() => service.run(request.input, call()));
    return { ms, text: value.text, data: value.data, rssMiB: process.memoryUsage().rss / 2 ** 20 };
  };
} else {
  throw new Error("usage: host.mjs rg | host.mjs sdk DIR [BUILD]");
}

for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line);
  const answer = await handle(request);
  process.stdout.write(`${JSON.stringify({ id: request.id, ...answer })}\n`);
}
