/**
 * ripgrep runs in the environment the caller handed down (config/ settings' childEnvironment),
 * as Git and ctags do: a variable only evident's own process has never reaches it. A ripgrep
 * configuration file (RIPGREP_CONFIG_PATH) changes nothing either way: every ripgrep runs with
 * `--no-config` (rg/args.ts).
 */
import assert from "node:assert/strict";
import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { commit, GIT_ENV, reposRemovedAfter, write } from "../git/helpers.js";
import { RG, treesRemovedAfter } from "../helpers.js";
import { ctx, makeService } from "../service-helpers.js";

const tree = treesRemovedAfter(after);
const repo = reposRemovedAfter(after);

/** A ripgrep configuration that would make "Needle" match "needle" if ripgrep read it. */
async function ignoreCaseConfig(): Promise<string> {
  const dir = await tree({ ripgreprc: "--ignore-case\n" });
  return join(dir, "ripgreprc");
}

/** ripgrep behind a script that appends the environment it was given to `log`, one block per run. */
async function recordingRg(): Promise<{ rgPath: string; log: string }> {
  const dir = await tree({});
  const log = join(dir, "env.log");
  const rgPath = join(dir, "rg");
  await writeFile(
    rgPath,
    `#!/bin/sh\nexport -p >> '${log}'\necho '--- run' >> '${log}'\nexec '${RG}' "$@"\n`,
  );
  await chmod(rgPath, 0o755);
  return { rgPath, log };
}

/** The environment of each ripgrep run the log recorded. */
async function runs(log: string): Promise<string[]> {
  const text = await readFile(log, "utf8");
  return text.split("--- run\n").filter((block) => block.trim() !== "");
}

describe("ripgrep's environment", () => {
  it("a variable the caller did not hand down never reaches ripgrep; one it did, does", async (t) => {
    const config = await ignoreCaseConfig();
    // In evident's own process only, as a stray variable of the shell that started it would be.
    process.env.RIPGREP_CONFIG_PATH = config;
    t.after(() => {
      delete process.env.RIPGREP_CONFIG_PATH;
    });
    const root = await repo({ "a.ts": "needle one\n", "b.ts": "other\n" });
    await write(root, { "a.ts": "needle one\nneedle two\n" });
    const { rgPath, log } = await recordingRg();
    const s = makeService(root, { env: { ...GIT_ENV, EVIDENT_HANDED_DOWN: "yes" }, rgPath });
    try {
      // A search (its enumeration and its content search), a files listing and a change scope's search.
      await s.run({ pattern: "needle" }, ctx());
      await s.run({ pattern: "needle", changes: "worktree" }, ctx());
      await s.run({ structure: "needle", path: "." }, ctx()).catch(() => undefined);
    } finally {
      await s.close();
    }
    const seen = await runs(log);
    assert.ok(seen.length >= 3, `ripgrep ran ${seen.length} times`);
    for (const environment of seen) {
      assert.match(environment, /EVIDENT_HANDED_DOWN='?yes/);
      assert.doesNotMatch(environment, /RIPGREP_CONFIG_PATH/);
    }
  });

  it("RIPGREP_CONFIG_PATH handed down changes no result: ripgrep runs with --no-config", async () => {
    const config = await ignoreCaseConfig();
    const root = await repo({ "a.ts": "needle one\n" });
    await commit(root, { "a.ts": "needle one\nneedle two\n" });
    const answers: string[][] = [];
    for (const env of [GIT_ENV, { ...GIT_ENV, RIPGREP_CONFIG_PATH: config }]) {
      const s = makeService(root, { env });
      try {
        const plain = await s.run({ pattern: "Needle" }, ctx());
        const changed = await s.run({ pattern: "Needle", changes: "HEAD~1..HEAD" }, ctx());
        const lower = await s.run({ pattern: "needle" }, ctx());
        answers.push([plain, changed, lower].map((r) => `${r.data.status}:${r.data.totalMatches}`));
      } finally {
        await s.close();
      }
    }
    // Smart case: "Needle" matches nothing, "needle" both lines; the configuration would change that.
    assert.deepEqual(answers[0], ["complete:0", "complete:0", "complete:2"]);
    assert.deepEqual(answers[1], answers[0]);
  });
});
