// The TypeScript loader of each test file's process (scripts/run-tests.mjs passes it as
// `--import`): the file and the project's modules it imports run as compiled by the runner into
// build/ (scripts/test-fixtures.mjs), at their own .ts URLs, so import.meta.url and stack traces
// name the sources. tsx, which transforms each file in every process, still loads a file the
// build does not hold, and every file while the build is older than the sources.
import { existsSync } from "node:fs";
import * as nodeModule from "node:module";
import { relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { PROJECT, testBuildCurrent } from "./test-fixtures.mjs";

const entry = process.argv[1];
const compiled = (path) => resolve(PROJECT, "build", relative(PROJECT, path)).replace(/\.ts$/, ".js");

// The runner's own process (`node --test`) loads no TypeScript: its files run in processes of their own.
if (process.execArgv.includes("--test")) {
  // nothing to load
} else if (
  // module.register came with Node 20.6; an older Node 20 runs every file through tsx.
  typeof nodeModule.register === "function" &&
  entry?.endsWith(".ts") &&
  !relative(PROJECT, resolve(entry)).startsWith("..") &&
  existsSync(compiled(resolve(entry))) &&
  testBuildCurrent(PROJECT)
) {
  process.setSourceMapsEnabled(true);
  nodeModule.register("./test-loader-hooks.mjs", import.meta.url, {
    data: { root: pathToFileURL(`${PROJECT}/`).href, build: pathToFileURL(`${PROJECT}/build/`).href },
  });
} else {
  await import("tsx");
}
