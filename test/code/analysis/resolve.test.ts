import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Manifests, resolveInTurns, resolveSpecifier } from "../../../src/code/analysis/resolve.js";
import { isTestPath, namedTests, testSubject } from "../../../src/code/analysis/test-files.js";
import { EvidentError } from "../../../src/core/errors.js";
import {
  MANIFEST_MAX_BYTES,
  MANIFEST_TARGET_DEPTH,
  NAVIGATION_RESOLVE_TURN,
} from "../../../src/core/limits.js";
import { treesRemovedAfter } from "../helpers.js";

const tree = treesRemovedAfter(after);

describe("static import resolution", () => {
  it("resolves a file's specifiers in turns of the event loop, and stops at the first turn after its signal aborts", async () => {
    const root = await tree({ "src/x.ts": "", "src/y.ts": "" });
    const from = join(root, "src/x.ts");
    // A file of many imports: each resolution stats the tree synchronously.
    const specifiers = Array.from({ length: 10 * NAVIGATION_RESOLVE_TURN }, (_, i) => ({
      specifier: i % 2 === 0 ? "./y" : `./missing${i}`,
    }));
    const all: string[] = [];
    await resolveInTurns(specifiers, from, root, new AbortController().signal, (s, r) => {
      all.push(`${s.specifier}:${r.kind}`);
      return false;
    });
    assert.equal(all.length, specifiers.length);
    assert.deepEqual(all.slice(0, 2), ["./y:file", "./missing1:unresolved"]);
    let stoppedAt = 0;
    await resolveInTurns(specifiers, from, root, new AbortController().signal, () => ++stoppedAt === 3);
    assert.equal(stoppedAt, 3, "a true from take stops it");
    // Aborted while the first turn runs: seen at the next one, having resolved only that far.
    const controller = new AbortController();
    setImmediate(() => controller.abort());
    let seen = 0;
    await assert.rejects(
      resolveInTurns(specifiers, from, root, controller.signal, () => {
        seen += 1;
        return false;
      }),
      (error: unknown) => error instanceof EvidentError && error.code === "cancelled",
    );
    assert.equal(seen, NAVIGATION_RESOLVE_TURN);
  });

  it("resolves relative specifiers as TypeScript and Node would find the file", async () => {
    const root = await tree({
      "src/a.ts": "",
      "src/b.tsx": "",
      "src/c.js": "",
      "src/d/index.ts": "",
      "src/e/package.json": JSON.stringify({ main: "lib/main.js" }),
      "src/e/lib/main.ts": "",
      "src/f.mts": "",
      "src/data.json": "{}",
    });
    const from = join(root, "src/x.ts");
    const file = (specifier: string) => {
      const r = resolveSpecifier(specifier, from, root);
      return r.kind === "file" ? r.path.slice(root.length + 1) : `unresolved: ${r.why}`;
    };
    assert.equal(file("./a"), "src/a.ts");
    assert.equal(file("./a.js"), "src/a.ts", "a .js specifier names its TypeScript source");
    assert.equal(file("./b.js"), "src/b.tsx");
    assert.equal(file("./c.js"), "src/c.js");
    assert.equal(file("./d"), "src/d/index.ts");
    assert.equal(file("./e"), "src/e/lib/main.ts");
    assert.equal(file("./f.mjs"), "src/f.mts");
    assert.equal(file("./data.json"), "src/data.json");
    assert.equal(file("../src/a"), "src/a.ts");
    assert.equal(file("./missing"), "unresolved: no such file");
    assert.equal(file("../../outside"), "unresolved: no such file");
  });

  it("resolves package-local specifiers and leaves dependencies unresolved", async () => {
    const root = await tree({
      "package.json": JSON.stringify({
        name: "@me/app",
        imports: {
          "#util/*": "./src/util/*.ts",
          "#config": { import: "./src/config.ts", default: "./x.js" },
        },
        exports: { ".": "./src/index.ts", "./feature": { types: "./x.d.ts", import: "./src/feature.ts" } },
      }),
      "src/index.ts": "",
      "src/feature.ts": "",
      "src/config.ts": "",
      "src/util/strings.ts": "",
      "packages/lib/package.json": JSON.stringify({ name: "lib", exports: "./main.ts" }),
      "packages/lib/main.ts": "",
      "node_modules/lib": { symlink: "../packages/lib" },
      "node_modules/left-pad/index.js": "",
    });
    const from = join(root, "src/feature.ts");
    const file = (specifier: string) => {
      const r = resolveSpecifier(specifier, from, root);
      return r.kind === "file" ? `${r.path.slice(root.length + 1)} (${r.via})` : `unresolved: ${r.why}`;
    };
    assert.equal(file("#util/strings"), "src/util/strings.ts (package-local)");
    assert.equal(file("#config"), "src/config.ts (package-local)");
    assert.equal(file("@me/app"), "src/index.ts (package-local)");
    assert.equal(file("@me/app/feature"), "src/feature.ts (package-local)");
    assert.equal(file("lib"), "packages/lib/main.ts (package-local)");
    assert.equal(
      file("left-pad"),
      "unresolved: a package name not followed (a dependency, a built-in, or an alias such as tsconfig paths)",
    );
    // Installed inside the tree, or a tsconfig alias: not followed, and not said to be outside.
    assert.equal(
      file("@/util/strings"),
      "unresolved: a package name not followed (a dependency, a built-in, or an alias such as tsconfig paths)",
    );
    assert.equal(file("node:fs"), "unresolved: not a package name");
    assert.equal(file("#nope"), "unresolved: not in the package's imports");
  });

  it("reads each package.json once per navigation call, and none larger than its bound", async () => {
    const root = await tree({
      "package.json": JSON.stringify({ name: "me", exports: "./src/index.ts" }),
      "src/index.ts": "",
      "src/feature.ts": "",
      "big/package.json": JSON.stringify({ name: "big", main: "x.ts", pad: "x".repeat(MANIFEST_MAX_BYTES) }),
      "big/x.ts": "",
    });
    const from = join(root, "src/feature.ts");
    const manifests = new Manifests();
    assert.equal(resolveSpecifier("me", from, root, manifests).kind, "file");
    // Read once: a file of many imports asks again for each (a 4 MB manifest and 2,000 imports
    // took 140 s, bench/hardening/RESULTS.md).
    await rm(join(root, "package.json"));
    assert.equal(resolveSpecifier("me", from, root, manifests).kind, "file");
    assert.equal(resolveSpecifier("me", from, root).kind, "unresolved", "a new call reads it again");
    assert.deepEqual(resolveSpecifier("./big/x.ts", join(root, "a.ts"), root).kind, "file");
    assert.deepEqual(resolveSpecifier("../big", from, root), { kind: "unresolved", why: "no such file" });
  });

  it("follows an exports target nested at most its bound deep: a deeper one is unresolved, not a crash", async () => {
    const deep = (n: number) => `${"[".repeat(n)}"./src/index.ts"${"]".repeat(n)}`;
    const root = await tree({
      "package.json": `{"name":"me","exports":${deep(200_000)},"imports":{"#ok":${deep(MANIFEST_TARGET_DEPTH - 1)}}}`,
      "src/index.ts": "",
    });
    const from = join(root, "src/feature.ts");
    assert.deepEqual(resolveSpecifier("me", from, root), { kind: "unresolved", why: "no such file" });
    assert.equal(resolveSpecifier("#ok", from, root).kind, "file");
  });

  it("follows a directory's main once: a main naming its own directory, or a cycle, is unresolved", async () => {
    const root = await tree({
      "src/self/package.json": JSON.stringify({ main: "." }),
      "src/m/package.json": JSON.stringify({ main: "../m2" }),
      "src/m2/package.json": JSON.stringify({ main: "../m" }),
      "src/lib/package.json": JSON.stringify({ main: "dist" }),
      "src/lib/dist/index.ts": "",
    });
    const from = join(root, "src/a.ts");
    assert.deepEqual(resolveSpecifier("./self", from, root), { kind: "unresolved", why: "no such file" });
    assert.deepEqual(resolveSpecifier("./m", from, root), { kind: "unresolved", why: "no such file" });
    const lib = resolveSpecifier("./lib", from, root);
    assert.equal(lib.kind === "file" ? lib.path.slice(root.length + 1) : lib.why, "src/lib/dist/index.ts");
  });

  it("reads a package.json only when it is a regular file: a FIFO in its place never blocks resolution", async () => {
    const root = await tree({ "src/index.ts": "", "src/feature.ts": "" });
    const fifo = join(root, "package.json");
    execFileSync("mkfifo", [fifo]);
    // A writer waiting on the FIFO: a read of it would take this manifest (and without a
    // writer, block the event loop in open() until one came).
    const manifest = JSON.stringify({ name: "me", exports: "./src/index.ts" });
    const writer = spawn("sh", ["-c", `printf '%s' '${manifest}' > package.json`], {
      cwd: root,
      stdio: "ignore",
    });
    const exited = new Promise((done) => writer.once("exit", done));
    try {
      const r = resolveSpecifier("me", join(root, "src/feature.ts"), root);
      assert.deepEqual(r, {
        kind: "unresolved",
        why: "a package name not followed (a dependency, a built-in, or an alias such as tsconfig paths)",
      });
    } finally {
      writer.kill("SIGKILL");
      await exited;
    }
  });
});

describe("test file candidates", () => {
  it("knows test files by name and directory, and what they are about", () => {
    for (const path of [
      "a.test.ts",
      "src/a.spec.tsx",
      "__tests__/a.ts",
      "test/a.ts",
      "test_a.py",
      "a_test.go",
    ]) {
      assert.equal(isTestPath(path), true, path);
      assert.equal(testSubject(path), "a", path);
    }
    for (const path of ["src/latest.ts", "src/contest.ts", "src/a.ts"])
      assert.equal(isTestPath(path), false, path);
  });

  it("lists tests named after a source file, nearest first", () => {
    const files = [
      "src/parse/index.ts",
      "src/parse/index.test.ts",
      "src/parse/parse.test.ts",
      "test/parse/parse.test.ts",
      "test/other.test.ts",
      "test/parse.spec.ts",
    ];
    assert.deepEqual(
      namedTests("src/parse/index.ts", files).map((c) => c.path),
      [
        "src/parse/index.test.ts",
        "src/parse/parse.test.ts",
        "test/parse.spec.ts",
        "test/parse/parse.test.ts",
      ],
    );
  });
});
