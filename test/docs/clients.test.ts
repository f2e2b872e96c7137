/**
 * The install and every client snippet in docs/CLIENTS.md, as a newcomer meets them: this
 * package packed and its tarball installed into an empty prefix with production dependencies
 * only, then each snippet, read from the document itself, launched exactly as written from a
 * directory outside the clone (the prefix's bin on PATH, placeholders for paths filled in), and
 * driven through tools/list and a code_search call with the official SDK client. The HTTP server
 * is started by the document's own lines, and the remote entries reach it with its token. The Pi
 * install the README shows loads the installed package into Pi. Snippets whose launch is the same
 * (command, arguments, environment, where it starts) are one case run once: each still asserts
 * that run's outcome, and a snippet that changes runs on its own.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { parse as parseYaml } from "yaml";
import { treesRemovedAfter } from "../code/helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");
const PACKAGE = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")) as {
  version: string;
  devDependencies: Record<string, string>;
};
const DOC = readFileSync(resolve(ROOT, "docs/CLIENTS.md"), "utf8");
const README = readFileSync(resolve(ROOT, "README.md"), "utf8");
/** Pi's install and load of a package, as a Pi process (test/docs/fixtures/pi-install.mjs). */
const PI_INSTALL = resolve(import.meta.dirname, "fixtures/pi-install.mjs");
const PROJECT = "/absolute/path/to/your/project";
const NODE = "/absolute/path/to/node";
const MAIN = "/absolute/path/to/evident/dist/adapters/cli/main.js";
const tree = treesRemovedAfter(after);
const work = realpathSync(mkdtempSync(join(tmpdir(), "evident-install-")));
after(() => rmSync(work, { recursive: true, force: true }));

/** The environment for npm, without the npm_* settings of the npm that may be running the tests. */
function npmEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^npm_/i.test(key)) env[key] = value;
  }
  return env;
}

function npm(args: string[], cwd: string): string {
  const run = spawnSync("npm", args, { cwd, env: npmEnv(), encoding: "utf8", timeout: 600_000 });
  assert.equal(run.status, 0, `npm ${args.join(" ")}: ${run.error ?? ""}${run.stderr}`);
  return run.stdout;
}

/** Fenced blocks by the name in the comment above each (`<!-- client: NAME -->`). */
function blocks(kind: "client" | "server"): Map<string, { lang: string; body: string }> {
  const found = new Map<string, { lang: string; body: string }>();
  for (const m of DOC.matchAll(
    new RegExp(`<!-- ${kind}: ([a-z-]+) -->\\n\`\`\`(\\w+)\\n([\\s\\S]*?)\`\`\``, "g"),
  )) {
    found.set(m[1] as string, { lang: m[2] as string, body: m[3] as string });
  }
  return found;
}

interface Launch {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** The stdio launch each snippet names, in its own format. */
function launchOf(client: string, lang: string, body: string): Launch {
  if (lang === "sh") {
    const words = [...body.trim().matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? (m[2] as string));
    const dash = words.indexOf("--");
    assert.ok(dash > 0, `${client}: the command follows --`);
    return { command: words[dash + 1] as string, args: words.slice(dash + 2) };
  }
  if (lang === "json") {
    const json = JSON.parse(body) as Record<string, Record<string, Launch>>;
    const servers = client === "vscode" ? json.servers : json.mcpServers;
    assert.ok(
      servers?.evident,
      `${client}: an "evident" entry under ${client === "vscode" ? "servers" : "mcpServers"}`,
    );
    return servers.evident;
  }
  if (lang === "yaml") {
    const yaml = parseYaml(body) as { mcp_servers: Record<string, Launch> };
    assert.ok(yaml.mcp_servers.evident);
    return yaml.mcp_servers.evident;
  }
  if (lang === "toml") {
    // The subset the snippet uses: one table, string and string-array values.
    assert.match(body, /^\[mcp_servers\.evident\]$/m);
    const command = /^command = "([^"]*)"$/m.exec(body)?.[1];
    const args = /^args = (\[.*\])$/m.exec(body)?.[1];
    assert.ok(command && args, `${client}: command and args`);
    return { command, args: JSON.parse(args) as string[] };
  }
  throw new Error(`${client}: unexpected snippet language ${lang}`);
}

