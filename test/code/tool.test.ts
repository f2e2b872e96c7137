import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmod, mkdir, open, realpath, symlink, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { resolveRgPath } from "../../src/code/rg/binary.js";
import { resolveSettings } from "../../src/config/settings.js";
import {
  CODE_CURSOR_MAX_CHARS,
  CODE_GLOBS_MAX,
  CODE_PATH_MAX_CHARS,
  CODE_PATHS_MAX,
  CODE_PATTERN_MAX_CHARS,
  CODE_SEARCH_ROOTS_KEPT,
  KEPT_MIN_BYTES,
  SNAPSHOT_FILE_OVERHEAD_BYTES,
} from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";
import { createCodeSearchTool } from "../../src/tools/code-search.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { makeTree, processesIn, RG, removeTree } from "./helpers.js";
import { errorCode } from "./service-helpers.js";

/** One code_search call as a client whose only MCP root is `root` makes it. */
function callInRoot(
  tool: ReturnType<typeof createCodeSearchTool>,
  root: string,
  input: Record<string, unknown>,
) {
  return tool.handler(input as never, {
    signal: new AbortController().signal,
    progress: () => {},
    logger: silentLogger,
    caller: "x",
    clientRoots: [root],
  });
}

describe("code_search tool", () => {
  let root: string;
  let registry: ToolRegistry;
  before(async () => {
    root = await makeTree({ "src/a.ts": "export const needle = 1;\n" });
    registry = new ToolRegistry().register(
      createCodeSearchTool({ cwd: root, settings: resolveSettings(process.env), logger: silentLogger }),
    );
  });
  after(async () => {
    await registry.close();
    await removeTree(root);
  });

  it("is listed read-only and closed-world with a strict input schema", () => {
    const [listing] = registry.list();
    assert.equal(listing?.name, "code_search");
    assert.deepEqual(
      { readOnly: listing?.annotations.readOnlyHint, openWorld: listing?.annotations.openWorldHint },
      { readOnly: true, openWorld: false },
    );
    assert.equal(listing?.inputSchema.additionalProperties, false);
    assert.match(listing?.description ?? "", /cursor/);
  });

  it("teaches search, then inspect, in a description under 1,024 characters and a flat schema", () => {
    const [listing] = registry.list();
    const description = listing?.description ?? "";
    assert.ok(description.length <= 1_024, `${description.length} characters`);
    for (const word of [
      "pattern",
      "cursor",
      "inspect",
      "matchIndices",
      "sourceCursor",
      "structure",
      "targets",
      "anyOf",
      "changes",
      "impact",
      "navigate",
      '{"guide": true}',
    ]) {
      assert.ok(description.includes(word), word);
    }
    // The same wherever the tool runs: the root is named by each answer and the guide.
    assert.ok(!description.includes(root), "names no directory");
    // One flat object that the major model APIs accept: no references, no alternatives.
    const schema = listing?.inputSchema ?? {};
    assert.equal(schema.type, "object");
    // (A property may be named anyOf; the keyword's value is a list.)
    assert.doesNotMatch(JSON.stringify(schema), /"(anyOf|oneOf|allOf)":\[|"\$ref":|"\$defs":/);
  });

  it("answers through the registry with text and structured data", async () => {
    const result = await registry.call("code_search", { pattern: "needle" }, { caller: "t" });
    assert.equal(result.isError, false);
    assert.match(result.text, /src\/a\.ts/);
    assert.equal((result.data as { totalMatches: number }).totalMatches, 1);
  });

  const cases: [string, Record<string, unknown>, string][] = [
    ["empty pattern", { pattern: "" }, "pattern"],
    ["pattern too long", { pattern: "x".repeat(CODE_PATTERN_MAX_CHARS + 1) }, "pattern"],
    ["pattern not a string", { pattern: 5 }, "pattern"],
    ["pattern with NUL", { pattern: "a\u0000b" }, "pattern"],
    ["neither pattern nor cursor", {}, "pattern"],
    ["pattern with a line break", { pattern: "a\nb", literal: true }, "pattern"],
    ["regex escape for a line break", { pattern: "a\\nb" }, "pattern"],
    ["empty path", { pattern: "x", path: "" }, "path"],
    ["path too long", { pattern: "x", path: "a".repeat(CODE_PATH_MAX_CHARS + 1) }, "path"],
    ["path not a string", { pattern: "x", path: ["src"] }, "path"],
    ["missing path", { pattern: "x", path: "does/not/exist" }, "path"],
    ["paths without cursor", { pattern: "x", paths: ["a"] }, "paths"],
    ["empty paths", { cursor: "c", paths: [] }, "paths"],
    [
      "too many paths",
      { cursor: "c", paths: Array.from({ length: CODE_PATHS_MAX + 1 }, (_, i) => `f${i}`) },
      "paths",
    ],
    ["paths entry empty", { cursor: "c", paths: [""] }, "paths[0]"],
    // One glob is read as a list of one, and reported as its entry.
    ["glob empty", { pattern: "x", glob: "" }, "glob[0]"],
    ["glob list empty", { pattern: "x", glob: [] }, "glob"],
    [
      "too many globs",
      { pattern: "x", glob: Array.from({ length: CODE_GLOBS_MAX + 1 }, () => "*.ts") },
      "glob",
    ],
    ["glob not a string", { pattern: "x", glob: 3 }, "glob"],
    ["exclude not a string", { pattern: "x", exclude: { a: 1 } }, "exclude"],
    ["exclude list empty", { pattern: "x", exclude: [] }, "exclude"],
    ["literal not boolean", { pattern: "x", literal: "yes" }, "literal"],
    ["ignoreCase not boolean", { pattern: "x", ignoreCase: 1 }, "ignoreCase"],
    ["wholeWord not boolean", { pattern: "x", wholeWord: "true" }, "wholeWord"],
    ["hidden not boolean", { pattern: "x", hidden: null }, "hidden"],
    ["context negative", { pattern: "x", context: -1 }, "context"],
    ["context too large", { pattern: "x", context: 21 }, "context"],
    ["context fractional", { pattern: "x", context: 1.5 }, "context"],
    ["limit zero", { pattern: "x", limit: 0 }, "limit"],
    ["limit too large", { pattern: "x", limit: 101 }, "limit"],
    ["limit not a number", { pattern: "x", limit: "10" }, "limit"],
    ["cursor empty", { cursor: "" }, "cursor"],
    ["cursor too long", { cursor: "a".repeat(CODE_CURSOR_MAX_CHARS + 1) }, "cursor"],
    ["scope unknown", { pattern: "x", scope: "wide" }, "scope"],
    ["mode unknown", { pattern: "x", mode: "all" }, "mode"],
    ["redact not boolean", { pattern: "x", redact: "no" }, "redact"],
    ["unknown field", { pattern: "x", regex: true }, "regex"],
    ["bad regex", { pattern: "a{2,1}" }, "pattern"],
    ["bad glob", { pattern: "x", glob: "{a" }, "glob"],
  ];
  for (const [label, args, field] of cases) {
    it(`A07: ${label} is invalid_arguments naming ${field}`, async () => {
      const result = await registry.call("code_search", args, { caller: "t" });
      assert.equal(result.isError, true, label);
      if (!result.isError) return;
      assert.equal(result.data.error.code, "invalid_arguments", result.text);
      assert.equal(result.data.error.field, field, result.text);
    });
  }

  it("close releases the service's snapshots and its waiting ripgrep, and can run twice", async () => {
    const tree = await makeTree({ "a.txt": "needle\n", "b.txt": "needle\n", "c.txt": "needle\n" });
    const local = createCodeSearchTool({
      cwd: tree,
      settings: resolveSettings(process.env),
      logger: silentLogger,
    });
    const call = (input: Record<string, unknown>) =>
      local.handler(input as never, {
        signal: new AbortController().signal,
        progress: () => {},
        logger: silentLogger,
        caller: "x",
      });
    try {
      const first = await call({ pattern: "needle", limit: 1, mode: "matches" });
      const cursor = (first.data as { cursor?: string }).cursor;
      assert.ok(cursor !== undefined);
      // Its snapshot is there before close: the cursor continues.
      assert.equal(((await call({ cursor })).data as { shownFrom: number }).shownFrom, 2);
      await local.close?.();
      assert.deepEqual(await processesIn(tree), [], "the ripgrep kept for the next search is gone");
      // A later call gets a new service; the closed one's snapshots are not found.
      assert.match(await errorCode(call({ cursor })), /^cursor_/);
      await local.close?.();
      await local.close?.();
      assert.deepEqual(await processesIn(tree), []);
    } finally {
      await removeTree(tree);
    }
  });
  it("keeps services for the most recently used roots only; an older root's are closed", async () => {
    const roots = await Promise.all(
      Array.from({ length: CODE_SEARCH_ROOTS_KEPT + 2 }, () =>
        makeTree({ "a.txt": "needle\n", "b.txt": "needle\n", "c.txt": "needle\n" }),
      ),
    );
    const local = createCodeSearchTool({
      cwd: roots[0] as string,
      settings: resolveSettings(process.env),
      logger: silentLogger,
    });
    const call = (root: string, input: Record<string, unknown>) => callInRoot(local, root, input);
    try {
      const cursors: string[] = [];
      for (const root of roots) {
        const first = await call(root, { pattern: "needle", limit: 1, mode: "matches" });
        cursors.push((first.data as { cursor: string }).cursor);
      }
      const retired = roots.slice(0, 2);
      for (const root of retired) assert.deepEqual(await processesIn(root), [], root);
      // The kept roots continue their cursors; the retired ones' snapshots went with their service.
      for (const [i, root] of roots.entries()) {
        if (i < 2) continue;
        const page = await call(root, { cursor: cursors[i] });
        assert.equal((page.data as { shownFrom: number }).shownFrom, 2, root);
      }
      assert.match(await errorCode(call(retired[0] as string, { cursor: cursors[0] })), /^cursor_/);
    } finally {
      await local.close?.();
      for (const root of roots) {
        assert.deepEqual(await processesIn(root), []);
        await removeTree(root);
      }
    }
  });
  it("the roots a surface serves share one snapshot bound, not one each", async () => {
    const roots = await Promise.all([1, 2].map(() => makeTree({ "a.txt": "needle\n", "b.txt": "needle\n" })));
    const [a, b] = roots as [string, string];
    const local = createCodeSearchTool({
      cwd: a,
      settings: resolveSettings({ ...process.env, EVIDENT_KEPT_MAX_BYTES: String(KEPT_MIN_BYTES) }),
      logger: silentLogger,
    });
    const call = (root: string, input: Record<string, unknown>) => callInRoot(local, root, input);
    try {
      const first = await call(a, { pattern: "needle", limit: 1, mode: "matches" });
      const cursor = (first.data as { cursor: string }).cursor;
      // More results in the other root than the bound holds (each counts at least its files'
      // overhead): the first one's goes.
      for (let i = 0; i < KEPT_MIN_BYTES / SNAPSHOT_FILE_OVERHEAD_BYTES; i++) {
        assert.equal((await call(b, { pattern: `needle|x${i}`, limit: 1, mode: "matches" })).isError, false);
      }
      assert.equal(await errorCode(call(a, { cursor })), "cursor_expired");
    } finally {
      await local.close?.();
      for (const root of roots) await removeTree(root);
    }
  });

  it("a call on a root retired while it runs finishes; the retired service closes after it", async () => {
    const roots = await Promise.all(
      Array.from({ length: CODE_SEARCH_ROOTS_KEPT + 1 }, () => makeTree({ "a.txt": "needle\n" })),
    );
    const held = await realpath(roots[0] as string);
    const bin = await makeTree({});
    const gate = join(bin, "gate");
    spawnSync("mkfifo", [gate]);
    // ripgrep, held at the gate when it runs in the first root only.
    const rg = join(bin, "rg");
    await writeFile(
      rg,
      `#!/bin/bash\nif [ "$(pwd -P)" = '${held}' ]; then read -r _ < '${gate}'; fi\nexec '${RG}' "$@"\n`,
    );
    await chmod(rg, 0o755);
    const local = createCodeSearchTool({
      cwd: held,
      settings: resolveSettings({ ...process.env, EVIDENT_RG_PATH: rg }),
      logger: silentLogger,
    });
    const call = (root: string) => callInRoot(local, root, { pattern: "needle" });
    try {
      const first = call(held);
      // Opening the gate for writing returns once the first root's ripgrep waits there.
      const writer = await open(gate, "w");
      for (const root of roots.slice(1)) assert.equal((await call(root)).isError, false);
      assert.notDeepEqual(await processesIn(held), [], "still held, not ended by the retirement");
      // Gone, the gate holds no later ripgrep; closed, it lets the waiting one go.
      await unlink(gate);
      await writer.close();
      const answer = await first;
      assert.equal(answer.isError, false, JSON.stringify(answer));
      assert.match(answer.text, /a\.txt/);
    } finally {
      await local.close?.();
      for (const root of [...roots, bin]) {
        assert.deepEqual(await processesIn(root), []);
        await removeTree(root);
      }
    }
  });
});

describe("ripgrep resolution", () => {
  let dir: string;
  before(async () => {
    dir = await makeTree({ "bin/.keep": "" });
    await symlink(RG, join(dir, "bin/rg"));
    await mkdir(join(dir, "notexec"), { recursive: true });
  });
  after(async () => {
    await removeTree(dir);
  });
  const noBundle = async (): Promise<string> => {
    throw new Error("platform package missing");
  };
  // As the product resolves it: EVIDENT_RG_PATH and PATH read by config/, then the lookup.
  const resolveFor = (env: Record<string, string>, loadBundled?: () => Promise<string>) => {
    const settings = resolveSettings(env);
    return resolveRgPath(settings.rgPath, settings.childEnvironment, loadBundled);
  };

  it("prefers EVIDENT_RG_PATH and refuses a bad one with a fix", async () => {
    assert.deepEqual(await resolveFor({ EVIDENT_RG_PATH: RG }), { path: RG, source: "EVIDENT_RG_PATH" });
    for (const bad of ["rg", "/nonexistent/rg", join(dir, "notexec")]) {
      const error = await resolveFor({ EVIDENT_RG_PATH: bad }).catch((e: unknown) => e);
      assert.equal((error as { code?: string }).code, "configuration_error", bad);
      assert.match((error as Error).message, /EVIDENT_RG_PATH/);
    }
  });

  it("uses @vscode/ripgrep's binary, then rg on PATH, else configuration_error", async () => {
    assert.equal((await resolveFor({})).source, "@vscode/ripgrep");
    assert.deepEqual(await resolveFor({ PATH: `/nonexistent:${join(dir, "bin")}` }, noBundle), {
      path: join(dir, "bin/rg"),
      source: "PATH",
    });
    assert.equal(await errorCode(resolveFor({ PATH: "/nonexistent" }, noBundle)), "configuration_error");
    const error = await resolveFor({ PATH: "" }, noBundle).catch((e: unknown) => e);
    assert.match((error as Error).message, /npm install @vscode\/ripgrep/);
  });
});
