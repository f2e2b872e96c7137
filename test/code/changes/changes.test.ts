import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { CodeSearchResponse } from "../../../src/code/service.js";
import { CHANGES_MAX_FILES } from "../../../src/core/limits.js";
import { commit, GIT_ENV, git, gitVersion, reposRemovedAfter, write } from "../git/helpers.js";
import { isRunning, treesRemovedAfter } from "../helpers.js";
import { ctx, makeService } from "../service-helpers.js";

const repo = reposRemovedAfter(after);
const tree = treesRemovedAfter(after);

/** Services closed when the file ends, so a test that fails before its close leaves no tree behind. */
const services: ReturnType<typeof makeService>[] = [];
after(async () => {
  await Promise.all(services.map((s) => s.close()));
});

/** The service with the test's Git environment (no global or system configuration). */
function service(root: string, extra: Parameters<typeof makeService>[1] = {}) {
  const s = makeService(root, { env: GIT_ENV, ...extra });
  services.push(s);
  return s;
}

/**
 * Where what a repository must not run would leave its trace: outside the repository (a file in
 * it would be a change), in a tree of its own that is removed with the others.
 */
const markerFile = async () => join(await tree({}), "ran");

/**
 * A program in the repository, as a repository could configure one: it leaves its name and
 * arguments in a marker file outside the repository and passes its input through, as a filter.
 */
async function tracingProgram(root: string): Promise<{ marker: string; evil: string }> {
  const marker = await markerFile();
  const evil = join(root, "evil.sh");
  await writeFile(evil, `#!/bin/sh\necho "$0 $*" >> '${marker}'\ncat\n`);
  await chmod(evil, 0o755);
  return { marker, evil };
}

const lines = (result: CodeSearchResponse) =>
  (result.data.matches ?? []).map((m) => `${m.path}:${m.line}:${m.text}`);

const SUBMODULE_CHANGED = "a submodule, its recorded commit changed: the files inside it are not compared";

const SUBMODULE_CHECKED_OUT =
  "a submodule checked out here: edits inside it are not looked for, so its files are not compared";

/** Commits `files` inside the checked-out submodule at `path`; returns the new commit. */
async function commitIn(root: string, path: string, files: Record<string, string>): Promise<string> {
  await commit(join(root, path), files);
  return git(join(root, path), "rev-parse", "HEAD").trim();
}

