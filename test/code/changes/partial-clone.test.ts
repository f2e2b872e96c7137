/**
 * A change-scoped search in a partial (promisor) clone whose promisor is gone, through the CLI
 * (a process of the built executable) and MCP stdio: a file whose other side Git lacks is named
 * as not covered, with Git's cause, and the files Git can compare are still searched.
 *
 * Git before 2.45 has no `--no-lazy-fetch`, so evident refuses a partial clone there (see
 * changes.test.ts). Where the installed Git is older, these tests run it behind a small script
 * that reports 2.45 and drops that option: Git then dies at the missing object in its own words.
 * Debian's 2.39.5 already honours GIT_NO_LAZY_FETCH, which evident sets, and says what 2.47 says
 * ("lazy fetching disabled", then "could not fetch <id> from promisor remote", exit 128); a Git
 * without it tries the fetch, which the safety overrides refuse (no network at all).
 */
import assert from "node:assert/strict";
import { chmod, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/client";
import { findOnPath } from "../../../src/core/executables.js";
import { connectInProcess, evidentProcess } from "../../adapters/run-evident.js";
import { textOf } from "../../helpers/mcp-client.js";
import { commit, git, gitVersion, reposRemovedAfter } from "../git/helpers.js";
import { treesRemovedAfter } from "../helpers.js";

const repo = reposRemovedAfter(after);
const tree = treesRemovedAfter(after);

let clone: string;
let env: Record<string, string>;
/** The object Git lacks: a.ts before the last commit. */
let lacking: string;

interface Answer {
  status: string;
  matches?: Array<{ path: string; line: number; text: string }>;
  changes?: { notCovered: Array<{ path: string; reason: string }> };
}

/** PATH for evident: the installed Git, or (before 2.45) that Git behind the script above. */
async function gitPath(): Promise<string> {
  const path = process.env.PATH ?? "";
  const [major, minor] = gitVersion();
  if (major > 2 || (major === 2 && minor >= 45)) return path;
  const real = await findOnPath({ PATH: path }, "git");
  assert.ok(real !== undefined, "git is on PATH");
  const bin = await tree({});
  const script = join(bin, "git");
  await writeFile(
    script,
    [
      "#!/bin/sh",
      'for a; do shift; [ "$a" = "--no-lazy-fetch" ] || set -- "$@" "$a"; done',
      'for a; do [ "$a" = "--version" ] && { echo "git version 2.45.0"; exit 0; }; done',
      `exec '${real}' "$@"`,
      "",
    ].join("\n"),
  );
  await chmod(script, 0o755);
  return `${bin}:${path}`;
}

before(async () => {
  const source = await repo({ "a.ts": "alpha one\n" });
  await commit(source, { "a.ts": "alpha one\nalpha two\n", "b.ts": "alpha added\n" });
  git(source, "config", "uploadpack.allowFilter", "true");
  lacking = git(source, "rev-parse", "HEAD~1:a.ts").trim();
  const parent = await tree({});
  // Checked out: HEAD's blobs are here, the earlier commit's are not.
  git(parent, "clone", "-q", "--filter=blob:none", `file://${source}`, "clone");
  clone = join(parent, "clone");
  // The promisor is unreachable from now on.
  await rename(source, `${source}-gone`);
  const home = await tree({});
  env = { PATH: await gitPath(), HOME: home, EVIDENT_CACHE_DIR: join(home, "cache") };
});

/** The answer names a.ts as not covered, with Git's cause, and keeps b.ts's added line. */
function assertPartial(answer: Answer): void {
  assert.equal(answer.status, "partial");
  assert.deepEqual(
    (answer.matches ?? []).map((m) => `${m.path}:${m.line}:${m.text}`),
    ["b.ts:1:alpha added"],
  );
  const [entry, ...rest] = answer.changes?.notCovered ?? [];
  assert.deepEqual(rest, []);
  assert.equal(entry?.path, "a.ts");
  assert.match(entry?.reason ?? "", /changed lines are unknown: Git lacks an object/);
  // Git's cause (the object it names), never its warning line.
  assert.match(entry?.reason ?? "", new RegExp(lacking));
  assert.doesNotMatch(entry?.reason ?? "", /lazy fetching disabled/);
}

describe("changes in a partial clone", () => {
  it("CLI: a file whose other side Git lacks is named, partial, not an internal error", async () => {
    const run = await evidentProcess(["grep", "alpha", "--changes", "HEAD~1..HEAD", "--mode", "matches"], {
      cwd: clone,
      env,
    });
    assert.equal(run.code, 0, run.stderr);
    assertPartial(JSON.parse(run.stdout) as Answer);
  });

  it("MCP stdio: the same partial answer", async () => {
    const client = new Client({ name: "partial-clone", version: "1.0.0" });
    const server = await connectInProcess(client, [], { cwd: clone, env });
    try {
      const result = await client.callTool({
        name: "code_search",
        arguments: { pattern: "alpha", changes: "HEAD~1..HEAD", mode: "matches" },
      });
      const text = textOf(result);
      assert.notEqual(result.isError, true, text);
      // The text the model reads: the kept line, and the file left out with Git's cause.
      assert.match(text, /b\.ts\n\[1\] 1:1 +alpha added/);
      assert.doesNotMatch(text, /alpha two/);
      assert.match(text, /PARTIAL: not covered: a\.ts \(its changed lines are unknown: Git lacks an object/);
      assert.match(text, new RegExp(lacking));
      assert.doesNotMatch(text, /lazy fetching disabled|internal_error/);
    } finally {
      await server.close();
    }
  });

  it("the clone still lacks the object: nothing was fetched", () => {
    const missing = git(clone, "rev-list", "--objects", "--missing=print", "HEAD~1");
    assert.match(missing, new RegExp(`^\\?${lacking}$`, "m"));
  });
});
