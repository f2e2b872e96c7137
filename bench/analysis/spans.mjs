// Where an anyOf's time goes (profiling aid, not a test): the same work as one call, split
// into spans measured from outside the code (built dist/): the candidate scans (ripgrep,
// indexing, the re-check of retained files), the per-term search of their lines, retention,
// the first page. Usage: node bench/analysis/spans.mjs REPO N_TERMS [ROUNDS]
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cpuMs } from "./cpu.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const [repoArg, nArg, roundsArg] = process.argv.slice(2);
const cwd = resolve(repoArg);
const n = Number(nArg ?? 8);
const rounds = Number(roundsArg ?? 5);
const { SearchExecutor, newFollowUp } = await import(`${root}dist/code/search/executor.js`);
const { scanAnyOf } = await import(`${root}dist/code/analysis/any-of.js`);
const { retain } = await import(`${root}dist/code/analysis/store.js`);
const { analysisPage } = await import(`${root}dist/code/analysis/answers.js`);
const { memorySnapshotStore } = await import(`${root}dist/code/snapshots/store.js`);
const { normalizeRequest } = await import(`${root}dist/code/request.js`);
const { resolveSearchTarget } = await import(`${root}dist/code/path-policy.js`);
const { silentLogger } = await import(`${root}dist/core/logger.js`);
const { phrasingFor } = await import(`${root}dist/core/phrasing.js`);

const terms = [...readFileSync(join(cwd, "lib/index.js"), "utf8").matchAll(/get ([A-Z][A-Za-z]+)\(\)/g)]
  .map((m) => m[1])
  .slice(0, n);
const executor = new SearchExecutor({ env: process.env, logger: silentLogger });
const store = memorySnapshotStore();
const request = normalizeRequest({ anyOf: terms, ignoreCase: false });
const target = await resolveSearchTarget(cwd, undefined);
const now = () => Number(process.hrtime.bigint()) / 1e6;

for (let round = 0; round < rounds; round++) {
  const followUp = newFollowUp();
  const scans = [];
  const c0 = cpuMs();
  const t0 = now();
  const scanned = await scanAnyOf(
    request,
    async (query, signal) => {
      const s = now();
      const { run, trusted } = await executor.execute(query, target, { signal, followUp });
      scans.push([s - t0, now() - t0, run.table.length]);
      return { table: run.table, partialReason: run.partialReason, searchErrors: run.searchErrors, trusted };
    },
    undefined,
    new AbortController().signal,
  );
  const t1 = now();
  const c1 = cpuMs();
  const data = retain({
    operation: "anyOf",
    subject: "anyOf",
    requestedRoot: ".",
    effectiveRoot: ".",
    expanded: false,
    rgCwd: target.rg.cwd,
    terms: request.terms,
    ...scanned,
    notes: [],
  });
  const t2 = now();
  const answer = await analysisPage(
    store,
    "bench",
    data,
    undefined,
    0,
    { limit: undefined, redact: false },
    phrasingFor("mcp"),
  );
  const t3 = now();
  const c3 = cpuMs();
  executor.followUp(followUp);
  await executor.idle();
  const lastScan = Math.max(...scans.map((s) => s[1]));
  console.log(
    `total ${(t3 - t0).toFixed(1)} ms: scans end ${lastScan.toFixed(1)} [${scans.map(([a, b, l]) => `${a.toFixed(0)}-${b.toFixed(0)}:${l}`).join(" ")}], ` +
      `after scans ${(t1 - t0 - lastScan).toFixed(1)}, retain ${(t2 - t1).toFixed(1)}, page ${(t3 - t2).toFixed(1)} (${answer.data.totalItems} items); ` +
      `CPU scans and terms ${(c1 - c0).toFixed(0)} (ripgrep included), retain and page ${(c3 - c1).toFixed(0)}`,
  );
}
await executor.close();