describe("changes", () => {
  it("keeps only occurrences on changed lines of the working tree, untracked files counting as added", async () => {
    const root = await repo({
      "a.ts": "needle 1\nkeep\nneedle 3\nkeep\nneedle 5\n",
      "gone.ts": "needle gone\n",
      "same.ts": "needle unchanged\n",
    });
    // Newer metadata, same bytes: Git lists it until it compares the content; it is no change.
    const later = new Date(Date.now() + 10_000);
    await utimes(join(root, "same.ts"), later, later);
    await write(root, {
      "a.ts": "needle 1\nneedle 2 new\nneedle 3\nkeep\nneedle 5 edited\n",
      "new.ts": "needle untracked\n",
    });
    git(root, "rm", "-q", "gone.ts");
    const s = service(root);
    const result = await s.run({ pattern: "needle", changes: "worktree" }, ctx());
    assert.deepEqual(lines(result), [
      "a.ts:2:needle 2 new",
      "a.ts:5:needle 5 edited",
      "new.ts:1:needle untracked",
    ]);
    assert.equal(result.data.status, "complete");
    assert.equal(result.data.changes?.source, "worktree");
    assert.equal(result.data.changes?.filesChanged, 2);
    assert.match(result.text, /Scoped to Git changes: working tree vs HEAD \([0-9a-f]{12}\), new side/);
    // The old side: what the changed lines were, and the deleted file, from Git objects.
    const old = await s.run({ pattern: "needle", changes: "worktree", changeSide: "old" }, ctx());
    assert.deepEqual(lines(old), ["a.ts:5:needle 5", "gone.ts:1:needle gone"]);
    assert.equal(old.data.changes?.source, "objects");
    assert.equal(old.data.sourceUnverifiedFileCount, 0);
    // Files scope: every occurrence of a changed file.
    const whole = await s.run({ pattern: "needle", changes: "worktree", changeScope: "files" }, ctx());
    assert.equal(whole.data.totalMatches, 5);
    assert.equal(whole.data.changes?.filesChanged, 2);
    const staged = await s.run(
      { pattern: "needle", changes: "staged", changeScope: "files", changeSide: "old" },
      ctx(),
    );
    assert.deepEqual(lines(staged), ["gone.ts:1:needle gone"]);
    await s.close();
  });

  it("admits the lines of a hunk and nothing next to it", async () => {
    const body = Array.from({ length: 9 }, (_, i) => `x${i + 1} needle`);
    const root = await repo({ "a.ts": `${body.join("\n")}\n` });
    body[3] = "x4 needle changed";
    body[4] = "x5 needle changed";
    await write(root, { "a.ts": `${body.join("\n")}\n` });
    const s = service(root);
    const result = await s.run({ pattern: "x\\d needle", changes: "worktree" }, ctx());
    assert.deepEqual(
      result.data.matches?.map((m) => m.line),
      [4, 5],
    );
    // The same edges for anyOf.
    const any = await s.run({ anyOf: ["x3", "x4", "x5", "x6"], changes: "worktree" }, ctx());
    assert.deepEqual(
      any.data.items?.map((i) => [i.term, i.line]),
      [
        ["x4", 4],
        ["x5", 5],
      ],
    );
    assert.equal(any.data.changes?.scope, "lines");
    await s.close();
  });

  it("reads staged and committed content from Git objects, not the working tree", async () => {
    const root = await repo({ "a.ts": "base needle\n" });
    await write(root, { "a.ts": "base needle\nstaged needle\n" });
    git(root, "add", "a.ts");
    await write(root, { "a.ts": "base needle\nworking tree needle\n" });
    const s = service(root);
    const staged = await s.run({ pattern: "needle", changes: "staged" }, ctx());
    assert.deepEqual(lines(staged), ["a.ts:2:staged needle"]);
    assert.equal(staged.data.changes?.source, "objects");
    git(root, "commit", "-q", "-m", "staged");
    const first = git(root, "rev-list", "--max-parents=0", "HEAD").trim();
    const commits = await s.run({ pattern: "needle", changes: `${first}..HEAD` }, ctx());
    assert.deepEqual(lines(commits), ["a.ts:2:staged needle"]);
    assert.match(commits.text, new RegExp(`${first}.*\\.\\.HEAD`));
    await s.close();
  });

  it("compares a branch with its merge base for A...B", async () => {
    const root = await repo({ "a.ts": "start\n" });
    git(root, "checkout", "-q", "-b", "feature");
    await commit(root, { "f.ts": "needle on feature\n" });
    git(root, "checkout", "-q", "main");
    await commit(root, { "m.ts": "needle on main\n" });
    const s = service(root);
    const threeDot = await s.run({ pattern: "needle", changes: "main...feature" }, ctx());
    assert.deepEqual(lines(threeDot), ["f.ts:1:needle on feature"]);
    assert.match(threeDot.text, /merge base of main and feature/);
    const twoDot = await s.run({ pattern: "needle", changes: "main..feature" }, ctx());
    assert.deepEqual(lines(twoDot), ["f.ts:1:needle on feature"]);
    // The old side of main..feature holds main's own addition.
    const old = await s.run({ pattern: "needle", changes: "main..feature", changeSide: "old" }, ctx());
    assert.deepEqual(lines(old), ["m.ts:1:needle on main"]);
    await s.close();
  });

  it("a file that differs from what Git compared is left out and named, and the result is partial", async () => {
    const root = await repo({ "a.ts": "needle\n" });
    git(root, "config", "core.autocrlf", "true");
    // Git compares this file with its line endings converted; the bytes on disk are not those.
    await writeFile(join(root, "a.ts"), "needle\r\nneedle again\r\n");
    await write(root, { "b.ts": "needle b\n" });
    git(root, "add", "b.ts");
    const s = service(root);
    const result = await s.run({ pattern: "needle", changes: "worktree", mode: "matches" }, ctx());
    assert.equal(result.data.status, "partial");
    assert.deepEqual(result.data.changes?.notCovered, [
      {
        path: "a.ts",
        reason:
          "it differs from what Git compared (edited since, or converted by Git's line-ending settings)",
      },
    ]);
    assert.deepEqual(lines(result), ["b.ts:1:needle b"]);
    assert.match(result.text, /at least 1 matching line \(/);
    assert.match(result.text, /PARTIAL: not covered: a\.ts \(it differs from what Git compared/);
    await s.close();
  });

  it("runs no hook, filter, fsmonitor, external diff or textconv a repository configures, and writes no index", async () => {
    const root = await repo({ "a.txt": "needle\n", "b.txt": "needle\n" });
    const { marker, evil } = await tracingProgram(root);
    await mkdir(join(root, ".git/hooks"), { recursive: true });
    for (const hook of [
      "post-index-change",
      "pre-commit",
      "post-checkout",
      "reference-transaction",
      "fsmonitor-watchman",
    ]) {
      await writeFile(join(root, ".git/hooks", hook), `#!/bin/sh\necho ${hook} >> '${marker}'\n`);
      await chmod(join(root, ".git/hooks", hook), 0o755);
    }
    for (const [key, value] of [
      ["filter.evil.clean", evil],
      ["filter.evil.smudge", evil],
      ["filter.evil.process", evil],
      ["filter.evil.required", "true"],
      ["diff.evil.textconv", evil],
      ["diff.evil.command", evil],
      ["diff.external", evil],
      ["core.fsmonitor", evil],
      ["core.pager", evil],
      ["core.askPass", evil],
      ["credential.helper", `!${evil}`],
    ]) {
      git(root, "config", key as string, value as string);
    }
    await writeFile(join(root, ".gitattributes"), "*.txt filter=evil diff=evil\n");
    // Changed content and a file whose metadata alone changed, so Git reads the working tree.
    await writeFile(join(root, "a.txt"), "needle\nneedle changed\n");
    const later = new Date(Date.now() + 10_000);
    await utimes(join(root, "b.txt"), later, later);
    await write(root, { "new.txt": "needle untracked\n" });
    const indexBefore = await readFile(join(root, ".git/index"));
    const indexTime = (await stat(join(root, ".git/index"))).mtimeMs;
    const spawned: number[] = [];
    const s = service(root, { onProcessSpawn: (pid) => spawned.push(pid) });
    const worktree = await s.run({ pattern: "needle", changes: "worktree", mode: "matches" }, ctx());
    assert.deepEqual(lines(worktree), ["a.txt:2:needle changed", "new.txt:1:needle untracked"]);
    await s.run({ pattern: "needle", changes: "worktree", changeSide: "old" }, ctx());
    await s.run({ anyOf: ["needle", "changed"], changes: "staged" }, ctx());
    await s.run({ pattern: "needle", changes: "HEAD..HEAD" }, ctx());
    await s.close();
    const ran = await readFile(marker, "utf8").catch(() => "");
    assert.equal(ran, "", `something the repository configured ran: ${ran}`);
    assert.deepEqual(await readFile(join(root, ".git/index")), indexBefore);
    assert.equal((await stat(join(root, ".git/index"))).mtimeMs, indexTime);
    assert.ok(
      spawned.length > 0 && spawned.every((pid) => !isRunning(pid)),
      "no Git or ripgrep left running",
    );
    // The same configuration does run with plain Git, so the test would see it.
    spawnSync("git", ["diff"], { cwd: root, env: GIT_ENV });
    assert.notEqual(await readFile(marker, "utf8").catch(() => ""), "");
  });

  it("runs no filter driver whose name Git's -c cannot switch off (a name with '=')", async () => {
    const root = await repo({ "a.txt": "needle\n" });
    const { marker, evil } = await tracingProgram(root);
    // `-c filter.x=y.clean=` is read as the key `filter.x`: the driver would stay configured.
    git(root, "config", "filter.x=y.clean", evil);
    git(root, "config", "filter.x=y.required", "true");
    await writeFile(join(root, ".gitattributes"), "*.txt filter=x=y\n");
    await writeFile(join(root, "a.txt"), "needle\nneedle changed\n");
    const s = service(root);
    const error = await s.run({ pattern: "needle", changes: "worktree" }, ctx()).catch((e: unknown) => e);
    assert.equal(await readFile(marker, "utf8").catch(() => ""), "", "the repository's filter ran");
    assert.equal((error as { code?: string }).code, "configuration_error");
    assert.match((error as Error).message, /filter driver "x=y"/);
    // What reads no working tree still answers.
    const commits = await s.run({ pattern: "needle", changes: "HEAD..HEAD" }, ctx());
    assert.equal(commits.data.totalMatches, 0);
    await s.close();
    // Plain Git with the same override does run it, so the test would see it.
    spawnSync("git", ["-c", "filter.x=y.clean=", "diff"], { cwd: root, env: GIT_ENV });
    assert.notEqual(await readFile(marker, "utf8").catch(() => ""), "");
  });

  it("never writes or reads outside its tree for a Git path with a '..' component", async () => {
    const root = await repo({ "base.txt": "base\n" });
    // A crafted commit: `sub/../../NAME` in its tree. Git prints the path as stored, and the
    // scope's tree would put its bytes two levels up from itself, in the temporary directory.
    const name = `evident-escape-${process.pid}-${Date.now()}.txt`;
    const escaped = join(tmpdir(), name);
    const hash = (input: string, ...args: string[]) =>
      spawnSync("git", args, { cwd: root, env: GIT_ENV, input, encoding: "utf8" }).stdout.trim();
    const blob = hash("needle escaped\n", "hash-object", "-w", "--stdin");
    let tree = hash(`100644 blob ${blob}\t${name}\n`, "mktree");
    tree = hash(`040000 tree ${tree}\t..\n`, "mktree");
    tree = hash(`040000 tree ${tree}\t..\n`, "mktree");
    const top = hash(`${git(root, "ls-tree", "HEAD")}040000 tree ${tree}\tsub\n`, "mktree");
    const evil = git(root, "commit-tree", top, "-p", "HEAD", "-m", "evil").trim();
    assert.match(git(root, "diff-tree", "-r", "--name-only", "HEAD", evil), /^sub\/\.\.\/\.\.\//m);
    const s = service(root);
    try {
      const result = await s.run({ pattern: "needle", changes: `HEAD..${evil}` }, ctx());
      assert.equal(existsSync(escaped), false, "a file was written outside the scope's tree");
      assert.equal(result.data.status, "partial");
      assert.deepEqual(result.data.changes?.notCovered, [
        {
          path: `sub/../../${name}`,
          reason: "its path has a '.' or '..' component, which Git never checks out",
        },
      ]);
    } finally {
      await s.close();
      await rm(escaped, { force: true });
    }
  });

  it("a crafted commit with a file and a directory of one name answers, the file not covered", async () => {
    const root = await repo({ "base.txt": "base\n" });
    const hash = (input: string, ...args: string[]) =>
      spawnSync("git", args, { cwd: root, env: GIT_ENV, input, encoding: "utf8" }).stdout.trim();
    const file = hash("needle file\n", "hash-object", "-w", "--stdin");
    const inner = hash("needle inner\n", "hash-object", "-w", "--stdin");
    const tree = hash(`100644 blob ${inner}\tinner.txt\n`, "mktree");
    const top = hash(
      `${git(root, "ls-tree", "HEAD")}100644 blob ${file}\ta\n040000 tree ${tree}\ta\n`,
      "mktree",
    );
    const crafted = git(root, "commit-tree", top, "-p", "HEAD", "-m", "both").trim();
    const s = service(root);
    const result = await s.run({ pattern: "needle", changes: `HEAD..${crafted}`, mode: "matches" }, ctx());
    await s.close();
    assert.deepEqual(lines(result), ["a/inner.txt:1:needle inner"]);
    assert.equal(result.data.status, "partial");
    assert.deepEqual(result.data.changes?.notCovered, [
      { path: "a", reason: "a directory of the same name is changed too, so it cannot be compared" },
    ]);
  });

  it("never runs a git of the repository's own through a relative PATH entry", async () => {
    const root = await repo({ "a.txt": "needle\n" });
    await write(root, { "a.txt": "needle\nneedle changed\n" });
    const marker = await markerFile();
    const real = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim();
    await mkdir(join(root, "node_modules/.bin"), { recursive: true });
    const fake = join(root, "node_modules/.bin/git");
    await writeFile(fake, `#!/bin/sh\necho ran >> '${marker}'\nexec '${real}' "$@"\n`);
    await chmod(fake, 0o755);
    // A common setup: the project's own tools first, relative to wherever a command runs.
    const s = service(root, { env: { ...GIT_ENV, PATH: `./node_modules/.bin:${process.env.PATH}` } });
    const result = await s.run({ pattern: "needle", changes: "worktree" }, ctx());
    await s.close();
    assert.deepEqual(lines(result), ["a.txt:2:needle changed"]);
    assert.equal(await readFile(marker, "utf8").catch(() => ""), "", "the repository's git ran");
  });

  it("counts every changed file in scope, those beyond the file bound included", async () => {
    // The bound, not its size, is what is tested: a service with a small one (the default,
    // CHANGES_MAX_FILES, is 10,000 files).
    const bound = 20;
    assert.ok(bound < CHANGES_MAX_FILES);
    const root = await repo({ "a.txt": "start\n" });
    const files: Record<string, string> = {};
    for (let i = 0; i < bound + 5; i++) files[`new/f${String(i).padStart(5, "0")}.txt`] = "";
    await write(root, files);
    const s = service(root, { changesMaxFiles: bound });
    const result = await s.run({ pattern: "needle", changes: "worktree", changeScope: "files" }, ctx());
    await s.close();
    assert.equal(result.data.changes?.filesChanged, bound + 5);
    assert.deepEqual(result.data.changes?.notCovered, [
      {
        path: `new/f${String(bound).padStart(5, "0")}.txt`,
        reason: `beyond the ${bound} files a comparison covers, with 4 more after it`,
      },
    ]);
  });

  it("runs no filter driver with an empty name", async () => {
    const root = await repo({ "a.txt": "needle\n" });
    const { marker, evil } = await tracingProgram(root);
    // `[filter ""]`, named by `filter=` with nothing after it.
    git(root, "config", "filter..clean", evil);
    git(root, "config", "filter..required", "true");
    await writeFile(join(root, ".gitattributes"), "*.txt filter=\n");
    await writeFile(join(root, "a.txt"), "needle\nneedle changed\n");
    const s = service(root);
    const result = await s.run({ pattern: "needle", changes: "worktree" }, ctx());
    await s.close();
    assert.equal(await readFile(marker, "utf8").catch(() => ""), "", "the repository's filter ran");
    assert.deepEqual(lines(result), ["a.txt:2:needle changed"]);
    // Plain Git runs it, so the test would see it.
    spawnSync("git", ["diff"], { cwd: root, env: GIT_ENV });
    assert.notEqual(await readFile(marker, "utf8").catch(() => ""), "");
  });

  it("reads history as written, ignoring replacement objects", async () => {
    const root = await repo({ "a.ts": "original needle\n" });
    await commit(root, { "a.ts": "second needle\n" });
    const original = git(root, "rev-parse", "HEAD~1:a.ts").trim();
    const replacement = spawnSync("git", ["hash-object", "-w", "--stdin"], {
      cwd: root,
      env: GIT_ENV,
      input: "replaced needle\n",
      encoding: "utf8",
    }).stdout.trim();
    git(root, "replace", original, replacement);
    assert.equal(git(root, "show", "HEAD~1:a.ts"), "replaced needle\n", "plain Git follows the replacement");
    const s = service(root);
    const old = await s.run({ pattern: "needle", changes: "HEAD~1..HEAD", changeSide: "old" }, ctx());
    assert.deepEqual(lines(old), ["a.ts:1:original needle"]);
    await s.close();
  });

  it("refuses a partial clone on Git before 2.45, and never fetches a missing object", async () => {
    const source = await repo({ "a.ts": "first needle\n" });
    await commit(source, { "a.ts": "second needle\n" });
    git(source, "config", "uploadpack.allowFilter", "true");
    const parent = await tree({});
    git(parent, "clone", "-q", "--filter=blob:none", "--no-checkout", `file://${source}`, "clone");
    const clone = join(parent, "clone");
    const s = service(clone);
    const [major, minor] = gitVersion();
    if (major < 2 || (major === 2 && minor < 45)) {
      const error = await s
        .run({ pattern: "needle", changes: "HEAD~1..HEAD" }, ctx())
        .catch((e: unknown) => e);
      assert.equal((error as { code?: string }).code, "configuration_error");
      assert.match((error as Error).message, /partial clone.*Git 2\.45 or newer/s);
    } else {
      // Git 2.45+: lazy fetching is off, so the blobs the clone lacks are reported, not fetched.
      const result = await s.run({ pattern: "needle", changes: "HEAD~1..HEAD" }, ctx());
      assert.equal(result.data.status, "partial");
      assert.match(result.data.changes?.notCovered[0]?.reason ?? "", /not in the local object database/);
    }
    // Listed without fetching: the clone still lacks the second commit's blob.
    const missing = git(clone, "rev-list", "--objects", "--missing=print", "HEAD");
    assert.match(missing, new RegExp(`^\\?${git(source, "rev-parse", "HEAD:a.ts").trim()}$`, "m"));
    await s.close();
  });

  it("says clearly what cannot be compared", async () => {
    const plain = await tree({ "a.ts": "needle\n" });
    const root = await repo({ "a.ts": "needle\n" });
    const s = service(root);
    const outside = service(plain);
    const cases: [string, () => Promise<unknown>][] = [
      ["not a repository", () => outside.run({ pattern: "needle", changes: "worktree" }, ctx())],
      ["an unknown revision", () => s.run({ pattern: "needle", changes: "nope..HEAD" }, ctx())],
      ["a revision like an option", () => s.run({ pattern: "needle", changes: "--output=x..HEAD" }, ctx())],
      ["a bare revision", () => s.run({ pattern: "needle", changes: "HEAD" }, ctx())],
      ["a scope without changes", () => s.run({ pattern: "needle", changeScope: "files" }, ctx())],
    ];
    for (const [label, run] of cases) {
      const error = await run().catch((e: unknown) => e);
      assert.equal((error as { code?: string }).code, "invalid_arguments", label);
      assert.match((error as Error).message, /changes|changeScope/, label);
    }
    await s.close();
    await outside.close();
  });

  it("names a changed submodule as not covered instead of leaving it out", async () => {
    const inner = await repo({ "in.ts": "needle inside\n" });
    const root = await repo({ "a.ts": "start\n" });
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", inner, "sub");
    git(root, "commit", "-q", "-m", "submodule");
    const added = await commitIn(root, "sub", { "in.ts": "needle inside\nneedle added\n" });
    await write(root, { "a.ts": "start\nneedle a\n" });
    const s = service(root);
    // The submodule's checkout moved on: the working tree records another commit for it.
    const worktree = await s.run({ pattern: "needle", changes: "worktree", mode: "matches" }, ctx());
    assert.deepEqual(lines(worktree), ["a.ts:2:needle a"]);
    assert.equal(worktree.data.status, "partial");
    assert.equal(worktree.data.changes?.filesChanged, 2);
    assert.deepEqual(worktree.data.changes?.notCovered, [{ path: "sub", reason: SUBMODULE_CHANGED }]);
    assert.match(worktree.text, /PARTIAL: not covered: sub \(a submodule/);
    // The same in history, on either side, and for a submodule added or removed.
    git(root, "add", "sub");
    git(root, "commit", "-q", "-m", `sub at ${added}`);
    for (const side of ["new", "old"] as const) {
      const range = await s.run({ pattern: "needle", changes: "HEAD~1..HEAD", changeSide: side }, ctx());
      assert.equal(range.data.status, "partial", side);
      assert.deepEqual(range.data.changes?.notCovered, [{ path: "sub", reason: SUBMODULE_CHANGED }], side);
    }
    const first = git(root, "rev-list", "--max-parents=0", "HEAD").trim();
    const since = await s.run({ pattern: "needle", changes: `${first}..HEAD` }, ctx());
    assert.deepEqual(since.data.changes?.notCovered, [
      { path: "sub", reason: "a submodule, added: the files inside it are not compared" },
    ]);
    const before = await s.run({ pattern: "needle", changes: `${first}..HEAD`, changeSide: "old" }, ctx());
    assert.equal(before.data.status, "complete", "nothing was there on the old side");
    await s.close();
  });

  it("names a checked-out submodule as not covered: edits inside it are not looked for", async () => {
    const inner = await repo({ "in.ts": "needle inside\n" });
    const root = await repo({ "a.ts": "start\n", "src/b.ts": "start\n" });
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", inner, "lib/sub");
    git(root, "commit", "-q", "-m", "submodule");
    // An edit not committed inside the submodule, and one in the superproject.
    await write(root, { "lib/sub/in.ts": "needle inside\nneedle edited\n", "a.ts": "start\nneedle a\n" });
    const s = service(root);
    const notCovered = [{ path: "lib/sub", reason: SUBMODULE_CHECKED_OUT }];
    for (const side of ["new", "old"] as const) {
      const result = await s.run({ pattern: "needle", changes: "worktree", changeSide: side }, ctx());
      assert.equal(result.data.status, "partial", side);
      assert.deepEqual(result.data.changes?.notCovered, notCovered, side);
      // Not known to have changed: not counted as a changed file.
      assert.equal(result.data.changes?.filesChanged, 1, side);
    }
    const result = await s.run({ pattern: "needle", changes: "worktree", mode: "matches" }, ctx());
    assert.deepEqual(lines(result), ["a.ts:2:needle a"]);
    assert.match(result.text, /PARTIAL: not covered: lib\/sub \(a submodule checked out here/);
    // A scope without the submodule, and sides that record only its commit, are complete.
    const elsewhere = await s.run(
      { pattern: "needle", changes: "worktree", path: "src", scope: "strict" },
      ctx(),
    );
    assert.equal(elsewhere.data.status, "complete");
    assert.deepEqual(elsewhere.data.changes?.notCovered, []);
    git(root, "add", "a.ts");
    for (const changes of ["staged", "HEAD~1..HEAD"]) {
      const other = await s.run({ pattern: "needle", changes }, ctx());
      assert.equal(other.data.status, "complete", changes);
      assert.deepEqual(other.data.changes?.notCovered, [], changes);
      assert.equal(other.data.changes?.filesChanged, 1, changes);
      if (changes === "staged") git(root, "commit", "-q", "-m", "a");
    }
    // Moved on as well as edited: named once, with the reason that says more.
    await commitIn(root, "lib/sub", { "in.ts": "needle inside\nneedle committed\n" });
    const moved = await s.run({ pattern: "needle", changes: "worktree" }, ctx());
    assert.deepEqual(moved.data.changes?.notCovered, [{ path: "lib/sub", reason: SUBMODULE_CHANGED }]);
    await s.close();
    // A clone that never initialized the submodule has nothing checked out there.
    const clone = await tree({});
    git(clone, "clone", "-q", root, "c");
    await write(join(clone, "c"), { "a.ts": "needle clone\n" });
    const fresh = service(join(clone, "c"));
    const cloned = await fresh.run({ pattern: "needle", changes: "worktree" }, ctx());
    assert.equal(cloned.data.status, "complete");
    assert.deepEqual(cloned.data.changes?.notCovered, []);
    await fresh.close();
  });

  it("asks Git about submodules only when the working tree has a .gitmodules", async () => {
    const root = await repo({ "a.ts": "start\n" });
    const spawned: number[] = [];
    const s = service(root, { onProcessSpawn: (pid) => spawned.push(pid) });
    const count = async (text: string) => {
      await write(root, { "a.ts": `start\n${text}\n` });
      spawned.length = 0;
      const result = await s.run({ pattern: "needle", changes: "worktree" }, ctx());
      assert.equal(result.data.status, "complete", text);
      return spawned.length;
    };
    await count("needle warm");
    const without = await count("needle one");
    await commit(root, { ".gitmodules": "" });
    const withFile = await count("needle two");
    assert.equal(withFile, without + 1);
    await s.close();
  });

  it("names an untracked directory holding its own repository as not covered", async () => {
    const root = await repo({ "a.ts": "start\n" });
    await write(root, { "b.ts": "needle b\n", "nested/n.ts": "needle nested\n" });
    git(join(root, "nested"), "init", "-q");
    const s = service(root);
    const result = await s.run({ pattern: "needle", changes: "worktree", mode: "matches" }, ctx());
    await s.close();
    assert.deepEqual(lines(result), ["b.ts:1:needle b"]);
    assert.equal(result.data.status, "partial");
    assert.deepEqual(result.data.changes?.notCovered, [
      {
        path: "nested",
        reason:
          "an untracked directory holding a Git repository of its own: the files inside it are not compared",
      },
    ]);
  });

  it("never follows a symbolic link into what it points at", async () => {
    const secret = await tree({ id_rsa: "needle PRIVATE KEY\n" });
    const root = await repo({ "a.ts": "start\n" });
    await symlink(join(secret, "id_rsa"), join(root, "leak.ts"));
    await write(root, { "b.ts": "needle b\n" });
    const s = service(root);
    const result = await s.run({ pattern: "needle", changes: "worktree" }, ctx());
    assert.deepEqual(lines(result), ["b.ts:1:needle b"]);
    assert.doesNotMatch(result.text, /PRIVATE/);
    assert.equal(result.data.status, "complete");
    await s.close();
  });

  it("scopes to a subdirectory, a single file, or a repository outside the project root", async () => {
    const root = await repo({ "src/a.ts": "x\n", "src/b.ts": "x\n", "lib/c.ts": "x\n" });
    await write(root, { "src/a.ts": "needle a\n", "src/b.ts": "needle b\n", "lib/c.ts": "needle c\n" });
    const s = service(root);
    const sub = await s.run({ pattern: "needle", changes: "worktree", path: "src", scope: "strict" }, ctx());
    assert.deepEqual(lines(sub), ["src/a.ts:1:needle a", "src/b.ts:1:needle b"]);
    const one = await s.run(
      { pattern: "needle", changes: "worktree", path: "src/b.ts", scope: "strict" },
      ctx(),
    );
    assert.deepEqual(lines(one), ["src/b.ts:1:needle b"]);
    await s.close();
    const elsewhere = await tree({ "x.txt": "" });
    const outside = service(elsewhere);
    const external = await outside.run(
      { pattern: "needle", changes: "worktree", path: join(root, "lib") },
      ctx(),
    );
    assert.deepEqual(lines(external), [`${join(root, "lib/c.ts")}:1:needle c`]);
    await outside.close();
  });

  it("a cancelled comparison leaves no process and no temporary tree behind", async () => {
    const root = await repo({ "a.ts": "start\n" });
    await write(root, { "a.ts": "needle\n".repeat(1000) });
    const mirrors = async () => (await readdir(tmpdir())).filter((n) => n.startsWith("evident-changes-"));
    const before = new Set(await mirrors());
    for (const after of [1, 2, 3, 4, 5, 6]) {
      const spawned: number[] = [];
      const controller = new AbortController();
      const s = service(root, {
        onProcessSpawn: (pid) => {
          spawned.push(pid);
          if (spawned.length === after) controller.abort();
        },
      });
      const error = await s
        .run({ pattern: "needle", changes: "worktree" }, { caller: "c", signal: controller.signal })
        .catch((e: unknown) => e);
      assert.ok(spawned.length >= Math.min(after, 3), `processes started before the abort (${after})`);
      if (!(error instanceof Error))
        assert.ok(spawned.length < after, "finished before the abort could land");
      else assert.equal((error as { code?: string }).code, "cancelled");
      assert.ok(
        spawned.every((pid) => !isRunning(pid)),
        "every process reaped",
      );
      await s.close();
    }
    assert.deepEqual(
      (await mirrors()).filter((n) => !before.has(n)),
      [],
    );
  });

  it("keeps a scope's tree for the next call with the same changes, and never a stale one", async () => {
    const root = await repo({ "a.ts": "start\n" });
    await write(root, { "a.ts": "start\nneedle one\n" });
    const mirrors = async () => (await readdir(tmpdir())).filter((n) => n.startsWith("evident-changes-"));
    const before = new Set(await mirrors());
    const s = service(root);
    const first = await s.run({ pattern: "needle", changes: "worktree" }, ctx());
    const again = await s.run({ pattern: "needle \\w+", changes: "worktree" }, ctx());
    assert.deepEqual(lines(first), ["a.ts:2:needle one"]);
    assert.deepEqual(lines(again), ["a.ts:2:needle one"]);
    const kept = (await mirrors()).filter((n) => !before.has(n));
    assert.equal(kept.length, 1, "one tree served both calls");
    await write(root, { "a.ts": "start\nneedle two\n" });
    const edited = await s.run({ pattern: "needle", changes: "worktree" }, ctx());
    assert.deepEqual(lines(edited), ["a.ts:2:needle two"]);
    await s.close();
    assert.deepEqual(
      (await mirrors()).filter((n) => !before.has(n)),
      [],
      "close removes every tree",
    );
  });

  it("refuses to inspect a match read from Git objects, saying a new search would not help", async () => {
    const root = await repo({
      "a.ts": 'function one() {\n  return "needle old";\n}\nconst x = "needle two";\n',
    });
    await write(root, {
      "a.ts": '// header\nfunction two() {\n  return "needle new";\n}\nconst y = "needle 2";\n',
    });
    const s = service(root);
    const old = await s.run({ pattern: "needle", changes: "worktree", changeSide: "old", limit: 1 }, ctx());
    const cursor = old.data.cursor as string;
    for (const input of [{ inspect: 1 }, { impact: true, inspect: 1 }]) {
      const error = await s.run({ cursor, ...input }, ctx()).catch((e: unknown) => e);
      assert.equal((error as { code?: string }).code, "invalid_arguments", JSON.stringify(input));
      assert.match(
        (error as Error).message,
        /match \[1\] a\.ts:2 was found in content read from Git objects \(the old side of working tree vs HEAD \([0-9a-f]{12}\)\), not in the working tree/,
      );
    }
    // The new side is the working tree's, verified: inspected as any match.
    const current = await s.run({ pattern: "needle", changes: "worktree", limit: 1 }, ctx());
    const shown = await s.run({ cursor: current.data.cursor as string, inspect: 1 }, ctx());
    assert.equal(shown.data.inspections?.[0]?.symbol?.qualifiedName, "two");
    await s.close();
  });

  it("pages a change-scoped result through its cursor like any search", async () => {
    const root = await repo({ "a.ts": "start\n" });
    await write(root, {
      "a.ts": `start\n${Array.from({ length: 120 }, (_, i) => `const needle${i} = "${"x".repeat(80)}";`).join("\n")}\n`,
    });
    const s = service(root);
    const first = await s.run({ pattern: "needle", changes: "worktree" }, ctx());
    assert.equal(first.data.view, "summary");
    let page = await s.run({ cursor: first.data.cursor as string }, ctx());
    const seen = [...(page.data.matches ?? [])];
    while (page.data.cursorKind === "matches" && page.data.cursor !== undefined) {
      page = await s.run({ cursor: page.data.cursor }, ctx());
      seen.push(...(page.data.matches ?? []));
    }
    assert.deepEqual(
      seen.map((m) => m.index),
      Array.from({ length: 120 }, (_, i) => i + 1),
    );
    assert.match(page.text, /Scoped to Git changes/);
    await s.close();
  });
});
