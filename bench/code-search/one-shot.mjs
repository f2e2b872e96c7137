// One-shot `evident grep` (a new process per search, as a shell or an agent's tool call runs it)
// against Node's own start (`node -e ''`) and raw `rg --json` with the same binary and
// arguments, each started from this process with spawnSync, interleaved round by round. With
// `--before DIR`, also the built CLI of the checkout DIR (built there): what a change was worth.
// Prints each subject's median wall time and CPU time (user + system, from /proc for the
// child's tree: getrusage of the reaped children), the goal's allowance (node + 1.25 x rg) and
// the load average before and after.
//
// Usage: node bench/code-search/one-shot.mjs --corpus DIR [--runs N] [--before DIR]
//          [-- GREP ARGS...]   (default: -F 'func ')
// The rg arguments are the grep arguments as given (`-F`, `-w`, `-i`, `-S` mean the same).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { rgPath } from "@vscode/ripgrep";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const argv = process.argv.slice(2);
const split = argv.indexOf("--");
const own = split === -1 ? argv : argv.slice(0, split);
const grepArgs = split === -1 ? ["-F", "func "] : argv.slice(split + 1);
const arg = (name, fallback) => {
  const i = own.indexOf(name);
  return i >= 0 ? (own[i + 1] ?? fallback) : fallback;
};
const corpus = arg("--corpus", "");
const runs = Number(arg("--runs", "7"));
const before = arg("--before", "");
if (corpus === "") throw new Error("--corpus DIR is required");

// Snapshots go to a private cache of this run, as a user's would go to theirs.
const cache = mkdtempSync(join(tmpdir(), "evident-one-shot-"));
const env = { ...process.env, EVIDENT_CACHE_DIR: cache };
const cli = (build) => join(build, "dist/adapters/cli/main.js");
const subjects = [
  ["node", process.execPath, ["-e", ""]],
  ["rg --json", rgPath, ["--json", ...grepArgs, "."]],
  ["evident grep", process.execPath, [cli(repo), "grep", ...grepArgs]],
  ...(before === "" ? [] : [["before", process.execPath, [cli(before), "grep", ...grepArgs]]]),
];

/** User + system CPU seconds of this process's reaped children so far (from /proc/self/stat). */
function childCpu() {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // cutime and cstime: fields 16 and 17 of stat, 14 and 15 after the command.
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(`corpus ${corpus}, grep ${JSON.stringify(grepArgs)}, ${runs} runs, load ${load()}`);
const wall = new Map(subjects.map(([name]) => [name, []]));
const cpu = new Map(subjects.map(([name]) => [name, []]));
for (let round = -1; round < runs; round++) {
  for (const [name, command, args] of subjects) {
    const cpuBefore = childCpu();
    const start = process.hrtime.bigint();
    const result = spawnSync(command, args, { cwd: corpus, env, stdio: "ignore", maxBuffer: 1 });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (result.status !== 0 && !(name === "rg --json" && result.status === 1))
      throw new Error(`${name} exited ${result.status}`);
    // The first round warms the page cache and is not counted.
    if (round >= 0) {
      wall.get(name).push(ms);
      cpu.get(name).push((childCpu() - cpuBefore) * 1000);
    }
  }
}
rmSync(cache, { recursive: true, force: true });
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
for (const [name] of subjects) {
  console.log(
    `${name.padEnd(14)} wall ${median(wall.get(name)).toFixed(0).padStart(6)} ms   cpu ${median(cpu.get(name))
      .toFixed(0)
      .padStart(6)} ms`,
  );
}
const allowance = median(wall.get("node")) + 1.25 * median(wall.get("rg --json"));
console.log(`goal: node + 1.25 x rg = ${allowance.toFixed(0)} ms (wall); load ${load()}`);
