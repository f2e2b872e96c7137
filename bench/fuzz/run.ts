/**
 * The long fuzz run (issue 18): CASES seeded argument objects per tool (web_search, web_read,
 * code_search) per transport (stdio, HTTP), each transport against a fresh server in its own
 * process, every outbound request kept on loopback (test/fuzz/world.ts). Fails (exit 1) on any
 * finding: a crash, an answer later than 10 s, an answer outside the documented shapes, an
 * internal_error, a key or token in an answer, the loopback canary reached, a process left
 * behind; reports the server's resident memory at the start, end and peak of each run.
 *
 *   npx tsx bench/fuzz/run.ts [--seed 1] [--cases 10000] [--first 0] [--concurrency 4]
 *                             [--transport stdio|http|both] [--tools web_search,web_read,code_search]
 *                             [--heap-mb N]
 *
 * Memory is judged twice. The server's V8 heap is capped (--max-old-space-size, `--heap-mb`,
 * default 192), so a server that keeps memory per call runs out of heap and crashes. And what it
 * keeps is measured, not guessed from its resident set (which also holds garbage not collected
 * yet, the young generation and native memory): before the cases, halfway and at the end it
 * collects its garbage and reports its live memory (test/fuzz/server.ts), which must end within
 * its live memory at the start plus what its stores may keep by design (the snapshot store's
 * and the kept pages' byte bounds) plus KEPT_CACHES_SLACK for its other bounded caches. The
 * resident set is reported, not judged.
 *
 * A finding prints its transport, tool and index: `--first INDEX --cases 1 --tools TOOL
 * --transport T` with the same seed replays that one case.
 */
import { KEPT_MAX_BYTES } from "../../src/core/limits.js";
import { fuzz, type LiveMemory } from "../../test/fuzz/harness.js";
import { startFuzzWorld } from "../../test/fuzz/world.js";

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
}

const SEED = Number(option("seed", "1"));
const CASES = Number(option("cases", "10000"));
const FIRST = Number(option("first", "0"));
const CONCURRENCY = Number(option("concurrency", "4"));
const TRANSPORT = option("transport", "both");
const TOOLS = option("tools", "web_search,web_read,code_search").split(",");
const HEAP_MB = Number(option("heap-mb", "192"));
const HANG_MS = 10_000;

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
/** What the server's other bounded caches may keep (revisions, syntax facts, file tables, mirrors). */
const KEPT_CACHES_SLACK = 32 * 1024 * 1024;

const world = await startFuzzWorld();
let failed = false;
try {
  console.log(
    `fuzz: seed ${SEED}, cases ${FIRST}..${FIRST + CASES - 1} per tool (${TOOLS.join(", ")}), concurrency ${CONCURRENCY}, server heap ${HEAP_MB > 0 ? `capped at ${HEAP_MB} MB` : "uncapped"}`,
  );
  const transports = TRANSPORT === "both" ? (["stdio", "http"] as const) : [TRANSPORT as "stdio" | "http"];
  for (const transport of transports) {
    const total = CASES * TOOLS.length;
    let shown = 0;
    const report = await fuzz({
      world,
      transport,
      seed: SEED,
      tools: TOOLS,
      cases: CASES,
      first: FIRST,
      concurrency: CONCURRENCY,
      hangMs: HANG_MS,
      ...(HEAP_MB > 0 ? { nodeOptions: `--max-old-space-size=${HEAP_MB}` } : {}),
      measureLive: true,
      onCase: (done) => {
        if (done - shown >= Math.max(1, Math.floor(total / 20)) || done === total) {
          shown = done;
          process.stderr.write(`  ${transport}: ${done}/${total}\n`);
        }
      },
    });
    const { live } = report;
    const keptBound =
      live?.start === undefined
        ? Number.NaN
        : live.start.heapUsed +
          live.start.external +
          // code_search's results and web_read's pages together, in one memory pool.
          KEPT_MAX_BYTES +
          KEPT_CACHES_SLACK;
    const kept = live?.end === undefined ? Number.NaN : live.end.heapUsed + live.end.external;
    const keptWithin = kept <= keptBound;
    const outcomes = Object.entries(report.outcomes)
      .sort((a, b) => b[1] - a[1])
      .map(([outcome, count]) => `${outcome} ${count}`)
      .join(", ");
    console.log(`\n${transport}: ${report.calls} calls in ${report.seconds.toFixed(0)} s`);
    console.log(`  outcomes: ${outcomes}`);
    const { slowest } = report;
    console.log(`  slowest answer ${slowest.ms.toFixed(0)} ms (${slowest.tool} #${slowest.index})`);
    console.log(
      `  server RSS start ${mb(report.rss.start)}, end ${mb(report.rss.end)}, peak ${mb(report.rss.peak)}; exit status ${report.exitCode}`,
    );
    const liveText = (m: LiveMemory | undefined) =>
      m === undefined ? "not reported" : `${mb(m.heapUsed)} heap + ${mb(m.external)} outside it`;
    console.log(
      `  live after a full collection: at the start ${liveText(live?.start)}, halfway ${liveText(live?.half)}, at the end ${liveText(live?.end)}: ${mb(kept)} kept, ${keptWithin ? "within" : "OVER"} ${mb(keptBound)}`,
    );
    console.log(
      `  leftover processes: ${report.leftover.length}${report.leftover.map((p) => `\n    ${p}`).join("")}`,
    );
    const byKind = new Map<string, number>();
    for (const finding of report.findings) byKind.set(finding.kind, (byKind.get(finding.kind) ?? 0) + 1);
    console.log(
      `  findings: ${report.findings.length}${[...byKind].map(([kind, count]) => ` ${kind} ${count}`).join(",")}`,
    );
    for (const finding of report.findings.slice(0, 30)) {
      console.log(
        `    ${finding.kind} ${finding.transport} ${finding.tool} #${finding.index}: ${finding.detail.slice(0, 200)}\n      args ${finding.args.slice(0, 200)}`,
      );
    }
    if (report.findings.length > 0 || report.leftover.length > 0 || !keptWithin || report.calls !== total) {
      failed = true;
    }
  }
  console.log(
    `\nloopback hits: vendors ${world.hits.vendor}, site ${world.hits.site} (tunnels ${world.hits.tunnels}, forwarded ${world.hits.forwarded}), canary ${world.hits.canary}`,
  );
  console.log(
    failed ? "FAILED" : "PASSED: no crash, hang, malformed answer, internal error, leak or leftover",
  );
} finally {
  await world.close();
}
process.exitCode = failed ? 1 : 0;
