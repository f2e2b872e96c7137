#!/usr/bin/env node
// Wall and CPU time of each test file, each run alone in its own `node --test` process, N files
// at once (as scripts/run-tests.mjs runs them), so the files that hold the suite's time show by
// name. CPU time (user + system of the file's process and of every child it waited for) is what
// a shared machine's load changes least; wall time is what the suite's budget counts.
// Usage: node bench/test-suite/per-file.mjs [--concurrency N] [--out FILE.json] [dir-or-file ...]
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { testFiles } from "../../scripts/test-files.mjs";
import { buildTestFixtures } from "../../scripts/test-fixtures.mjs";

const args = process.argv.slice(2);
let concurrency = 4;
let out;
const roots = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--concurrency") concurrency = Number(args[++i]);
  else if (args[i] === "--out") out = args[++i];
  else roots.push(args[i]);
}

const files = testFiles(roots);
const results = [];
// The runner's guard against a test that waits for ever (scripts/run-tests.mjs).
const timeout = process.env.EVIDENT_TEST_TIMEOUT_MS ?? "300000";
const seconds = (ms) => `${(ms / 1000).toFixed(1).padStart(7)}s`;

// The shell's `times` prints its own CPU time, then that of the children it waited for: the test
// process, which includes every process that one waited for.
const SCRIPT = '"$0" "$@"; status=$?; times >&2; exit $status';

function runOne(file) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn(
      "/bin/sh",
      [
        "-c",
        SCRIPT,
        process.execPath,
        "--import",
        new URL("../../scripts/test-loader.mjs", import.meta.url).href,
        "--test",
        `--test-timeout=${timeout}`,
        "--test-reporter=tap",
        file,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let tap = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      tap += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (code) => {
      const ms = Math.round(Number(process.hrtime.bigint() - started) / 1e6);
      const count = (name) => Number(tap.match(new RegExp(`^# ${name} (\\d+)$`, "m"))?.[1] ?? 0);
      const times = stderr.trimEnd().split("\n").at(-1) ?? "";
      const [user = 0, system = 0] = [...times.matchAll(/(\d+)m([\d.]+)s/g)].map(
        (m) => Number(m[1]) * 60 + Number(m[2]),
      );
      const cpuMs = Math.round((user + system) * 1000);
      const row = {
        file,
        ms,
        cpuMs,
        code,
        pass: count("pass"),
        fail: count("fail") + count("cancelled"),
        skipped: count("skipped"),
      };
      results.push(row);
      process.stderr.write(`${seconds(ms)} ${seconds(cpuMs)} cpu  ${file} (exit ${code})\n`);
      resolve();
    });
  });
}

// The compiled fixtures some tests start, as scripts/run-tests.mjs builds them first.
if (!buildTestFixtures()) process.exit(1);

const started = Date.now();
const queue = [...files];
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) await runOne(file);
  }),
);
const wallMs = Date.now() - started;
results.sort((a, b) => b.cpuMs - a.cpuMs);
const cpuMs = results.reduce((sum, row) => sum + row.cpuMs, 0);
if (out) writeFileSync(out, `${JSON.stringify({ concurrency, wallMs, cpuMs, files: results }, null, 2)}\n`);
for (const row of results) {
  console.log(
    `${seconds(row.ms)} ${seconds(row.cpuMs)} cpu  ${row.file}  pass ${row.pass} fail ${row.fail} skipped ${row.skipped}`,
  );
}
console.log(
  `wall ${seconds(wallMs)}, cpu ${seconds(cpuMs)}, ${results.length} files, ${concurrency} at once`,
);
