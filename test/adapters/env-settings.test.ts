/**
 * Every setting from the environment, on the surfaces (issue #34, items 2 and 4): `evident
 * doctor` validates EVIDENT_CONFIG as it does the file and names the variable, and reports an
 * `EVIDENT_*` variable it does not read with the closest name; `evident mcp` says the same in
 * its start-up log over stdio and HTTP; a provider option set in the environment reaches the
 * vendor's request, over MCP stdio and HTTP, through a loopback fake of Tavily's API.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createHttpHandler } from "../../src/index.js";
import { freePort } from "../net/loopback.js";
import { type FakeVendor, sendJson, startFakeVendor } from "../web/providers/fake-vendor.js";
import { connectInProcess, evidentInProcess } from "./run-evident.js";

const dir = mkdtempSync(join(tmpdir(), "evident-env-settings-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const TAVILY_KEY = "tvly-test-key-0123456789";

let fake: FakeVendor;
let refusedPort: number;
before(async () => {
  fake = await startFakeVendor();
  // Tavily's /search, and /usage, which doctor probes.
  fake.handle((request, response) =>
    request.path === "/usage"
      ? sendJson(response, 200, { key: { usage: 3, limit: 1000 }, account: {} })
      : sendJson(response, 200, {
          query: "q",
          results: [{ title: "A result", url: "https://example.com/a", content: "text", score: 0.5 }],
        }),
  );
  refusedPort = await freePort();
});
after(() => fake.close());

/** No config file, no network: the keyless search provider points at a port nobody listens on. */
function baseEnv(vars: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, "config"),
    EVIDENT_CACHE_DIR: join(dir, "cache"),
    EVIDENT_ROOT: dir,
    EVIDENT_DUCKDUCKGO_BASE_URL: `http://127.0.0.1:${refusedPort}`,
    ...vars,
  };
}

/** Tavily configured in the environment alone, at the fake, with its search depth. */
function tavilyEnv(vars: Record<string, string> = {}): Record<string, string> {
  return baseEnv({
    TAVILY_API_KEY: TAVILY_KEY,
    EVIDENT_TAVILY_BASE_URL: fake.baseUrl,
    EVIDENT_TAVILY_SEARCH_DEPTH: "advanced",
    ...vars,
  });
}

async function doctor(env: Record<string, string>) {
  const run = await evidentInProcess(["doctor", "--json"], { cwd: dir, env });
  return { code: run.code, report: JSON.parse(run.stdout), stderr: run.stderr };
}

describe("evident doctor and the environment", () => {
  it("EVIDENT_CONFIG holding a good document is the configuration", async () => {
    const document = { search: { route: ["tav"] }, providers: { tav: { type: "tavily" } } };
    const { report } = await doctor(tavilyEnv({ EVIDENT_CONFIG: JSON.stringify(document) }));
    assert.equal(report.config.ok, true, JSON.stringify(report.config.error));
    assert.equal(report.config.configFile.variable, "EVIDENT_CONFIG");
    assert.deepEqual(report.config.routes.search, { ids: ["tav"], source: "config-file" });
  });

  it("EVIDENT_CONFIG that is not JSON: configuration_error naming the variable, exit 1", async () => {
    const { code, report } = await doctor(baseEnv({ EVIDENT_CONFIG: '{"search": ' }));
    assert.equal(code, 1);
    assert.equal(report.config.ok, false);
    assert.equal(report.config.error.key, "EVIDENT_CONFIG");
    assert.match(report.config.error.message, /EVIDENT_CONFIG: the variable is not valid JSON/);
  });

  it("EVIDENT_CONFIG with a bad key: the key named, in EVIDENT_CONFIG", async () => {
    const { code, report } = await doctor(
      baseEnv({ EVIDENT_CONFIG: '{"search": {"rout": ["duckduckgo"]}}' }),
    );
    assert.equal(code, 1);
    assert.equal(report.config.error.key, "search.rout");
    assert.match(report.config.error.message, /^Configuration error in EVIDENT_CONFIG at search\.rout: /);
  });

  it("a config file of a newer version is refused by doctor, saying to upgrade", async () => {
    const path = join(dir, "newer.json");
    writeFileSync(path, JSON.stringify({ version: 99, search: { route: ["duckduckgo"] } }), { mode: 0o600 });
    const { code, report } = await doctor(baseEnv({ EVIDENT_CONFIG: path }));
    assert.equal(code, 1);
    assert.equal(report.config.error.key, "version");
    assert.match(report.config.error.message, /written by a newer evident.*Upgrade evident/);
  });

  it("setup writes nothing while EVIDENT_CONFIG holds the configuration, and says why", async () => {
    const run = await evidentInProcess(["setup", "--provider", "tavily", "--key-env", "TAVILY_API_KEY"], {
      cwd: dir,
      env: baseEnv({ EVIDENT_CONFIG: "{}" }),
    });
    assert.equal(run.code, 1, run.stderr);
    const failure = JSON.parse(run.stderr).error;
    assert.equal(failure.code, "configuration_error");
    assert.match(failure.message, /EVIDENT_CONFIG holds the configuration itself.*nothing was written/);
    assert.equal(existsSync(join(dir, "config", "evident", "config.json")), false);
  });

  it("an unknown EVIDENT_ variable is reported with the closest name, and fails nothing", async () => {
    const run = await evidentInProcess(["doctor"], {
      cwd: dir,
      env: tavilyEnv({ EVIDENT_SEARCH_ROUT: "tavily", EVIDENT_SEARCH_ROUTE: "tavily" }),
    });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /NOTICE EVIDENT_SEARCH_ROUT is not a variable evident reads, so it does nothing; did you mean EVIDENT_SEARCH_ROUTE\?/,
    );
    const { report } = await doctor(
      tavilyEnv({ EVIDENT_SEARCH_ROUT: "tavily", EVIDENT_SEARCH_ROUTE: "tavily" }),
    );
    assert.deepEqual(report.config.variables, [
      {
        name: "EVIDENT_SEARCH_ROUT",
        kind: "unknown",
        closest: "EVIDENT_SEARCH_ROUTE",
        message:
          "EVIDENT_SEARCH_ROUT is not a variable evident reads, so it does nothing; did you mean EVIDENT_SEARCH_ROUTE?",
      },
    ]);
  });
});

