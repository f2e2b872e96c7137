// Where a search scoped to changes spends its time (profiling aid, not a test): the same steps
// as one call, timed from outside the code (built dist/): opening the scope (Git's listing,
// working-tree content ids, the kept tree), the scan, the changed lines of the files it matched.
// Usage: node bench/analysis/change-spans.mjs REPO CHANGES(worktree|A..B) lines|files [ROUNDS]

import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cpuMs } from "./cpu.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const [repoArg, changes, changeScope, roundsArg] = process.argv.slice(2);
const cwd = resolve(repoArg);
const rounds = Number(roundsArg ?? 5);
const { openChangeScope, admittedLines } = await import(`${root}dist/code/changes/scope.js`);
const { MirrorCache } = await import(`${root}dist/code/changes/mirrors.js`);
const { ContentIds } = await import(`${root}dist/code/changes/worktree.js`);
const { Git } = await import(`${root}dist/code/git/process.js`);
const { resolveRgPath } = await import(`${root}dist/code/rg/binary.js`);
const { normalizeRequest } = await import(`${root}dist/code/request.js`);
const { resolveSearchTarget } = await import(`${root}dist/code/path-policy.js`);

const git = new Git({ env: process.env });
const deps = {
  git,
  mirrors: new MirrorCache(),
  contentIds: new ContentIds(),
  rgPath: (await resolveRgPath(process.env.EVIDENT_RG_PATH, process.env)).path,
  env: process.env,
};
const request = normalizeRequest({
  pattern: "RuntimeGlobals",
  ignoreCase: false,
  changes,
  changeScope,
  mode: "summary",
});
const target = await resolveSearchTarget(cwd, undefined);
const signal = new AbortController().signal;
const now = () => Number(process.hrtime.bigint()) / 1e6;
for (let round = 0; round < rounds; round++) {
  const c0 = cpuMs();
  const t0 = now();
  const scope = await openChangeScope(deps, target, request.changes, signal);
  const t1 = now();
  const c1 = cpuMs();
  const scanned = await scope.scan(request.query, signal);
  const t2 = now();
  const c2 = cpuMs();
  const admit = await scope.admission(
    scanned.table.list.map((m) => m.path),
    signal,
  );
  const t3 = now();
  const c3 = cpuMs();
  const kept = admittedLines(scanned.table.list, admit);
  const t4 = now();
  await scope.dispose();
  console.log(
    `total ${(t4 - t0).toFixed(1)} ms: open ${(t1 - t0).toFixed(1)}, scan ${(t2 - t1).toFixed(1)} (${scanned.table.length} lines), ` +
      `admission ${(t3 - t2).toFixed(1)}, admit ${(t4 - t3).toFixed(1)} (${kept.length} lines); ` +
      `CPU open ${(c1 - c0).toFixed(0)}, scan ${(c2 - c1).toFixed(0)}, admission ${(c3 - c2).toFixed(0)}`,
  );
}
await deps.mirrors.close();
