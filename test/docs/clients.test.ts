/**
 * Every client snippet in docs/CLIENTS.md, read from the document itself: the stdio ones are
 * launched exactly as written (`npx -y evident` resolved to this package's build, placeholders
 * for the project path filled in) and must answer tools/list and a code_search call through the
 * official SDK client; the remote ones must do the same against a running HTTP server with a
 * bearer token.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import { after, describe, it } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { parse as parseYaml } from "yaml";
import { treesRemovedAfter } from "../code/helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");
const CLI = resolve(ROOT, "dist/adapters/cli/main.js");
const DOC = readFileSync(resolve(ROOT, "docs/CLIENTS.md"), "utf8");
const PLACEHOLDER = "/absolute/path/to/your/project";
const tree = treesRemovedAfter(after);

/** Snippets by the client named in the comment above each fenced block. */
function snippets(): Map<string, { lang: string; body: string }> {
  const found = new Map<string, { lang: string; body: string }>();
  for (const m of DOC.matchAll(/<!-- client: ([a-z-]+) -->\n```(\w+)\n([\s\S]*?)```/g)) {
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

/** `npx -y evident ...` as this package's build; everything after it exactly as written. */
function resolved(launch: Launch, project: string): { command: string; args: string[] } {
  assert.equal(launch.command, "npx");
  const [yes, name, ...rest] = launch.args;
  assert.equal(yes, "-y");
  assert.equal(name, "evident");
  return {
    command: process.execPath,
    args: [CLI, ...rest.map((arg) => (arg === PLACEHOLDER ? project : arg))],
  };
}

async function exercise(client: Client, project: string): Promise<void> {
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((tool) => tool.name),
    ["web_search", "web_read", "code_search"],
  );
  const result = await client.callTool({ name: "code_search", arguments: { pattern: "needle" } });
  const text = (result.content as Array<{ text: string }>).map((part) => part.text).join("");
  assert.equal(result.isError ?? false, false, text);
  assert.ok(text.startsWith(`Project root: ${project}\n`), text);
  assert.match(text, /marker\.txt/);
}

describe("docs/CLIENTS.md", () => {
  const all = snippets();

  it("has a snippet for every client the docs promise", () => {
    assert.deepEqual([...all.keys()].sort(), [
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
      const snippet = all.get(name);
      assert.ok(snippet);
      const project = realpathSync(await tree({ "marker.txt": "needle\n" }));
      const launch = launchOf(name, snippet.lang, snippet.body);
      const { command, args } = resolved(launch, project);
      // A client starts the server in the project, unless the snippet names the project itself.
      const named = launch.args.includes(PLACEHOLDER);
      const cwd = named ? "/" : project;
      const client = new Client({ name: `clients-doc-${name}`, version: "1.0.0" });
      await client.connect(
        new StdioClientTransport({
          command,
          args,
          cwd,
          env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", ...(launch.env ?? {}) },
          stderr: "pipe",
        }),
      );
      try {
        await exercise(client, project);
      } finally {
        await client.close();
      }
    });
  }

  it("the remote entries reach a running HTTP server with their bearer header", async () => {
    const project = realpathSync(await tree({ "marker.txt": "needle\n" }));
    const token = "doc-test-token-0123456789abcdef0123456789";
    const server = spawn(process.execPath, [CLI, "mcp", "--transport", "http", "--root", project], {
      env: { PATH: process.env.PATH ?? "", EVIDENT_AUTH_TOKEN: token, EVIDENT_HTTP_PORT: "0" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    try {
      const url = await listeningUrl(server);
      const json = JSON.parse(all.get("remote-json")?.body ?? "{}");
      const entry = json.mcpServers.evident as { type: string; url: string; headers: Record<string, string> };
      assert.equal(entry.type, "http");
      const cli = all.get("remote-cli")?.body ?? "";
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
      server.kill("SIGTERM");
      await new Promise((done) => server.once("exit", done));
    }
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