async function exercise(client: Client, project: string): Promise<void> {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), ["code_search", "web_read", "web_search"]);
  const result = await client.callTool({ name: "code_search", arguments: { pattern: "needle" } });
  const text = (result.content as Array<{ text: string }>).map((part) => part.text).join("");
  assert.equal(result.isError ?? false, false, text);
  assert.ok(text.startsWith(`Project root: ${project}\n`), text);
  assert.match(text, /marker\.txt/);
}

describe("docs/CLIENTS.md, run against the packed and installed package", () => {
  const clients = blocks("client");
  const tarballName = `evident-${PACKAGE.version}.tgz`;
  let packed: { filename: string; size: number; files: Array<{ path: string }> };
  let prefix: string;
  /** What a client started from a shell sees: the prefix's bin, node, the system's commands. */
  let path: string;
  let home: string;
  /** Where the docs send the user for the installed package: `npm root -g`, under the prefix. */
  let installed: string;
  /** Each distinct stdio launch, run once: the snippets that name it await its outcome. */
  const launches = new Map<string, Promise<void>>();

  before(() => {
    assert.ok(
      existsSync(resolve(ROOT, "dist/adapters/cli/main.js")),
      "dist/ is missing: npm run build (npm test builds first)",
    );
    // Not the prepack/prepare scripts: they rebuild dist/ under the tests running beside this one.
    const json = npm(["pack", "--ignore-scripts", "--json", "--pack-destination", work], ROOT);
    const [first] = JSON.parse(json) as (typeof packed)[];
    assert.ok(first, "npm pack reported the tarball");
    packed = first;
    prefix = join(work, "prefix");
    // The npm cache `npm ci` filled serves what it can; the registry the rest.
    npm(
      [
        "install",
        "--global",
        "--prefix",
        prefix,
        "--omit=dev",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        join(work, packed.filename),
      ],
      work,
    );
    path = [join(prefix, "bin"), dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":");
    home = mkdtempSync(join(work, "home-"));
    installed = join(npm(["root", "--global", "--prefix", prefix], work).trim(), "evident");
  });

  it("has a snippet for every client the docs promise, each naming the install the docs give", () => {
    assert.deepEqual([...clients.keys()].sort(), [
      "claude-code-cli",
      "claude-code-json",
      "claude-desktop",
      "codex",
      "cursor",
      "hermes",
      "remote-cli",
      "remote-json",
      "vscode",
    ]);
    assert.equal(packed.filename, tarballName);
    for (const doc of [DOC, README]) {
      assert.ok(doc.includes(`npm install -g ./${tarballName}`), "the install names this version's tarball");
    }
  });

  it("no document tells users to run a registry package this project has not published", () => {
    const documents = [
      "README.md",
      "docs/CLIENTS.md",
      "docs/CONFIG.md",
      "docs/DEPLOY.md",
      "docs/ARCHITECTURE.md",
      "docs/DECISIONS.md",
      "docs/PROVIDERS.md",
      "docs/DEPENDENCIES.md",
      "skills/evident/SKILL.md",
    ];
    for (const name of documents) {
      const text = readFileSync(resolve(ROOT, name), "utf8");
      for (const unowned of [
        /\bnpx (?:-y |--yes )?evident\b/,
        /\bnpm:evident\b/,
        /\bnpm (?:install|i|add) (?:-g |--global )?evident\b/,
        /\bnpm exec evident\b/,
      ]) {
        assert.doesNotMatch(text, unowned, `${name} names the unpublished package "evident"`);
      }
    }
  });

  it("the tarball holds the built package and its documents, without tests, fixtures, sources or source maps", () => {
    const files = packed.files.map((file) => file.path);
    for (const needed of [
      "package.json",
      "README.md",
      "dist/adapters/cli/main.js",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/sdk.js",
      "dist/adapters/pi/extension.js",
      "docs/CLIENTS.md",
      "docs/CONFIG.md",
      "docs/schema/config.schema.json",
      "skills/evident/SKILL.md",
    ]) {
      assert.ok(files.includes(needed), `${needed} is in the tarball`);
    }
    for (const file of files) {
      assert.doesNotMatch(file, /^(?:test|src|bench|scripts|deploy|\.ci)\/|fixtures|\.map$|\.test\./, file);
    }
    // Production dependencies only: none of the development ones was installed.
    const modules = join(prefix, "lib/node_modules/evident/node_modules");
    for (const dev of Object.keys(PACKAGE.devDependencies)) {
      assert.ok(!existsSync(join(modules, dev)), `${dev} (a development dependency) was installed`);
    }
    // docs/DEPENDENCIES.md states the tarball's size; it must stay near the truth.
    const stated = /\*\*([\d.]+) kB\*\* tarball/.exec(
      readFileSync(resolve(ROOT, "docs/DEPENDENCIES.md"), "utf8"),
    );
    assert.ok(stated, "docs/DEPENDENCIES.md states the tarball's size as **N kB** tarball");
    const ratio = packed.size / 1000 / Number(stated[1]);
    assert.ok(ratio > 0.75 && ratio < 1.25, `stated ${stated[1]} kB, packed ${packed.size} bytes`);
  });

  it("the shell finds the installed evident, which answers from outside the clone", () => {
    const which = spawnSync("sh", ["-c", "command -v evident"], { env: { PATH: path }, encoding: "utf8" });
    assert.equal(which.stdout.trim(), join(prefix, "bin/evident"));
    const version = spawnSync("evident", ["--version"], { cwd: home, env: { PATH: path, HOME: home } });
    assert.equal(version.status, 0, String(version.stderr));
    assert.equal(String(version.stdout).trim(), PACKAGE.version);
  });

  for (const name of [
    "claude-code-cli",
    "claude-code-json",
    "claude-desktop",
    "cursor",
    "vscode",
    "codex",
    "hermes",
  ]) {
    it(`${name}: the command it names serves tools/list and code_search over stdio`, async () => {
      const snippet = clients.get(name);
      assert.ok(snippet);
      assert.doesNotMatch(snippet.body, /\bnpx\b|\bnpm:/, "no snippet runs a registry package");
      const launch = launchOf(name, snippet.lang, snippet.body);
      // A client starts the server in the project, unless the snippet names the project itself.
      const named = launch.args.includes(PROJECT);
      const key = JSON.stringify([launch.command, launch.args, launch.env ?? {}]);
      let run = launches.get(key);
      if (run === undefined) {
        run = serve(name, launch, named);
        launches.set(key, run);
      }
      await run;
    });
  }

  /** Starts the launch a snippet names, as its client would, and drives it with the SDK client. */
  async function serve(name: string, launch: Launch, named: boolean): Promise<void> {
    const project = realpathSync(await tree({ "marker.txt": "needle\n" }));
    // Where the docs send the user for evident's main file: npm's global folder.
    const main = join(installed, "dist/adapters/cli/main.js");
    const fill = (arg: string) =>
      arg === PROJECT ? project : arg === NODE ? process.execPath : arg === MAIN ? main : arg;
    const command = fill(launch.command);
    assert.ok(command === "evident" || isAbsolute(command), `${name}: the installed evident, or a path`);
    const client = new Client({ name: `clients-doc-${name}`, version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command,
        args: launch.args.map(fill),
        cwd: named ? "/" : project,
        env: { PATH: path, HOME: home, ...(launch.env ?? {}) },
        stderr: "pipe",
      }),
    );
    try {
      await exercise(client, project);
    } finally {
      await client.close();
    }
  }

  it("the server lines start an HTTP server the remote entries reach with the token they keep", async () => {
    const server = blocks("server").get("http");
    assert.ok(server, "a server block");
    // The README shows the same lines, so the two cannot drift apart.
    assert.ok(README.includes(server.body), "the README's server lines are CLIENTS.md's");
    const project = realpathSync(await tree({ "marker.txt": "needle\n" }));
    const lines = server.body.trim().split("\n");
    const start = (lines.pop() ?? "").replaceAll(PROJECT, project);
    assert.match(start, /\bevident mcp --transport http\b/);
    // Only the port is ours (the documented default may be taken here).
    const env = { PATH: path, HOME: home, EVIDENT_HTTP_PORT: "0" };
    for (const line of lines) {
      const run = spawnSync("sh", ["-c", line], { env, encoding: "utf8" });
      assert.equal(run.status, 0, `${line}: ${run.stderr}`);
    }
    const tokenFile = join(home, ".config/evident/http-token");
    assert.equal(statSync(tokenFile).mode & 0o777, 0o600, "the token file is the user's alone");
    const token = readFileSync(tokenFile, "utf8").trim();
    assert.match(token, /^[0-9a-f]{64}$/);
    assert.ok(DOC.includes('export EVIDENT_TOKEN="$(cat ~/.config/evident/http-token)"'));
    // A group of its own: stopping it stops the shell and the server it started.
    const child = spawn("sh", ["-c", start], { env, detached: true, stdio: ["ignore", "ignore", "pipe"] });
    // Every process holding the stderr pipe has exited once it closes.
    const closed = new Promise((done) => child.once("close", done));
    try {
      const url = await listeningUrl(child);
      const json = JSON.parse(clients.get("remote-json")?.body ?? "{}");
      const entry = json.mcpServers.evident as { type: string; url: string; headers: Record<string, string> };
      assert.equal(entry.type, "http");
      const cli = clients.get("remote-cli")?.body ?? "";
      const cliUrl = /--transport http evident (\S+)/.exec(cli)?.[1];
      const cliHeader = /--header "([^"]*)"/.exec(cli)?.[1];
      assert.equal(cliUrl, entry.url);
      assert.equal(cliHeader, `Authorization: ${entry.headers.Authorization}`);
      // The documented path on the running server; ${EVIDENT_TOKEN} expanded as the client would.
      const endpoint = new URL(new URL(entry.url).pathname, url);
      const headers = Object.fromEntries(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the client's own variable syntax
        Object.entries(entry.headers).map(([key, value]) => [key, value.replace("${EVIDENT_TOKEN}", token)]),
      );
      const client = new Client({ name: "clients-doc-remote", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers } }));
      try {
        await exercise(client, project);
      } finally {
        await client.close();
      }
      // Without the header the same endpoint refuses.
      const anonymous = new Client({ name: "clients-doc-anonymous", version: "1.0.0" });
      await assert.rejects(anonymous.connect(new StreamableHTTPClientTransport(endpoint)));
    } finally {
      try {
        process.kill(-(child.pid as number), "SIGTERM");
      } catch {
        // The group is gone already.
      }
      await closed;
    }
  });

  it("Pi installs the installed package from its folder, as the README shows, and loads evident's tools", () => {
    const command = 'pi install "$(npm root -g)/evident"';
    assert.ok(README.includes(command), "the README's Pi install");
    const piHome = mkdtempSync(join(work, "pi-home-"));
    const run = spawnSync(process.execPath, [PI_INSTALL, piHome, installed], {
      cwd: piHome,
      env: { PATH: path, HOME: piHome, PI_OFFLINE: "1" },
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
    const { extensions, errors } = JSON.parse(run.stdout) as {
      errors: unknown[];
      extensions: Array<{ resolvedPath: string; tools: string[] }>;
    };
    assert.deepEqual(errors, []);
    assert.equal(extensions.length, 1);
    assert.equal(extensions[0]?.resolvedPath, join(installed, "dist/adapters/pi/extension.js"));
    assert.deepEqual(extensions[0]?.tools.sort(), ["code_search", "web_read", "web_search"]);
  });
});

/** The URL `evident mcp --transport http` logs once it listens. */
function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolveUrl, reject) => {
    let seen = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match) resolveUrl(match[1] as string);
    });
    child.once("exit", (code) => reject(new Error(`the server exited (${code}): ${seen}`)));
  });
}
