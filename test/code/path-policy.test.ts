import assert from "node:assert/strict";
import { mkdir, realpath, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { descendantExclusions, protectedReason, resolveSearchTarget } from "../../src/code/path-policy.js";
import { makeTree, removeTree } from "./helpers.js";
import { ctx, errorCode, makeService } from "./service-helpers.js";

describe("path policy", () => {
  let root: string;
  let outside: string;
  before(async () => {
    outside = await makeTree({
      "home/.ssh/id_ed25519": "PRIVATE needle\n",
      "home/.aws/credentials": "needle\n",
      "home/.config/gh/hosts.yml": "needle\n",
      "home/notes.txt": "needle\n",
    });
    root = await makeTree({
      "src/a.ts": "needle\n",
      ".git/config": "needle\n",
      ".git/HEAD": "ref\n",
      ".npmrc": "//registry/:_authToken=needle\n",
      "nested/.ssh/key": "needle\n",
      "nested/.SSH/key": "needle\n",
      "nested/.config/gcloud/creds.json": "needle\n",
      "nested/.local/share/keyrings/login.keyring": "needle\n",
      "nested/.mozilla/firefox/profile/logins.json": "needle\n",
      "nested/.netrc": "needle\n",
      "nested/.git-credentials": "needle\n",
      ".hidden/visible.txt": "needle\n",
      "link-ssh": { symlink: join(outside, "home/.ssh") },
      "link-key": { symlink: join(outside, "home/.ssh/id_ed25519") },
      "link-proc": { symlink: "/proc/self" },
      "link-dev": { symlink: "/dev" },
      "link-sys": { symlink: "/sys/kernel" },
      "link-git": { symlink: ".git" },
      "link-git-config": { symlink: ".git/config" },
      "link-chain": { symlink: "link-ssh" },
      "link-aws-file": { symlink: join(outside, "home/.aws/credentials") },
      "link-gh": { symlink: join(outside, "home/.config") },
      "link-root": { symlink: "/" },
    });
    await mkdir(join(root, "deep"), { recursive: true });
    await symlink(join(root, "link-chain"), join(root, "deep/again"));
  });
  after(async () => {
    await removeTree(root);
    await removeTree(outside);
  });

  const hostile = () => [
    ".git",
    ".git/",
    "./.git/config",
    "src/../.git/HEAD",
    ".GIT",
    `${root}/.git`,
    "nested/.ssh",
    "nested/.SSH/key",
    "~/.ssh",
    join(outside, "home/.ssh"),
    join(outside, "home/.ssh/id_ed25519"),
    join(outside, "home/.aws/credentials"),
    join(outside, "home/.config/gh"),
    "nested/.config/gcloud",
    "nested/.local/share/keyrings",
    "nested/.mozilla/firefox",
    ".npmrc",
    "nested/.netrc",
    "nested/.git-credentials",
    "/proc",
    "/proc/self/environ",
    "//proc/1",
    "/sys/kernel",
    "/dev/null",
    "/dev/../dev/shm",
    `${"../".repeat(20)}proc/self`,
    "link-ssh",
    "link-key",
    "link-proc",
    "link-dev",
    "link-sys",
    "link-git",
    "link-git-config",
    "link-chain",
    "deep/again",
    "link-aws-file",
    "link-gh/gh",
    "link-ssh/../link-ssh",
  ];

  it("refuses at least 25 hostile path forms, lexically and after resolving symlinks", async () => {
    const forms = hostile();
    assert.ok(forms.length >= 25);
    const service = makeService(root);
    for (const path of forms) {
      assert.equal(
        await errorCode(service.run({ pattern: "needle", path }, ctx())),
        "path_not_allowed",
        path,
      );
    }
  });

  it("refuses protected areas before checking that they exist", async () => {
    assert.equal(await errorCode(resolveSearchTarget(root, "no/such/.ssh/dir")), "path_not_allowed");
    assert.equal(await errorCode(resolveSearchTarget(root, "no/such/dir")), "invalid_arguments");
    assert.equal(protectedReason("/home/u/.config/ghost"), undefined);
    assert.equal(protectedReason("/home/u/src/.gitignore"), undefined);
    assert.equal(protectedReason("/process"), undefined);
  });

  it("allows external roots by absolute or .. paths", async () => {
    const service = makeService(join(root, "src"));
    const result = await service.run({ pattern: "needle", path: join(outside, "home") }, ctx());
    assert.deepEqual(
      result.data.matches?.map((m) => m.path),
      [join(outside, "home/notes.txt")],
    );
    const up = await service.run({ pattern: "needle", path: "../.hidden" }, ctx());
    assert.equal(up.data.totalMatches, 1);
  });

  it("globs of an external root are relative to that root", async () => {
    const external = await makeTree({
      "proj/src/a.ts": "needle\n",
      "proj/test/b.ts": "needle\n",
      "proj/.ssh/k": "needle\n",
    });
    try {
      const service = makeService(root);
      const result = await service.run(
        { pattern: "needle", path: join(external, "proj"), glob: ["src/**"], mode: "matches" },
        ctx(),
      );
      assert.deepEqual(
        result.data.matches?.map((m) => m.path),
        [join(await realpath(external), "proj/src/a.ts")],
      );
      const excluded = await service.run(
        { pattern: "needle", path: join(external, "proj"), exclude: ["test/**"], mode: "matches" },
        ctx(),
      );
      assert.equal(excluded.data.totalMatches, 1);
    } finally {
      await removeTree(external);
    }
  });

  it("broad scans exclude every protected descendant, and user globs cannot re-include them", async () => {
    const service = makeService(root);
    for (const glob of [undefined, ["**/.ssh/**", ".npmrc", "**/.git/**", "**"]]) {
      const result = await service.run(
        { pattern: "needle", mode: "matches", ...(glob ? { glob } : {}) },
        ctx(),
      );
      assert.deepEqual(
        result.data.matches?.map((m) => m.path),
        [".hidden/visible.txt", "src/a.ts"],
        JSON.stringify(glob),
      );
    }
  });

  it("a scan of / excludes /proc, /sys and /dev by anchored globs", () => {
    const globs = descendantExclusions("/", "/", true);
    for (const area of ["!/proc", "!/sys", "!/dev"]) assert.ok(globs.includes(area));
    assert.ok(!descendantExclusions("/", "/home", true).includes("!/proc"));
  });

  it("a root that is a symlink to / runs on its canonical path with system exclusions", async () => {
    const target = await resolveSearchTarget(root, "link-root");
    assert.equal(target.rg.cwd, "/");
    assert.equal(target.rg.root, "/");
    assert.ok(target.rg.protectedGlobs.includes("!/proc"));
  });

  it("refuses a symlink loop", async () => {
    const loop = await makeTree({ a: { symlink: "b" }, b: { symlink: "a" } });
    try {
      assert.equal(await errorCode(resolveSearchTarget(loop, "a")), "path_not_allowed");
    } finally {
      await removeTree(loop);
    }
  });

  it("keeps writing protected files out of results even when created after policy checks", async () => {
    await writeFile(join(root, "src/.pypirc"), "needle\n");
    const result = await makeService(root).run({ pattern: "needle", path: "src", mode: "matches" }, ctx());
    assert.deepEqual(
      result.data.matches?.map((m) => m.path),
      ["src/a.ts"],
    );
  });
});
