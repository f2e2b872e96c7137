/**
 * The memory benchmarks' shared harness (bench/hardening/stdio-server.ts): the server's
 * environment settings, calls kept in flight, the built server over stdio and its resident set;
 * and the benchmarks use it rather than copies of their own.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  residentMb,
  residentSplit,
  runCalls,
  serverEnv,
  startStdioServer,
} from "../../bench/hardening/stdio-server.js";
import { treesRemovedAfter } from "../code/helpers.js";
import { EVIDENT_CLI, homeEnv } from "../helpers/built-cli.js";

const tree = treesRemovedAfter(after);
const bench = join(import.meta.dirname, "../../bench/hardening");

describe("the memory benchmarks' harness", () => {
  it("--env NAME=VALUE settings, repeatable; anything else is not one", () => {
    assert.deepEqual(
      serverEnv([
        "node",
        "soak.ts",
        "--env",
        "A=1",
        "--calls",
        "5",
        "--env",
        "B=x=y",
        "--env",
        "=z",
        "--env",
      ]),
      { A: "1", B: "x=y" },
    );
  });

  it("keeps the asked number of calls in flight and stops at the count", async () => {
    let done = 0;
    let inFlight = 0;
    let most = 0;
    const one = async () => {
      done++;
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => setImmediate(resolve));
      inFlight--;
    };
    await runCalls(3, 10, () => done, one);
    assert.equal(done, 10);
    assert.equal(most, 3);
  });

  it("starts the built server over stdio, answers requests, reads its resident set, and closes it", async () => {
    const home = await tree({});
    const { pid, request, close } = await startStdioServer<{ result?: { tools?: { name: string }[] } }>({
      cli: EVIDENT_CLI,
      cwd: home,
      env: homeEnv(home),
      client: "harness-test",
    });
    // Closed whatever the assertions find: a server left running would hold the file open.
    try {
      const listed = await request("tools/list", {});
      assert.ok(listed.result?.tools?.some((t) => t.name === "code_search"));
      assert.ok(residentMb(pid) > 0);
      assert.ok(residentMb(pid, "VmHWM") >= residentMb(pid) - 1);
      assert.match(
        residentSplit(pid),
        /^C heap [\d.]+ MB, other anonymous [\d.]+ MB, file-backed [\d.]+ MB, \d+ threads$/,
      );
    } finally {
      await close();
    }
  });

  it("soak.ts and mix.ts use it instead of their own copies", async () => {
    for (const file of ["soak.ts", "mix.ts"]) {
      const source = await readFile(join(bench, file), "utf8");
      assert.match(source, /from "\.\/stdio-server\.js"/, file);
      assert.doesNotMatch(source, /createInterface|\/proc\/\$\{pid\}\/smaps|"--env" \?/, file);
    }
  });
});
