/**
 * Git's cause in messages: the line Git dies with, not a warning before it; and a missing
 * object (a partial clone's, never fetched) told apart from other failures.
 */
import assert from "node:assert/strict";
import { rename } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { changedFiles } from "../../../src/code/git/diff.js";
import { Git, gitFailure, gitMessage, MissingObjectError } from "../../../src/code/git/process.js";
import { treesRemovedAfter } from "../helpers.js";
import { commit, GIT_ENV, git, reposRemovedAfter } from "./helpers.js";

const repo = reposRemovedAfter(after);
const tree = treesRemovedAfter(after);

const ID = "3bb18e1a109af98fc21d75a3db61b73c9ff69c22";

/** Git's stderr, as Git wrote it under the C locale (the versions named, in a partial clone). */
const STDERR = {
  // 2.47.3, and Debian's 2.39.5, with GIT_NO_LAZY_FETCH=1: the warning first, then the cause.
  lazyOff: `warning: lazy fetching disabled; some objects may not be available\nfatal: could not fetch ${ID} from promisor remote\n`,
  // 2.39.5 without it: the fetch is tried, its transport refused by protocol.allow=never.
  refused: `fatal: transport 'file' not allowed\nfatal: could not fetch ${ID} from promisor remote\n`,
  dubious:
    "fatal: detected dubious ownership in repository at '/r'\nTo add an exception for this directory, call:\n\n\tgit config --global --add safe.directory /r\n",
};

describe("Git's messages", () => {
  it("the cause is Git's last fatal line, else its last line", () => {
    assert.equal(gitMessage(STDERR.lazyOff), `could not fetch ${ID} from promisor remote`);
    assert.equal(gitMessage(STDERR.refused), `could not fetch ${ID} from promisor remote`);
    assert.equal(gitMessage(STDERR.dubious), "detected dubious ownership in repository at '/r'");
    assert.equal(gitMessage("warning: first\nerror: second\n"), "second");
    assert.equal(gitMessage(""), "no message");
    assert.equal(gitMessage(`fatal: ${"x".repeat(400)}`).length, 300);
  });

  it("a missing object is told apart, with the object Git names", () => {
    const missing = gitFailure("diff-tree", STDERR.lazyOff);
    assert.ok(missing instanceof MissingObjectError);
    assert.equal(missing.id, ID);
    assert.equal(missing.message, `git diff-tree failed: could not fetch ${ID} from promisor remote`);
    const other = gitFailure("diff-tree", "fatal: bad object HEAD\n");
    assert.ok(!(other instanceof MissingObjectError));
    assert.equal(other.code, "internal_error");
    assert.equal(other.message, "git diff-tree failed: bad object HEAD");
  });

  it("a patch needing an object a partial clone lacks fails with that object, fetching nothing", async () => {
    const source = await repo({ "a.ts": "one\n" });
    await commit(source, { "a.ts": "one\ntwo\n" });
    git(source, "config", "uploadpack.allowFilter", "true");
    const lacking = git(source, "rev-parse", "HEAD~1:a.ts").trim();
    const parent = await tree({});
    git(parent, "clone", "-q", "--filter=blob:none", `file://${source}`, "clone");
    const clone = join(parent, "clone");
    await rename(source, `${source}-gone`);
    const g = new Git({ env: GIT_ENV });
    const [base = "", target = ""] = git(clone, "rev-parse", "HEAD~1", "HEAD").trim().split("\n");
    const repository = { root: clone, objectFormat: "sha1" as const, config: [] };
    const error = await changedFiles(g, repository, { kind: "commits", base, target }, ["a.ts"], true).catch(
      (e: unknown) => e,
    );
    assert.ok(error instanceof MissingObjectError, String(error));
    assert.equal(error.id, lacking);
    assert.doesNotMatch(error.message, /lazy fetching disabled/);
    // The listing alone needs no blob: it still works.
    const listed = await changedFiles(g, repository, { kind: "commits", base, target }, ["a.ts"], false);
    assert.deepEqual(
      listed.map((f) => f.path),
      ["a.ts"],
    );
    assert.match(
      git(clone, "rev-list", "--objects", "--missing=print", "HEAD~1"),
      new RegExp(`^\\?${lacking}$`, "m"),
    );
  });
});
