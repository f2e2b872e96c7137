/**
 * Hostile paths against code_search as a remote caller meets it (MCP over HTTP: confined to the
 * project root) and as a local one does (explicit targets outside the root allowed, protected
 * areas never). Every secret in the fixture holds SECRET_MARK; a form passes when its call is
 * refused with a path or argument error, or answers without the mark anywhere in its text or
 * data. Forged and cross-caller cursors must not reach another caller's result either.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { resolveSettings } from "../../src/config/settings.js";
import { CODE_PATH_MAX_CHARS } from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";
import { createProductRegistry } from "../../src/tools/product.js";
import type { ToolRegistry } from "../../src/tools/registry.js";
import { makeTree, removeTree } from "./helpers.js";

const SECRET_MARK = "needle-SECRET-7f3a";
const REFUSED = new Set(["path_not_allowed", "invalid_arguments"]);

interface Outcome {
  readonly code: string | undefined;
  readonly everything: string;
  /** Every `path` the structured data names (matches, files, samples). */
  readonly paths: string[];
}

function pathsIn(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) pathsIn(item, into);
  else if (typeof value === "object" && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === "path" && typeof inner === "string") into.push(inner);
      else pathsIn(inner, into);
    }
  }
  return into;
}

async function call(
  registry: ToolRegistry,
  args: Record<string, unknown>,
  caller = "hostile",
): Promise<Outcome> {
  const result = await registry.call("code_search", args, { caller });
  const everything = JSON.stringify(result);
  return {
    code: result.isError ? (result as { error: { code: string } }).error.code : undefined,
    everything,
    paths: result.isError ? [] : pathsIn(result.data),
  };
}

