import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type ConfigResult, configPath, loadConfig, type WebConfig } from "../../src/config/load.js";
import { WEB_CALL_DEADLINE_MS, WEB_ENVELOPE_BUDGET_CHARS } from "../../src/core/limits.js";
import { configFileSchema, configJsonSchema } from "../../src/web/config-schema.js";

const dir = mkdtempSync(join(tmpdir(), "evident-config-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** An environment with no config file unless the test writes one: XDG points at an empty dir. */
function env(vars: Record<string, string> = {}): Record<string, string> {
  return { XDG_CONFIG_HOME: join(dir, "none"), ...vars };
}

let fileCount = 0;
function withFile(content: unknown, vars: Record<string, string> = {}): Record<string, string> {
  const path = join(dir, `config-${fileCount++}.json`);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content), { mode: 0o600 });
  return env({ EVIDENT_CONFIG: path, ...vars });
}

async function ok(vars: Record<string, string>): Promise<WebConfig> {
  const result = await loadConfig(vars, { schema: configFileSchema });
  if (!result.ok) assert.fail(result.error.message);
  return result.config;
}

async function fails(vars: Record<string, string>): Promise<Extract<ConfigResult, { ok: false }>> {
  const result = await loadConfig(vars, { schema: configFileSchema });
  assert.equal(result.ok, false, "expected a configuration error");
  return result as Extract<ConfigResult, { ok: false }>;
}

