#!/usr/bin/env node
// Wall time of each test file, each run alone in its own `node --test` process, N files at once
// (as scripts/run-tests.mjs runs them), so the files that hold the suite's time show by name.
// Usage: node bench/test-suite/per-file.mjs [--concurrency N] [--out FILE.json] [dir-or-file ...]
import { spawn } from "node:child_process";
import { readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const args = process.argv.slice(2);
let concurrency = 4;
let out;
const roots = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--concurrency") concurrency = Number(args[++i]);
  else if (args[i] === "--out") out = args[++i];
  else roots.push(args[i]);
}

function collect(path, acc) {
  if (statSync(path).isFile()) {
    if (path.endsWith(".test.ts")) acc.push(path);
    return acc;
  }
  for (const entry of readdirSync(path).sort()) {
    if (entry === "fixtures" || entry.startsWith(".")) continue;
    collect(join(path, entry), acc);
  }
  return acc;
}

const files = (roots.length > 0 ? roots : ["test"]).flatMap((root) => collect(root, []));
const results = [];

function runOne(file) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-reporter=tap", file], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let tap = "";
    child.stdout.on("data", (chunk) => {
      tap += chunk;
    });
    child.stderr.resume();
    child.on("close", (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const count = (name) => Number(tap.match(new RegExp(`^# ${name} (\\d+)$`, "m"))?.[1] ?? 0);
      const row = {
        file,
        ms: Math.round(ms),
        code,
        pass: count("pass"),
        fail: count("fail") + count("cancelled"),
        skipped: count("skipped"),
      };
      results.push(row);
      process.stderr.write(`${(ms / 1000).toFixed(1).padStart(7)}s ${file} (exit ${code})\n`);
      resolve();
    });
  });
}

const started = Date.now();
const queue = [...files];
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) await runOne(file);
  }),
);
const wallMs = Date.now() - started;
results.sort((a, b) => b.ms - a.ms);
const summary = { concurrency, wallMs, files: results };
if (out) writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
for (const row of results) {
  console.log(
    `${(row.ms / 1000).toFixed(1).padStart(7)}s  ${row.file}  pass ${row.pass} fail ${row.fail} skipped ${row.skipped}`,
  );
}
console.log(`wall ${(wallMs / 1000).toFixed(1)}s for ${results.length} files, ${concurrency} at once`);
