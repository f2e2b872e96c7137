/**
 * Which directory code_search searches when an MCP client launches `evident mcp`: the client's
 * roots when it offers them (and again after it says they changed), else `--root` /
 * EVIDENT_ROOT, else the directory it was started in, but never `/` or the home directory
 * itself without a setting. The same rule holds on every surface (the CLI, MCP over HTTP, the
 * SDK; Pi's case is in pi/extension.test.ts), each saying how to set the root in its own terms.
 * The official SDK client; `evident` runs in this process (the executable's `runCli`,
 * test/adapters/run-evident.ts), except where the home directory is the case: the OS's home
 * directory is the process's own, so those cases start the built executable with their HOME.
 */
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { resolveSettings } from "../../src/config/settings.js";
import { resolveProjectRoot, rootsFromUris } from "../../src/tools/project-root.js";
import { treesRemovedAfter } from "../code/helpers.js";
import {
  connectInProcess,
  EVIDENT_CLI,
  evidentInProcess,
  evidentProcess,
  processRun,
  type Run,
} from "./run-evident.js";

const ENTRY = resolve(import.meta.dirname, "../../dist/index.js");
const TOKEN = "t".repeat(40);
const tree = treesRemovedAfter(after);

interface Session {
  client: Client;
  search(pattern: string): Promise<{ isError: boolean; text: string }>;
  /** code_search's guide, which names the root a search would use. */
  guide(): Promise<string>;
}

function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", ...extra };
}

async function withServer(
  options: {
    cwd: string;
    args?: string[];
    env?: Record<string, string>;
    roots?: string[][];
    /** The built executable, a process of its own (for a HOME of the case's own). */
    process?: boolean;
  },
  body: (session: Session, setRoots: (next: string[]) => Promise<void>) => Promise<void>,
) {
  let roots = options.roots?.[0];
  const client = new Client(
    { name: "roots-test", version: "1.0.0" },
    roots === undefined ? {} : { capabilities: { roots: { listChanged: true } } },
  );
  if (roots !== undefined) {
    client.setRequestHandler("roots/list", async () => ({
      roots: (roots ?? []).map((dir) => ({ uri: pathToFileURL(dir).href, name: dir })),
    }));
  }
  const args = options.args ?? [];
  const env = baseEnv(options.env);
  let close: () => Promise<unknown>;
  if (options.process === true) {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [EVIDENT_CLI, "mcp", ...args],
        cwd: options.cwd,
        env,
        stderr: "pipe",
      }),
    );
    close = () => client.close();
  } else {
    const server = await connectInProcess(client, args, { cwd: options.cwd, env });
    close = () => server.close();
  }
  const session: Session = {
    client,
    async search(pattern) {
      const result = await client.callTool({ name: "code_search", arguments: { pattern } });
      const text = (result.content as Array<{ text: string }>).map((part) => part.text).join("");
      return { isError: result.isError === true, text };
    },
    async guide() {
      const result = await client.callTool({ name: "code_search", arguments: { guide: true } });
      return (result.content as Array<{ text: string }>).map((part) => part.text).join("");
    },
  };
  try {
    await body(session, async (next) => {
      roots = next;
      await client.sendRootsListChanged();
    });
  } finally {
    await close();
  }
}

