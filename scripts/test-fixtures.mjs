// Compiles the tests and what they import (src/, test/, bench/) into build/ without a type check
// (tsconfig.test-fixtures.json; `npm run lint` checks types): each test file's process then runs
// them through scripts/test-loader.mjs instead of tsx, and the fixtures tests start as processes
// of their own (test/fixtures/spawned.ts) run from there. Used by scripts/run-tests.mjs and
// bench/test-suite/per-file.mjs.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const PROJECT = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
/** Written when a build succeeds, dated when it started. */
const STAMP = "build/.fixtures-built";

/**
 * Builds the fixtures unless build/ holds them compiled from the sources as they are now (its
 * stamp is newer than every file the build can read), as for a runner a test starts inside a
 * run that built them: rebuilding then would rewrite files the run's other tests are loading.
 * Returns false, having said why, when the build fails.
 */
export function buildTestFixtures(project = PROJECT) {
  if (fixturesCurrent(project)) return true;
  const started = new Date();
  const built = spawnSync(
    process.execPath,
    [join(project, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.test-fixtures.json"],
    { cwd: project, stdio: "inherit" },
  );
  if (built.status !== 0) {
    console.error("building the tests (tsconfig.test-fixtures.json) failed");
    return false;
  }
  // Stamped with the build's start: a file changed while it ran is newer, so it is built again.
  writeFileSync(join(project, STAMP), "");
  utimesSync(join(project, STAMP), started, started);
  return true;
}

const INPUTS = ["src", "test", "bench", "package.json", "tsconfig.json", "tsconfig.test-fixtures.json"];

/**
 * Whether every file the build names exists compiled and the stamp is newer than every file the
 * build reads, and than every folder it reads (a file added or removed).
 */
export function fixturesCurrent(project) {
  const built = stamped(project);
  if (built === undefined) return false;
  const config = JSON.parse(readFileSync(join(project, "tsconfig.test-fixtures.json"), "utf8"));
  const outputs = config.include
    .filter((source) => source.endsWith(".ts"))
    .map((source) => join(project, "build", source.replace(/\.ts$/, ".js")));
  return outputs.every((output) => existsSync(output)) && newestInput(project, false) < built;
}

/**
 * Whether the compiled tests are those of the sources as they are now: the stamp is newer than
 * every TypeScript file and configuration the build reads (scripts/test-loader.mjs runs the
 * compiled tests only then). A test that writes files of its own under test/, or an edit of a
 * bench's notes, leaves the compiled files current.
 */
export function testBuildCurrent(project) {
  const built = stamped(project);
  return built !== undefined && newestInput(project, true) < built;
}

function stamped(project) {
  try {
    return statSync(join(project, STAMP)).mtimeMs;
  } catch {
    return undefined;
  }
}

function newestInput(project, sourcesOnly) {
  let latest = 0;
  for (const input of INPUTS) {
    const path = join(project, input);
    if (existsSync(path)) latest = Math.max(latest, newest(path, sourcesOnly, true));
  }
  return latest;
}

/** The newest modification under path; with sourcesOnly, of its .ts files (and of path itself if named). */
function newest(path, sourcesOnly, named = false) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return !sourcesOnly || named || path.endsWith(".ts") ? stat.mtimeMs : 0;
  let latest = sourcesOnly ? 0 : stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry.startsWith(".") || entry === "node_modules") continue;
    latest = Math.max(latest, newest(join(path, entry), sourcesOnly));
  }
  return latest;
}
