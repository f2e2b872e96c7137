#!/usr/bin/env node
// A Markdown table of two per-file.mjs runs, file by file, ordered by the first run's CPU time.
// Usage: node bench/test-suite/compare.mjs before.json after.json
import { readFileSync } from "node:fs";

const [before, after] = process.argv.slice(2).map((path) => JSON.parse(readFileSync(path, "utf8")));
const s = (ms) => (ms === undefined ? "-" : (ms / 1000).toFixed(1));
const rows = new Map();
for (const row of before.files) rows.set(row.file, { before: row });
for (const row of after.files) rows.set(row.file, { ...rows.get(row.file), after: row });
const ordered = [...rows].sort(
  ([, a], [, b]) =>
    (b.before?.cpuMs ?? Number.POSITIVE_INFINITY) - (a.before?.cpuMs ?? Number.POSITIVE_INFINITY),
);
console.log("| file | CPU s before | CPU s after | wall s before | wall s after |");
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const [file, { before: b, after: a }] of ordered) {
  console.log(`| ${file} | ${s(b?.cpuMs)} | ${s(a?.cpuMs)} | ${s(b?.ms)} | ${s(a?.ms)} |`);
}
console.log(
  `| **all ${rows.size} files** | **${s(before.cpuMs)}** | **${s(after.cpuMs)}** | **${s(before.wallMs)}** (whole run) | **${s(after.wallMs)}** (whole run) |`,
);