describe("code_search's project root", () => {
  it("--root and EVIDENT_ROOT name it; the guide and every result say which", async () => {
    const project = realpathSync(await tree({ "a.txt": "needle in project\n" }));
    const elsewhere = await tree({ "b.txt": "needle elsewhere\n" });
    for (const setting of [{ args: ["--root", project] }, { env: { EVIDENT_ROOT: project } }]) {
      await withServer({ cwd: elsewhere, ...setting }, async (session) => {
        assert.match(
          await session.guide(),
          new RegExp(`^Project root: ${project} \\(from (--root|EVIDENT_ROOT)\\)\n`),
        );
        const result = await session.search("needle");
        assert.equal(result.isError, false);
        assert.ok(result.text.startsWith(`Project root: ${project}\n`), result.text);
        assert.match(result.text, /a\.txt/);
        assert.doesNotMatch(result.text, /b\.txt/);
      });
    }
  });

  it("refuses / and the home directory itself without a setting, saying how to set it", async () => {
    const home = realpathSync(await tree({ "c.txt": "needle at home\n" }));
    for (const [cwd, env] of [
      ["/", {}],
      [home, { HOME: home }],
    ] as const) {
      await withServer({ cwd, env, process: cwd === home }, async (session) => {
        const { tools } = await session.client.listTools();
        assert.deepEqual(
          tools.map((tool) => tool.name),
          ["web_search", "web_read", "code_search"],
          "tools stay listed",
        );
        const result = await session.search("needle");
        assert.equal(result.isError, true);
        const error = JSON.parse(result.text).error;
        assert.equal(error.code, "configuration_error");
        assert.match(error.message, /--root DIR.*EVIDENT_ROOT=DIR/);
      });
    }
    // An explicit setting may name the home directory.
    await withServer(
      { cwd: "/", env: { HOME: home }, args: ["--root", home], process: true },
      async (session) => {
        assert.equal((await session.search("needle")).isError, false);
      },
    );
    // A root that is not a directory is a configuration error too.
    await withServer({ cwd: home, args: ["--root", join(home, "missing")] }, async (session) => {
      const result = await session.search("needle");
      assert.equal(JSON.parse(result.text).error.code, "configuration_error");
      assert.match(JSON.parse(result.text).error.message, /not a directory/);
    });
  });

  it("follows the client's roots, and their change, over the server's own root", async () => {
    const first = realpathSync(await tree({ "first.txt": "needle one\n" }));
    const second = realpathSync(await tree({ "second.txt": "needle two\n" }));
    const started = await tree({ "started.txt": "needle started\n" });
    await withServer({ cwd: started, roots: [[first, second]] }, async (session, setRoots) => {
      const one = await session.search("needle");
      assert.ok(one.text.startsWith(`Project root: ${first}\n`), one.text);
      assert.match(one.text, /first\.txt/);
      await setRoots([second]);
      // The change notification is handled before the next request on the same connection.
      const two = await session.search("needle");
      assert.ok(two.text.startsWith(`Project root: ${second}\n`), two.text);
      assert.match(two.text, /second\.txt/);
      assert.ok((await session.guide()).startsWith(`Project root: ${second} (from client roots)\n`));
    });
    // Started in / but the client names its roots: no refusal.
    await withServer({ cwd: "/", roots: [[first]] }, async (session) => {
      const result = await session.search("needle");
      assert.equal(result.isError, false);
      assert.match(result.text, /first\.txt/);
    });
  });

  it("keeps only local file roots, in the client's order", () => {
    assert.deepEqual(rootsFromUris(["https://example.com/x", "file:///srv/a", "file:///srv/b%20c"]), [
      "/srv/a",
      "/srv/b c",
    ]);
    const dir = mkdtempSync(join(tmpdir(), "evident-root-"));
    try {
      assert.deepEqual(
        resolveProjectRoot({
          surface: "mcp",
          settings: resolveSettings({}),
          cwd: dir,
          home: "/nonexistent-home",
        }),
        {
          path: dir,
          origin: "working directory",
        },
      );
      assert.ok(
        "error" in resolveProjectRoot({ surface: "mcp", settings: resolveSettings({}), cwd: dir, home: dir }),
      );
      assert.deepEqual(
        resolveProjectRoot({
          surface: "mcp",
          settings: resolveSettings({ EVIDENT_ROOT: "." }),
          cwd: dir,
          home: dir,
        }),
        {
          path: dir,
          origin: "EVIDENT_ROOT",
        },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("one rule on every surface: the CLI refuses / and ~ as the server does, and says its own way to set the root", async () => {
    const home = realpathSync(await tree({ "c.txt": "needle at home\n" }));
    const project = realpathSync(await tree({ "a.txt": "needle in project\n" }));
    for (const cwd of ["/", home]) {
      const options = { cwd, env: baseEnv({ HOME: home }) };
      const run = await (cwd === home ? evidentProcess : evidentInProcess)(["grep", "needle"], options);
      assert.equal(run.code, 1, run.stderr);
      const error = JSON.parse(run.stderr).error;
      assert.equal(error.code, "configuration_error");
      assert.match(error.message, /will not search the (filesystem root|home directory)/);
      assert.match(error.message, /name it with --root DIR or EVIDENT_ROOT=DIR/);
      assert.doesNotMatch(error.message, /evident mcp|MCP client|client roots/);
    }
    // --root and EVIDENT_ROOT name it, as for the server.
    for (const setting of [{ args: ["--root", project] }, { env: { EVIDENT_ROOT: project } }]) {
      const run = await evidentInProcess(["grep", "needle", "--text", ...(setting.args ?? [])], {
        cwd: "/",
        env: baseEnv({ HOME: home, ...setting.env }),
      });
      assert.equal(run.code, 0, run.stderr);
      assert.ok(run.stdout.startsWith(`Project root: ${project}\n`), run.stdout);
      assert.match(run.stdout, /a\.txt/);
    }
    const missing = await evidentInProcess(["grep", "needle", "--root", join(project, "missing")], {
      cwd: project,
      env: baseEnv(),
    });
    assert.equal(JSON.parse(missing.stderr).error.code, "configuration_error");
    assert.match(JSON.parse(missing.stderr).error.message, /--root names .* not a directory/);
  });

  it("one rule on every surface: over HTTP the refusal names the server's settings, never client roots", async () => {
    const stop = new AbortController();
    let listening: (url: string) => void = () => {};
    const url = new Promise<string>((found) => {
      listening = found;
    });
    let stderr = "";
    const served = evidentInProcess(["mcp", "--transport", "http"], {
      cwd: "/",
      env: baseEnv({ EVIDENT_AUTH_TOKEN: TOKEN, EVIDENT_HTTP_PORT: "0" }),
      signal: stop.signal,
      onStderr: (chunk) => {
        stderr += chunk;
        const found = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
        if (found !== undefined) listening(found);
      },
    });
    try {
      const stopped = served.then((run) => {
        throw new Error(`the server stopped: ${run.stderr}`);
      });
      const client = new Client({ name: "roots-test", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(await Promise.race([url, stopped])), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      try {
        const { tools } = await client.listTools();
        const description = tools.find((tool) => tool.name === "code_search")?.description ?? "";
        assert.doesNotMatch(description, /client names its roots|MCP roots/);
        const result = await client.callTool({ name: "code_search", arguments: { pattern: "needle" } });
        assert.equal(result.isError, true);
        const error = JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? "").error;
        assert.equal(error.code, "configuration_error");
        assert.match(error.message, /evident mcp --transport http --root DIR/);
        assert.doesNotMatch(error.message, /client|roots/i);
      } finally {
        await client.close();
      }
    } finally {
      stop.abort();
      assert.equal((await served).code, 0);
    }
  });

  it("one rule on every surface: the SDK refuses / without a cwd, and says to pass one", async () => {
    const script = [
      `import { createEvident } from ${JSON.stringify(ENTRY)};`,
      "const evident = createEvident({ env: { PATH: process.env.PATH } });",
      "try { await evident.codeSearch({ pattern: 'needle' }); console.log('{}'); }",
      "catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message })); }",
      "finally { await evident.close(); }",
    ].join("\n");
    const run = await nodeRun(["--input-type=module", "-e", script], "/");
    assert.equal(run.code, 0, run.stderr);
    const error = JSON.parse(run.stdout);
    assert.equal(error.code, "configuration_error");
    assert.match(error.message, /createEvident\(\{ cwd: DIR \}\)/);
    assert.doesNotMatch(error.message, /evident mcp|client roots/);
  });
});

/** `node ARGS` in `cwd`; asynchronous, so nothing here waits on a blocked loop. */
function nodeRun(args: readonly string[], cwd: string): Promise<Run> {
  return processRun(process.execPath, args, { cwd, env: baseEnv() });
}
