import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { chmod, rm, symlink, utimes } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { after, describe, it } from "node:test";
import { DiffParser, diffArgs, readDiff } from "../../../src/code/git/diff.js";
import { removeTree } from "../helpers.js";
import { commit, GIT_ENV, git, makeRepo, write } from "./helpers.js";

const repos: string[] = [];
after(async () => {
  await Promise.all(repos.map(removeTree));
});

/** The repository's own diff output, as our command asks for it, parsed in chunks of `size`. */
function parse(root: string, args: string[], size = Number.POSITIVE_INFINITY) {
  const out = spawnSync("git", args, { cwd: root, env: GIT_ENV });
  assert.equal(out.status, 0, out.stderr.toString());
  const parser = new DiffParser();
  for (let at = 0; at < out.stdout.length; at += size) parser.push(out.stdout.subarray(at, at + size));
  return { files: parser.finish(), bytes: out.stdout };
}

describe("git diff parsing", () => {
  it("an output destroyed before it is handed over fails the read instead of waiting forever", async () => {
    const stdout = new PassThrough();
    stdout.destroy();
    await once(stdout, "close");
    await assert.rejects(readDiff(stdout, new DiffParser(false)), /closed before it ended/);
  });

  it("lists each changed file with its hunks, names exact, whatever the quoting", async () => {
    const root = await makeRepo({ "a.txt": "one\ntwo\nthree\n", "keep.txt": "same\n" });
    repos.push(root);
    const base = git(root, "rev-parse", "HEAD").trim();
    await commit(root, {
      "a.txt": "one\nTWO\nthree\nfour\n",
      "sp ace.txt": "x\n",
      'quo"te.txt': "q\n",
      "tab\there.txt": "t\n",
      "é.txt": "e\n",
      "bin.dat": Buffer.from([0, 1, 2]),
    });
    const target = git(root, "rev-parse", "HEAD").trim();
    const { files } = parse(root, diffArgs({ kind: "commits", base, target }, ["."]));
    assert.deepEqual(
      files.map((f) => [f.path, f.status, f.binary, f.hunks.length]),
      [
        ["a.txt", "M", false, 2],
        ["bin.dat", "A", true, 0],
        ['quo"te.txt', "A", false, 1],
        ["sp ace.txt", "A", false, 1],
        ["tab\there.txt", "A", false, 1],
        ["é.txt", "A", false, 1],
      ],
    );
    assert.deepEqual(files[0]?.hunks, [
      { oldStart: 2, oldCount: 1, newStart: 2, newCount: 1 },
      { oldStart: 3, oldCount: 0, newStart: 4, newCount: 1 },
    ]);
  });

  it("reads the same files however the output is split into chunks", async () => {
    const root = await makeRepo({ "a.txt": "one\n".repeat(50) });
    repos.push(root);
    const base = git(root, "rev-parse", "HEAD").trim();
    await commit(root, { "a.txt": "two\n".repeat(60), "b c.txt": `${"x".repeat(70_000)}\n`, "d.txt": "d\n" });
    const target = git(root, "rev-parse", "HEAD").trim();
    const args = diffArgs({ kind: "commits", base, target }, ["."]);
    const whole = parse(root, args).files;
    assert.equal(whole.length, 3);
    for (const size of [1, 2, 3, 7, 64, 4096])
      assert.deepEqual(parse(root, args, size).files, whole, `chunks of ${size}`);
  });

  it("keeps a type change as one file and drops a file whose metadata alone differs", async () => {
    const root = await makeRepo({ "a.txt": "a\n", "touched.txt": "t\n" });
    repos.push(root);
    await symlink("a.txt", join(root, "link"));
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "link");
    await rm(join(root, "link"));
    await write(root, { link: "now a file\n" });
    // Same bytes, newer time: the index's stat data no longer matches.
    const later = new Date(Date.now() + 5_000);
    await utimes(join(root, "touched.txt"), later, later);
    await chmod(join(root, "a.txt"), 0o755);
    const head = git(root, "rev-parse", "HEAD").trim();
    const { files, bytes } = parse(root, diffArgs({ kind: "worktree", base: head }, ["."]));
    assert.match(bytes.toString("utf8"), /M\0touched\.txt\0/, "Git lists the touched file in its raw part");
    assert.deepEqual(
      files.map((f) => [f.path, f.status, f.oldMode, f.newMode, f.hunks.length]),
      [
        ["a.txt", "M", "100644", "100755", 0],
        ["link", "T", "120000", "100644", 2],
      ],
    );
    // Working-tree content has no object id in the raw part; the patch names the one Git computed.
    const link = files[1];
    assert.match(link?.newId ?? "", /^0+$/);
    assert.equal(link?.patchNewId, git(root, "hash-object", "link").trim());
  });
});