describe("hostile paths", () => {
  let outside: string;
  let root: string;
  let remote: ToolRegistry;
  let local: ToolRegistry;

  before(async () => {
    outside = await makeTree({
      "plain/notes.txt": "needle outside\n",
      "home/.ssh/id_ed25519": `${SECRET_MARK}\n`,
      "home/.aws/credentials": `${SECRET_MARK}\n`,
      "secrets/token.txt": `${SECRET_MARK}\n`,
    });
    root = await makeTree({
      "src/a.ts": "export const needle = 1;\n",
      "src/b.py": "needle = 2\n",
      ".git/config": `${SECRET_MARK}\n`,
      ".git/HEAD": "ref: refs/heads/main\n",
      "nested/.ssh/key": `${SECRET_MARK}\n`,
      ".bash_history": `${SECRET_MARK}\n`,
      "nested/.zsh_history": `${SECRET_MARK}\n`,
      "nested/.python_history": `${SECRET_MARK}\n`,
      ".azure/accessTokens.json": `${SECRET_MARK}\n`,
      ".docker/config.json": `${SECRET_MARK}\n`,
      ".kube/config": `${SECRET_MARK}\n`,
      ".cargo/credentials.toml": `${SECRET_MARK}\n`,
      ".m2/settings.xml": `${SECRET_MARK}\n`,
      ".config/gh/hosts.yml": `${SECRET_MARK}\n`,
      ".config/evident/config.json": `${SECRET_MARK}\n`,
      ".terraform.d/credentials.tfrc.json": `${SECRET_MARK}\n`,
      // EVIDENT_CONFIG and EVIDENT_CACHE_DIR below point here: evident's own files.
      "ops/evident.json": `${SECRET_MARK}\n`,
      "ops/cache/code/cursor.key": `${SECRET_MARK}\n`,
      "link-out": { symlink: join(outside, "secrets") },
      "link-out-file": { symlink: join(outside, "secrets/token.txt") },
      "link-plain": { symlink: join(outside, "plain") },
      "link-git": { symlink: ".git" },
      "link-git-config": { symlink: ".git/config" },
      "link-ssh": { symlink: join(outside, "home/.ssh") },
      "link-proc": { symlink: "/proc/self" },
      "link-root": { symlink: "/" },
      "link-parent": { symlink: ".." },
      "link-cache": { symlink: "ops/cache" },
      "link-config": { symlink: "ops/evident.json" },
      "link-loop-a": { symlink: "link-loop-b" },
      "link-loop-b": { symlink: "link-loop-a" },
    });
    await mkdir(join(root, "src/deeper"), { recursive: true });
    await symlink("../..", join(root, "src/deeper/up"));
    await symlink(join(root, "link-out"), join(root, "src/chain"));
    await writeFile(join(root, "src/deeper/c.ts"), "needle\n");
    const env = {
      PATH: process.env.PATH,
      HOME: join(outside, "home"),
      EVIDENT_CONFIG: join(root, "ops/evident.json"),
      EVIDENT_CACHE_DIR: join(root, "ops/cache"),
    };
    remote = createProductRegistry({
      cwd: root,
      settings: resolveSettings(env),
      logger: silentLogger,
      confined: true,
    });
    local = createProductRegistry({ cwd: root, settings: resolveSettings(env), logger: silentLogger });
  });
  after(async () => {
    await remote.close();
    await local.close();
    await removeTree(root);
    await removeTree(outside);
  });

  /** Forms refused to every caller: protected areas, by name, by canonical path, by system area. */
  const protectedForms = () => [
    ".git",
    ".git/config",
    ".GIT/config",
    "./src/../.git/HEAD",
    "link-git",
    "link-git/config",
    "link-git-config",
    "nested/.ssh/key",
    "link-ssh",
    "link-ssh/id_ed25519",
    join(outside, "home/.ssh"),
    join(outside, "home/.aws/credentials"),
    ".bash_history",
    "nested/.zsh_history",
    "nested/.python_history",
    ".azure",
    ".docker/config.json",
    ".kube/config",
    ".cargo/credentials.toml",
    ".m2/settings.xml",
    ".config/gh",
    ".config/evident/config.json",
    ".terraform.d",
    "ops/evident.json",
    "link-config",
    "ops/cache",
    "ops/cache/code/cursor.key",
    "link-cache/code",
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/sudoers",
    "/etc/ssh/ssh_host_ed25519_key",
    "/proc/self/environ",
    "/proc/self/cwd",
    "//proc/1/environ",
    "/dev/stdin",
    "/sys/kernel",
    "link-proc/environ",
    `${"../".repeat(30)}proc/self/environ`,
    "link-loop-a",
  ];

  /** Forms a remote caller may not use: anything outside the project root. */
  const outsideForms = () => [
    "..",
    "../..",
    "/",
    "/etc",
    "/etc/passwd",
    outside,
    join(outside, "plain"),
    join(outside, "plain/notes.txt"),
    join(outside, "secrets/token.txt"),
    "src/../../x",
    "link-out",
    "link-out-file",
    "link-plain",
    "link-root",
    "link-parent",
    join("link-parent", basename(outside), "plain"),
    "src/chain",
    `./${"../".repeat(50)}etc`,
  ];

  /** Malformed forms: refused as arguments or paths, never searched. */
  const malformedForms = () => [
    "src\u0000/../../etc",
    "\u0000",
    "a".repeat(CODE_PATH_MAX_CHARS + 1),
    `${"a/".repeat(2_000)}b`,
    "x".repeat(300),
    "~/.ssh",
    "%2e%2e/%2e%2e/etc",
    "..\\..\\etc",
  ];

  it("at least 40 protected forms are refused to remote and local callers alike, without a leak", async () => {
    const forms = protectedForms();
    assert.ok(forms.length >= 40, `${forms.length} forms`);
    for (const registry of [remote, local]) {
      for (const path of forms) {
        for (const args of [{ pattern: "needle", path }, { targets: [{ path, line: 1 }] }]) {
          const outcome = await call(registry, args);
          assert.equal(outcome.code, "path_not_allowed", `${JSON.stringify(args)}: ${outcome.everything}`);
          assert.ok(!outcome.everything.includes(SECRET_MARK), path);
        }
      }
    }
  });

  it("a remote caller is kept inside the project root, lexically and through symlinks", async () => {
    for (const path of outsideForms()) {
      for (const args of [
        { pattern: "needle", path },
        { targets: [{ path, line: 1 }] },
        { path, navigate: "imports" },
      ]) {
        const outcome = await call(remote, args);
        assert.equal(outcome.code, "path_not_allowed", `${JSON.stringify(args)}: ${outcome.everything}`);
        assert.ok(!outcome.everything.includes(SECRET_MARK), path);
        assert.ok(!outcome.everything.includes("needle outside"), path);
      }
    }
  });

  it("a remote caller may name a path inside the root absolutely or through `..`, as README says", async () => {
    for (const path of [join(root, "src"), "src/deeper/../deeper", `${root}/src/../src/deeper`]) {
      const outcome = await call(remote, { pattern: "needle", path });
      assert.equal(outcome.code, undefined, `${path}: ${outcome.everything}`);
      assert.match(outcome.everything, /needle/);
    }
    const readme = readFileSync(resolve(import.meta.dirname, "../../README.md"), "utf8").replace(/\s+/g, " ");
    assert.match(
      readme,
      /Over HTTP it searches only inside the root \(a path, absolute or with `\.\.`, must resolve inside it/,
    );
  });

  it("a local caller may still name a plain directory outside the root", async () => {
    const outcome = await call(local, { pattern: "needle", path: join(outside, "plain") });
    assert.equal(outcome.code, undefined, outcome.everything);
    assert.match(outcome.everything, /needle outside/);
    const secret = await call(local, { pattern: "needle", path: join(outside, "secrets") });
    // Outside, not protected: allowed locally (the marker is there), refused remotely.
    assert.equal(secret.code, undefined);
    assert.equal(
      (await call(remote, { pattern: "needle", path: join(outside, "secrets") })).code,
      "path_not_allowed",
    );
  });

  it("malformed paths are refused with a clear code, never searched", async () => {
    for (const registry of [remote, local]) {
      for (const path of malformedForms()) {
        const outcome = await call(registry, { pattern: "needle", path });
        assert.ok(
          outcome.code !== undefined && REFUSED.has(outcome.code),
          `${path.slice(0, 40)}: ${outcome.code}`,
        );
        assert.ok(!outcome.everything.includes(SECRET_MARK));
      }
    }
  });

  it("broad scans with globs that re-include protected areas, or follow symlinks out, leak nothing", async () => {
    const globs: (string | string[])[] = [
      "**",
      ".git/**",
      "**/.ssh/**",
      ["**/.*_history", "**/.bash_history"],
      ["ops/**", "ops/cache/**", "**/cursor.key", "**/evident.json"],
      ["link-out/**", "link-*/**", "src/chain/**", "src/deeper/up/**"],
      ["**/.config/**", "**/.azure/**", "**/.kube/**", "**/.cargo/**", "**/.m2/**"],
      ["!src/**", "**/config*"],
    ];
    for (const registry of [remote, local]) {
      for (const glob of globs) {
        // src/deeper/up is the project root again, reached through a symlink.
        for (const extra of [
          {},
          { mode: "summary" },
          { mode: "matches" },
          { hidden: true },
          { path: "src/deeper/up" },
        ]) {
          const outcome = await call(registry, { pattern: "needle", glob, ...extra });
          assert.equal(outcome.code, undefined, outcome.everything);
          assert.ok(
            !outcome.everything.includes(SECRET_MARK),
            `${JSON.stringify(glob)} ${JSON.stringify(extra)}`,
          );
          const listed = outcome.paths.join("\n");
          for (const name of [
            ".git",
            ".ssh",
            "_history",
            "evident.json",
            "cursor.key",
            "token.txt",
            "ops/",
          ]) {
            assert.ok(!listed.includes(name), `${name} listed for ${JSON.stringify(glob)}: ${listed}`);
          }
        }
      }
      // The search itself works: both plain files are found.
      const found = await call(registry, { pattern: "needle", mode: "matches" });
      assert.match(found.everything, /src\/a\.ts/);
      assert.match(found.everything, /src\/deeper\/c\.ts/);
    }
  });

  it("a remote caller's client roots cannot move the project root", async () => {
    const result = await remote.call(
      "code_search",
      { pattern: "needle" },
      { caller: "hostile", clientRoots: [join(outside, "plain")] },
    );
    assert.equal(result.isError, false);
    assert.doesNotMatch(JSON.stringify(result), /needle outside/);
  });

  it("G12: forged and cross-caller cursors reach no other caller's result", async () => {
    const first = await remote.call("code_search", { pattern: "needle", limit: 1 }, { caller: "alice" });
    assert.equal(first.isError, false);
    const cursor = (first.data as { cursor?: string }).cursor;
    assert.ok(cursor !== undefined);
    const flip = (text: string, at: number) =>
      text.slice(0, at) + (text[at] === "A" ? "B" : "A") + text.slice(at + 1);
    const forged = [
      cursor,
      flip(cursor, 0),
      flip(cursor, Math.floor(cursor.length / 2)),
      flip(cursor, cursor.length - 1),
      `${cursor}A`,
      cursor.slice(0, -4),
      "A".repeat(cursor.length),
      Buffer.from(JSON.stringify({ id: "x", caller: "alice" })).toString("base64url"),
      "../../etc/passwd",
    ];
    for (const [i, candidate] of forged.entries()) {
      const outcome = await call(remote, { cursor: candidate }, "mallory");
      assert.ok(outcome.code?.startsWith("cursor_"), `form ${i}: ${outcome.code}`);
      assert.doesNotMatch(outcome.everything, /src\/(a|b|deeper)/, `form ${i}`);
    }
    // Its own caller continues it.
    const own = await remote.call("code_search", { cursor }, { caller: "alice" });
    assert.equal(own.isError, false, JSON.stringify(own));
  });
});

describe("evident mcp --transport http confines code_search", () => {
  it("a call over the real HTTP server naming a path outside the root is path_not_allowed", async () => {
    const outside = await makeTree({ "plain/notes.txt": "needle outside\n" });
    const root = await makeTree({ "src/a.ts": "needle\n", "link-out": { symlink: join(outside, "plain") } });
    const token = "h".repeat(40);
    // The built entry (npm test builds first), run from the root as an operator would.
    const main = resolve(import.meta.dirname, "../../dist/adapters/cli/main.js");
    const server = spawn(process.execPath, [main, "mcp", "--transport", "http"], {
      cwd: root,
      env: { ...process.env, EVIDENT_AUTH_TOKEN: token, EVIDENT_HTTP_PORT: "0", EVIDENT_ROOT: root },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = new Promise((done) => server.once("exit", done));
    try {
      const url = await new Promise<string>((found, fail) => {
        let err = "";
        server.stderr?.on("data", (chunk: Buffer) => {
          err += chunk.toString();
          const match = /listening on (\S+)/.exec(err);
          if (match?.[1]) found(match[1]);
        });
        server.once("exit", () => fail(new Error(`exited early: ${err}`)));
      });
      const search = async (path: string) => {
        const response = await fetch(url, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2025-11-25",
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: { name: "code_search", arguments: { pattern: "needle", path } },
          }),
        });
        return response.text();
      };
      for (const path of ["..", outside, join(outside, "plain"), "link-out"]) {
        const body = await search(path);
        assert.match(body, /path_not_allowed/, path);
        assert.doesNotMatch(body, /needle outside/, path);
      }
      assert.match(await search("src"), /src\/a\.ts/);
    } finally {
      server.kill("SIGTERM");
      await exited;
      await removeTree(root);
      await removeTree(outside);
    }
  });
});
