#!/usr/bin/env node
// Runs every test file (test/**/*.test.ts) with Node's built-in runner, TypeScript compiled once
// into build/ and loaded from there (scripts/test-loader.mjs).
// Node 20's runner does not expand globs, so the files are listed here.
// Usage: node scripts/run-tests.mjs [dir-or-file ...]   (default: test/)
import { spawnSync } from "node:child_process";
import { testFiles } from "./test-files.mjs";
import { buildTestFixtures } from "./test-fixtures.mjs";

const roots = process.argv.slice(2);
const files = testFiles(roots);
if (files.length === 0) {
  console.error("no test files found");
  process.exit(1);
}
// The tests, and the fixtures they start as processes of their own, compiled into build/ first.
if (!buildTestFixtures()) process.exit(1);

const concurrency = process.env.EVIDENT_TEST_CONCURRENCY ?? "4";
// A test that waits for an event that never comes would otherwise hang CI until it is killed,
// naming nothing; with a timeout it fails under its own name. Far above any test's
// duration on a loaded machine, so it is a guard, not a measurement.
const timeout = process.env.EVIDENT_TEST_TIMEOUT_MS ?? "300000";
// Node's own report, then the counts and the skipped tests' reasons (scripts/test-reporter.mjs).
const reporter = new URL("./test-reporter.mjs", import.meta.url).href;
const loader = new URL("./test-loader.mjs", import.meta.url).href;
const result = spawnSync(
  process.execPath,
  [
    "--import",
    loader,
    "--test",
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${timeout}`,
    `--test-reporter=${reporter}`,
    "--test-reporter-destination=stdout",
    ...files,
  ],
  { stdio: "inherit" },
);
process.exit(result.status ?? 1);
