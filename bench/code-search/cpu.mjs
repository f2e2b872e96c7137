// CPU time of a warm code_search query against raw `rg --json`, for a shared machine whose load
// makes wall times wander (bench.ts gives the wall figures and their intervals). Each subject in
// a process of its own, in alternating batches: raw ripgrep (spawnSync, its output read through
// a pipe and discarded), a new query through a warm CodeSearchService from this checkout's dist/
// and, with `--before DIR`, one from DIR's dist/. CPU is user + system time, the process's own
// (process.cpuUsage) plus that of the children it reaped meanwhile (/proc/self/stat), so a
// search pays for its ripgrep and ripgrep for nothing else. Medians of wall, CPU and minor page
// faults (memory touched for the first time, the same way counted; independent of the load).
//
// Usage: node bench/code-search/cpu.mjs --corpus DIR [--runs N] [--before DIR] [--smart]
//          -- RG FLAGS... PATTERN     (e.g. -- -F 'func '; -F means literal, -w whole word)
//        or -- -F -e TERM1 -e TERM2 ...  (an anyOf of those terms against `rg -F -e ...`)
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { rgPath } from "@vscode/ripgrep";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const argv = process.argv.slice(2);
const split = argv.indexOf("--");
const own = argv.slice(0, split);
const rgArgs = argv.slice(split + 1);
const arg = (name, fallback) => {
  const i = own.indexOf(name);
  return i >= 0 ? (own[i + 1] ?? fallback) : fallback;
};
const corpus = arg("--corpus", "");
const runs = Number(arg("--runs", "9"));
const before = arg("--before", "");
const pattern = rgArgs.at(-1);
const terms = rgArgs.flatMap((a, i) => (rgArgs[i - 1] === "-e" ? [a] : []));
const input = {
  ...(terms.length > 0 ? { anyOf: terms } : { pattern, literal: rgArgs.includes("-F") }),
  wholeWord: rgArgs.includes("-w"),
  ...(rgArgs.includes("-S") ? {} : { ignoreCase: false }),
};

function selfStat() {
  const stat = readFileSync("/proc/self/stat", "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}
function childCpuMs() {
  const fields = selfStat();
  return (Number(fields[13]) + Number(fields[14])) * 10;
}
/** Minor page faults of the process and of the children it reaped: memory first touched. */
function faults() {
  const fields = selfStat();
  return Number(fields[7]) + Number(fields[9]);
}
function cpuMs() {
  const own = process.cpuUsage();
  return (own.user + own.system) / 1000 + childCpuMs();
}

async function service(build) {
  const { CodeSearchService } = await import(join(build, "dist/code/service.js"));
  const { silentLogger } = await import(join(build, "dist/core/logger.js"));
  // Under valgrind a search outlasts the default deadline: EVIDENT_CODE_SEARCH_DEADLINE_MS moves it.
  const deadline = Number(process.env.EVIDENT_CODE_SEARCH_DEADLINE_MS ?? "0");
  const settings = deadline > 0 ? { settings: { deadlineMs: deadline } } : {};
  const s = new CodeSearchService({ cwd: corpus, env: process.env, logger: silentLogger, ...settings });
  const ctx = () => ({ caller: "bench", signal: new AbortController().signal });
  // The scope enumerated, as on a warm server.
  const { anyOf: _, ...plain } = input;
  await s.run({ ...plain, pattern: "evident bench keeps this scope warm" }, ctx());
  await s.idle();
  return async () => {
    const r = await s.run(input, ctx());
    return r.data.totalMatches ?? r.data.totalItems ?? r.data.analysis?.totalItems;
  };
}

/** One subject measured in a process of its own (`--host NAME`), printing its samples as JSON. */
async function host(name) {
  const run =
    name === "rg --json"
      ? () => spawnSync(rgPath, ["--json", ...rgArgs, "."], { cwd: corpus, maxBuffer: 1 << 30 }).status
      : await service(name === "code_search" ? repo : before);
  const samples = [];
  let result;
  for (let round = -2; round < runs; round++) {
    const c0 = cpuMs();
    const f0 = faults();
    const t0 = performance.now();
    result = await run();
    const ms = performance.now() - t0;
    if (round >= 0) samples.push({ ms, cpu: cpuMs() - c0, faults: faults() - f0 });
  }
  console.log(JSON.stringify({ samples, result }));
}

if (own.includes("--host")) {
  await host(arg("--host", ""));
  process.exit(0);
}

// Each subject in a process of its own (a service's snapshots and collections never land on
// another's measurement), in BATCHES alternating batches, so load that comes and goes reaches
// every subject alike.
const BATCHES = 3;
const names = ["rg --json", "code_search", ...(before === "" ? [] : ["before"])];
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(`corpus ${corpus}, rg ${JSON.stringify(rgArgs)}, ${BATCHES} x ${runs} runs, load ${load()}`);
const wall = new Map(names.map((n) => [n, []]));
const cpu = new Map(names.map((n) => [n, []]));
const minor = new Map(names.map((n) => [n, []]));
const result = new Map();
for (let batch = 0; batch < BATCHES; batch++) {
  for (const name of batch % 2 === 0 ? names : [...names].reverse()) {
    const out = spawnSync(
      process.execPath,
      [fileURLToPath(import.meta.url), ...own, "--host", name, "--", ...rgArgs],
      {
        encoding: "utf8",
        maxBuffer: 1 << 26,
      },
    );
    if (out.status !== 0) throw new Error(`${name}: ${out.stderr}`);
    const { samples, result: r } = JSON.parse(out.stdout);
    for (const s of samples) {
      wall.get(name).push(s.ms);
      cpu.get(name).push(s.cpu);
      minor.get(name).push(s.faults);
    }
    result.set(name, r);
  }
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const rgWall = median(wall.get("rg --json"));
const rgCpu = median(cpu.get("rg --json"));
for (const name of names) {
  const w = median(wall.get(name));
  const c = median(cpu.get(name));
  console.log(
    `${name.padEnd(12)} wall ${w.toFixed(1).padStart(8)} ms (${(w / rgWall).toFixed(2)}x, +${(w - rgWall).toFixed(1)})` +
      `   cpu ${c.toFixed(0).padStart(6)} ms (${(c / rgCpu).toFixed(2)}x)   faults ${median(minor.get(name))}` +
      `   result ${result.get(name)}`,
  );
}
console.log(`load ${load()}`);
process.exit(0);