/** The search depth of the last request the fake received. */
function lastSearchDepth(): unknown {
  const request = fake.requests.filter((each) => each.path === "/search").at(-1);
  assert.ok(request !== undefined, "Tavily received no search");
  return (request.json() as { search_depth?: unknown }).search_depth;
}

describe("evident mcp and the environment", () => {
  it("stdio: the start-up log names an unknown variable; a search depth set in the environment reaches Tavily", async () => {
    const client = new Client({ name: "env-settings", version: "1.0.0" });
    const server = await connectInProcess(client, [], {
      cwd: dir,
      env: tavilyEnv({ EVIDENT_TAVILY_SEARCH_DEPT: "basic" }),
    });
    try {
      assert.match(
        server.stderr(),
        /EVIDENT_TAVILY_SEARCH_DEPT is not a variable evident reads.*did you mean EVIDENT_TAVILY_SEARCH_DEPTH\?/,
      );
      const result = await client.callTool({ name: "web_search", arguments: { query: "q" } });
      assert.equal(result.isError ?? false, false, JSON.stringify(result.content));
      assert.equal(lastSearchDepth(), "advanced");
    } finally {
      await server.close();
    }
  });

  it("stdio: EVIDENT_CONFIG's provider options reach the vendor, a named variable over them", async () => {
    const document = { providers: { tavily: { type: "tavily", searchDepth: "basic" } } };
    for (const [extra, depth] of [
      [{ EVIDENT_TAVILY_SEARCH_DEPTH: "" }, "basic"],
      [{ EVIDENT_TAVILY_SEARCH_DEPTH: "advanced" }, "advanced"],
    ] as const) {
      const client = new Client({ name: "env-settings", version: "1.0.0" });
      const server = await connectInProcess(client, [], {
        cwd: dir,
        env: tavilyEnv({ EVIDENT_CONFIG: JSON.stringify(document), ...extra }),
      });
      try {
        const result = await client.callTool({ name: "web_search", arguments: { query: "q" } });
        assert.equal(result.isError ?? false, false, JSON.stringify(result.content));
        assert.equal(lastSearchDepth(), depth);
      } finally {
        await server.close();
      }
    }
  });

  it("stdio: a bad key in EVIDENT_CONFIG is the call's configuration_error naming the variable", async () => {
    const client = new Client({ name: "env-settings", version: "1.0.0" });
    const server = await connectInProcess(client, [], {
      cwd: dir,
      env: baseEnv({ EVIDENT_CONFIG: '{"providers": {"t": {"type": "tavily", "apiKeyy": "x"}}}' }),
    });
    try {
      const result = await client.callTool({ name: "web_search", arguments: { query: "q" } });
      assert.equal(result.isError, true);
      const error = JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? "").error;
      assert.equal(error.code, "configuration_error");
      assert.match(error.message, /EVIDENT_CONFIG at providers\.t\.apiKeyy/);
    } finally {
      await server.close();
    }
  });

  it("HTTP: the start-up log names an unknown variable; a search depth set in the environment reaches Tavily", async () => {
    const stop = new AbortController();
    let listening: (url: string) => void = () => {};
    const url = new Promise<string>((found) => {
      listening = found;
    });
    let stderr = "";
    const served = evidentInProcess(["mcp", "--transport", "http"], {
      cwd: dir,
      env: tavilyEnv({
        EVIDENT_ALLOW_ANONYMOUS: "true",
        EVIDENT_HTTP_PORT: "0",
        EVIDENT_HTTP_MAX_CONCURENT: "4",
      }),
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
      const address = await Promise.race([url, stopped]);
      assert.match(
        stderr,
        /EVIDENT_HTTP_MAX_CONCURENT is not a variable evident reads.*did you mean EVIDENT_HTTP_MAX_CONCURRENT\?/,
      );
      const client = new Client({ name: "env-settings", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(address)));
      try {
        const result = await client.callTool({ name: "web_search", arguments: { query: "q" } });
        assert.equal(result.isError ?? false, false, JSON.stringify(result.content));
        assert.equal(lastSearchDepth(), "advanced");
      } finally {
        await client.close();
      }
    } finally {
      stop.abort();
      assert.equal((await served).code, 0);
    }
  });

  it("the serverless handler logs an unknown variable when it is created", async () => {
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => warnings.push(message) };
    const handler = createHttpHandler({
      env: baseEnv({ EVIDENT_ALLOW_ANONYMOUS: "true", EVIDENT_MCP_PRESET: "exa-hosted" }),
      cwd: dir,
      logger,
    });
    try {
      assert.deepEqual(warnings, [
        "EVIDENT_MCP_PRESET is not a variable evident reads, so it does nothing; did you mean EVIDENT_MCP_PRESETS?",
      ]);
    } finally {
      await handler.close();
    }
  });
});