describe("configuration", () => {
  it("nothing configured: search duckduckgo, read direct, documented defaults", async () => {
    const config = await ok(env());
    assert.deepEqual(config.searchRoute, ["duckduckgo"]);
    assert.deepEqual(config.readRoute, ["direct"]);
    assert.equal(config.searchRouteSource, "default");
    assert.equal(config.allowPrivateNetwork, false);
    assert.equal(config.envelopeBudgetChars, WEB_ENVELOPE_BUDGET_CHARS);
    assert.equal(config.callDeadlineMs, WEB_CALL_DEADLINE_MS);
    assert.deepEqual([...config.providers.keys()], ["duckduckgo", "direct"]);
  });

  it("the config path is $XDG_CONFIG_HOME/evident/config.json unless EVIDENT_CONFIG says otherwise", () => {
    assert.equal(configPath({ XDG_CONFIG_HOME: "/x" }).path, join("/x", "evident", "config.json"));
    assert.deepEqual(configPath({ XDG_CONFIG_HOME: "/x", EVIDENT_CONFIG: "/y.json" }), {
      path: "/y.json",
      explicit: true,
    });
  });

  it("S03: credentials in the environment make providers available; the default route is one provider, no fallback", async () => {
    const config = await ok(
      env({ BRAVE_API_KEY: "bk", TAVILY_API_KEY: "tk", SEARXNG_URL: "http://127.0.0.1:8888" }),
    );
    assert.deepEqual(config.searchRoute, ["tavily"]);
    assert.equal(config.providers.get("brave")?.options.apiKey, "bk");
    assert.equal(config.providers.get("searxng")?.options.baseUrl, "http://127.0.0.1:8888");
    assert.ok(config.secrets.includes("tk"));
    // BRAVE_SEARCH_API_KEY wins over BRAVE_API_KEY.
    const both = await ok(env({ BRAVE_SEARCH_API_KEY: "first", BRAVE_API_KEY: "second" }));
    assert.equal(both.providers.get("brave")?.options.apiKey, "first");
    assert.deepEqual(both.searchRoute, ["brave"]);
  });

  it("the Responses endpoint needs a model; without one the provider explains instead of vanishing", async () => {
    const config = await ok(
      env({ EVIDENT_RESPONSES_BASE_URL: "http://127.0.0.1:9/", EVIDENT_RESPONSES_API_KEY: "k" }),
    );
    assert.match(config.providers.get("responses")?.unavailable ?? "", /EVIDENT_RESPONSES_MODEL/);
    const full = await ok(
      env({ EVIDENT_RESPONSES_BASE_URL: "http://127.0.0.1:9/", EVIDENT_RESPONSES_MODEL: "m" }),
    );
    assert.deepEqual(full.providers.get("responses")?.options, {
      baseUrl: "http://127.0.0.1:9/",
      model: "m",
    });
  });

  it("S03: env routes are ordered and deduplicated; unknown ids name the variable", async () => {
    const config = await ok(
      env({
        TAVILY_API_KEY: "t",
        EVIDENT_SEARCH_ROUTE: "tavily, duckduckgo,tavily",
        EVIDENT_READ_ROUTE: "direct",
      }),
    );
    assert.deepEqual(config.searchRoute, ["tavily", "duckduckgo"]);
    assert.equal(config.searchRouteSource, "environment");
    const bad = await fails(env({ EVIDENT_SEARCH_ROUTE: "duckduckgo,brave" }));
    assert.equal(bad.error.code, "configuration_error");
    assert.equal(bad.error.details.key, "EVIDENT_SEARCH_ROUTE");
    assert.match(bad.error.message, /brave/);
    const cannot = await fails(env({ EVIDENT_READ_ROUTE: "duckduckgo" }));
    assert.match(cannot.error.message, /cannot read/);
  });

  it("EVIDENT_<ID>_BASE_URL overrides any provider's base URL; a bad value names the variable", async () => {
    const config = await ok(env({ TAVILY_API_KEY: "t", EVIDENT_TAVILY_BASE_URL: "http://127.0.0.1:1234/" }));
    assert.equal(config.providers.get("tavily")?.options.baseUrl, "http://127.0.0.1:1234/");
    const ddg = await ok(env({ EVIDENT_DUCKDUCKGO_BASE_URL: "http://127.0.0.1:1/" }));
    assert.equal(ddg.providers.get("duckduckgo")?.options.baseUrl, "http://127.0.0.1:1/");
    const bad = await fails(env({ TAVILY_API_KEY: "t", EVIDENT_TAVILY_BASE_URL: "ftp://x" }));
    assert.equal(bad.error.details.key, "EVIDENT_TAVILY_BASE_URL");
  });

  it("EVIDENT_CALL_DEADLINE_MS sets the overall deadline over the file; a bad value names it", async () => {
    const config = await ok(withFile({ callDeadlineMs: 30_000 }, { EVIDENT_CALL_DEADLINE_MS: "45000" }));
    assert.equal(config.callDeadlineMs, 45_000);
    assert.equal((await ok(withFile({ callDeadlineMs: 30_000 }))).callDeadlineMs, 30_000);
    const bad = await fails(env({ EVIDENT_CALL_DEADLINE_MS: "soon" }));
    assert.equal(bad.error.details.key, "EVIDENT_CALL_DEADLINE_MS");
    // Number() reads these as 16 and 1000: a decimal integer only, as every other EVIDENT_* number.
    for (const [name, value] of [
      ["EVIDENT_CALL_DEADLINE_MS", "0x10"],
      ["EVIDENT_CALL_DEADLINE_MS", "1e3"],
      ["EVIDENT_TAVILY_DEADLINE_MS", "0x10"],
      ["EVIDENT_ENVELOPE_BUDGET_CHARS", "3e3"],
    ] as const) {
      const odd = await fails(env({ [name]: value, TAVILY_API_KEY: "tvly-key-0123456789" }));
      assert.equal(odd.error.details.key, name, `${name}=${value}`);
    }
  });

  it("EVIDENT_ALLOW_PRIVATE_NETWORK is true/false only", async () => {
    assert.equal((await ok(env({ EVIDENT_ALLOW_PRIVATE_NETWORK: "true" }))).allowPrivateNetwork, true);
    assert.equal((await ok(env({ EVIDENT_ALLOW_PRIVATE_NETWORK: "false" }))).allowPrivateNetwork, false);
    const bad = await fails(env({ EVIDENT_ALLOW_PRIVATE_NETWORK: "yes please" }));
    assert.equal(bad.error.details.key, "EVIDENT_ALLOW_PRIVATE_NETWORK");
  });

  it("a config file defines providers, credential references, routes, intents and switches", async () => {
    const config = await ok(
      withFile(
        {
          providers: {
            tav: {
              type: "tavily",
              apiKey: { env: "MY_TAVILY" },
              attemptDeadlineMs: 5000,
              searchDepth: "advanced",
            },
            searx: { type: "searxng", baseUrl: "http://127.0.0.1:8080" },
            fc: { type: "firecrawl", apiKey: "fc-saved" },
            exa: { type: "mcp", preset: "exa-hosted" },
          },
          search: { route: ["searx", "tav"], intents: { news: ["tav"] } },
          read: { route: ["fc", "direct"] },
          allowPrivateNetwork: true,
          envelopeBudgetChars: 10_000,
          callDeadlineMs: 30_000,
        },
        { MY_TAVILY: "from-env" },
      ),
    );
    assert.deepEqual(config.providers.get("tav")?.options, {
      apiKey: "from-env",
      attemptDeadlineMs: 5000,
      searchDepth: "advanced",
    });
    assert.equal(config.providers.get("exa")?.adapter, "mcp");
    assert.deepEqual(config.searchRoute, ["searx", "tav"]);
    assert.deepEqual(config.intentRoutes, { news: ["tav"] });
    assert.deepEqual(config.readRoute, ["fc", "direct"]);
    assert.equal(config.allowPrivateNetwork, true);
    assert.equal(config.allowPrivateNetworkSource, "config-file");
    assert.equal(config.envelopeBudgetChars, 10_000);
    assert.equal(config.callDeadlineMs, 30_000);
    assert.ok(config.secrets.includes("fc-saved") && config.secrets.includes("from-env"));
  });

  it("the environment wins over the file for routes and the private-network switch", async () => {
    const config = await ok(
      withFile(
        { search: { route: ["duckduckgo"] }, allowPrivateNetwork: true },
        { TAVILY_API_KEY: "t", EVIDENT_SEARCH_ROUTE: "tavily", EVIDENT_ALLOW_PRIVATE_NETWORK: "false" },
      ),
    );
    assert.deepEqual(config.searchRoute, ["tavily"]);
    assert.equal(config.allowPrivateNetwork, false);
  });

  it("S08: a key set but empty, or an obvious placeholder, keeps its provider chosen but unusable, naming the variable", async () => {
    const placeholders = [
      "",
      "tvly-...",
      "sk-…",
      "<your key>",
      "<TAVILY_API_KEY>",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text a client left unexpanded
      "${TAVILY_API_KEY}",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text a client left unexpanded
      "${env:TAVILY_API_KEY}",
      "$TAVILY_API_KEY",
      "%TAVILY_API_KEY%",
      "xxx",
      "tvly-xxxxxxxxxxxxxxxx",
      "sk-proj-XXXX",
      "****abcd",
      "your-api-key",
      "YOUR_TAVILY_API_KEY",
      "your key here",
      "changeme",
      "Change_Me",
      "placeholder",
      "api-key-here",
      "TAVILY_API_KEY",
    ];
    for (const value of placeholders) {
      const config = await ok(env({ TAVILY_API_KEY: value }));
      // Chosen as the person meant it: no quiet move to the keyless provider (S08).
      assert.deepEqual(config.searchRoute, ["tavily"], value);
      const spec = config.providers.get("tavily");
      assert.equal(spec?.options.apiKey, undefined, value);
      assert.match(
        spec?.unavailable ?? "",
        /^the environment variable TAVILY_API_KEY (is set but empty|holds a placeholder, not a key \(it .+\))$/,
        value,
      );
      // The value itself is never repeated (a real key the rules wrongly caught must not be echoed).
      if (["tvly-xxxxxxxxxxxxxxxx", "your-api-key", "****abcd", "Change_Me"].includes(value))
        assert.ok(!spec?.unavailable?.includes(value), value);
    }
    // Keys as vendors issue them are keys.
    for (const key of [
      "tvly-dev-AbC123xyz0987654321",
      "BSAx9f8e7d6c5b4a3210",
      "sk-proj-abcXYZ_123-def456",
      "fc-0123456789abcdef",
      "jina_0123456789abcdefYOURkey",
      "0123456789abcdef0123456789abcdef",
      "xxxa9f",
      "k",
    ]) {
      const config = await ok(env({ TAVILY_API_KEY: key }));
      assert.equal(config.providers.get("tavily")?.unavailable, undefined, key);
      assert.equal(config.providers.get("tavily")?.options.apiKey, key);
    }
    // The second Brave variable is read when the first is empty; both empty is reported.
    const brave = await ok(env({ BRAVE_SEARCH_API_KEY: "", BRAVE_API_KEY: "bk-0123456789" }));
    assert.equal(brave.providers.get("brave")?.options.apiKey, "bk-0123456789");
    // In the file: a saved placeholder, a reference to an empty or placeholder variable.
    const saved = await ok(withFile({ providers: { tav: { type: "tavily", apiKey: "tvly-..." } } }));
    assert.deepEqual(saved.searchRoute, ["tav"]);
    assert.match(
      saved.providers.get("tav")?.unavailable ?? "",
      /^providers\.tav\.apiKey holds a placeholder/,
    );
    const reference = { providers: { tav: { type: "tavily", apiKey: { env: "TAV_KEY" } } } };
    const empty = await ok(withFile(reference, { TAV_KEY: "" }));
    assert.deepEqual(empty.searchRoute, ["tav"]);
    assert.match(empty.providers.get("tav")?.unavailable ?? "", /TAV_KEY is set but empty/);
    const example = await ok(withFile(reference, { TAV_KEY: "your-tavily-api-key" }));
    assert.match(
      example.providers.get("tav")?.unavailable ?? "",
      /^the environment variable TAV_KEY \(providers\.tav\.apiKey\) holds a placeholder/,
    );
    // Unset is not chosen yet: the default stays with the keyless provider, as before.
    assert.deepEqual((await ok(withFile(reference))).searchRoute, ["duckduckgo"]);
  });

  it("S11: an unset credential reference makes that provider explain itself, not the whole config fail", async () => {
    const config = await ok(
      withFile({ providers: { tav: { type: "tavily", apiKey: { env: "UNSET_VAR_X" } } } }),
    );
    assert.match(config.providers.get("tav")?.unavailable ?? "", /UNSET_VAR_X/);
  });

  it("a file with saved keys that others can read gets a notice; a private one does not", async () => {
    const open = withFile({ providers: { b: { type: "brave", apiKey: "saved" } } });
    chmodSync(open.EVIDENT_CONFIG as string, 0o644);
    assert.match((await ok(open)).notices[0] ?? "", /chmod 600/);
    const closed = withFile({ providers: { b: { type: "brave", apiKey: "saved" } } });
    assert.deepEqual((await ok(closed)).notices, []);
  });

  it("errors name the bad key", async () => {
    const cases: Array<[unknown, string]> = [
      [{ providers: { tav: { type: "tavily", apiKeyy: "x" } } }, "providers.tav.apiKeyy"],
      [{ providers: { tav: { type: "tavly" } } }, "providers.tav.type"],
      [{ providers: { "Bad Id": { type: "brave" } } }, "providers"],
      [{ search: { route: ["nope"] } }, "search.route[0]"],
      [{ search: { rout: ["duckduckgo"] } }, "search.rout"],
      [{ envelopeBudgetChars: 10 }, "envelopeBudgetChars"],
      [{ providers: { exa: { type: "mcp", preset: "exa-hosted", tools: {} } } }, "providers.exa.tools"],
      [{ providers: { s: { type: "searxng", baseUrl: "file:///x" } } }, "providers.s.baseUrl"],
      // A control character in a header fails every request as a "network error".
      [{ providers: { b: { type: "brave", apiKey: "key\u0001x" } } }, "providers.b.apiKey"],
    ];
    for (const [content, key] of cases) {
      const bad = await fails(withFile(content));
      assert.equal(bad.error.code, "configuration_error");
      assert.ok(
        String(bad.error.details.key).startsWith(key),
        `${String(bad.error.details.key)} should start with ${key}`,
      );
      assert.ok(bad.error.message.includes(key), bad.error.message);
    }
  });

  it("a file that is not JSON, or an EVIDENT_CONFIG that does not exist, is a configuration_error", async () => {
    assert.match((await fails(withFile("{ not json"))).error.message, /not valid JSON/);
    const missing = await fails(env({ EVIDENT_CONFIG: join(dir, "missing.json") }));
    assert.equal(missing.error.details.key, "EVIDENT_CONFIG");
  });

  it("docs/schema/config.schema.json is the schema the loader enforces", () => {
    const documented = JSON.parse(
      readFileSync(new URL("../../docs/schema/config.schema.json", import.meta.url), "utf8"),
    );
    assert.deepEqual(
      documented,
      configJsonSchema(),
      'regenerate with: npx tsx -e \'import("./src/web/config-schema.ts").then(m => process.stdout.write(JSON.stringify(m.configJsonSchema(), null, 2) + "\\n"))\' > docs/schema/config.schema.json',
    );
  });
});
