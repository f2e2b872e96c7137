/**
 * Every setting from the environment (issue #34, item 2): EVIDENT_CONFIG holding the whole
 * configuration as JSON, validated exactly as the file is and named instead of it; provider
 * options and the locale as named variables, over EVIDENT_CONFIG and the file; and what evident
 * says of an `EVIDENT_*` variable it does not read.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type ConfigResult, loadConfig, type WebConfig } from "../../src/config/load.js";
import { resolveSettings } from "../../src/config/settings.js";
import { closestName, editDistance, unknownVariables } from "../../src/config/variables.js";
import { configFileSchema } from "../../src/web/config-schema.js";

const dir = mkdtempSync(join(tmpdir(), "evident-env-config-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function env(vars: Record<string, string> = {}): Record<string, string> {
  return { XDG_CONFIG_HOME: join(dir, "none"), ...vars };
}

async function load(vars: Record<string, string>): Promise<ConfigResult> {
  return loadConfig(vars, { schema: configFileSchema });
}

async function ok(vars: Record<string, string>): Promise<WebConfig> {
  const result = await load(vars);
  if (!result.ok) assert.fail(result.error.message);
  return result.config;
}

async function error(vars: Record<string, string>) {
  const result = await load(vars);
  assert.equal(result.ok, false, "expected a configuration error");
  return (result as Extract<ConfigResult, { ok: false }>).error;
}

const DOCUMENT = {
  providers: {
    tav: { type: "tavily", apiKey: { env: "MY_TAVILY" }, searchDepth: "basic" },
    "exa-free": { type: "mcp", preset: "exa-hosted" },
  },
  search: { route: ["tav", "duckduckgo"], intents: { news: ["exa-free"] } },
};

describe("EVIDENT_CONFIG holding the configuration as JSON", () => {
  it("a good document configures providers, routes and intents as the file would", async () => {
    const config = await ok(
      env({ EVIDENT_CONFIG: JSON.stringify(DOCUMENT), MY_TAVILY: "tvly-0123456789abcdef" }),
    );
    assert.deepEqual(config.searchRoute, ["tav", "duckduckgo"]);
    assert.deepEqual(config.intentRoutes, { news: ["exa-free"] });
    assert.equal(config.providers.get("tav")?.options.searchDepth, "basic");
    assert.equal(config.providers.get("tav")?.source, "config-file");
    assert.equal(config.configPath, undefined);
  });

  it("not JSON: configuration_error naming EVIDENT_CONFIG, by line and column, never quoting it", async () => {
    const failure = await error(env({ EVIDENT_CONFIG: '{"providers": {"t": {"apiKey": "tvly-secret-123"}' }));
    assert.equal(failure.code, "configuration_error");
    assert.equal(failure.details.key, "EVIDENT_CONFIG");
    assert.match(
      failure.message,
      /^Configuration error at EVIDENT_CONFIG: the variable is not valid JSON \(/,
    );
    assert.doesNotMatch(failure.message, /tvly-secret/);
  });

  it("a bad key: the file's message and key, naming EVIDENT_CONFIG instead of a path", async () => {
    const document = { providers: { tav: { type: "tavily", apiKeyy: "x" } } };
    const inVariable = await error(env({ EVIDENT_CONFIG: JSON.stringify(document) }));
    const path = join(dir, "bad-key.json");
    writeFileSync(path, JSON.stringify(document), { mode: 0o600 });
    const inFile = await error(env({ EVIDENT_CONFIG: path }));
    assert.equal(inVariable.code, "configuration_error");
    assert.equal(inVariable.details.key, "providers.tav.apiKeyy");
    assert.equal(inVariable.details.variable, "EVIDENT_CONFIG");
    assert.equal(inVariable.message, inFile.message.replace(path, "EVIDENT_CONFIG"));
    assert.match(inVariable.message, /^Configuration error in EVIDENT_CONFIG at providers\.tav\.apiKeyy: /);
  });

  it("the config file is not read while EVIDENT_CONFIG holds the configuration, and a notice says so", async () => {
    const xdg = join(dir, "xdg-shadowed");
    mkdirSync(join(xdg, "evident"), { recursive: true });
    writeFileSync(join(xdg, "evident", "config.json"), JSON.stringify({ search: { route: ["nobody"] } }), {
      mode: 0o600,
    });
    const config = await ok({
      XDG_CONFIG_HOME: xdg,
      EVIDENT_CONFIG: JSON.stringify({ envelopeBudgetChars: 5000 }),
    });
    assert.equal(config.envelopeBudgetChars, 5000);
    assert.deepEqual(config.searchRoute, ["duckduckgo"]);
    assert.ok(
      config.notices.some((notice) =>
        notice.includes(`the config file ${join(xdg, "evident", "config.json")} is not read`),
      ),
      config.notices.join("\n"),
    );
  });

  it("a named variable wins over EVIDENT_CONFIG", async () => {
    const config = await ok(
      env({
        EVIDENT_CONFIG: JSON.stringify({ callDeadlineMs: 5000, search: { route: ["duckduckgo"] } }),
        EVIDENT_CALL_DEADLINE_MS: "7000",
      }),
    );
    assert.equal(config.callDeadlineMs, 7000);
  });

  it("a value that does not start with { is still a path", async () => {
    const failure = await error(env({ EVIDENT_CONFIG: join(dir, "missing.json") }));
    assert.equal(failure.details.key, "EVIDENT_CONFIG");
    assert.match(failure.message, /does not exist/);
  });
});

describe("provider options from the environment (EVIDENT_<ID>_<OPTION>)", () => {
  it("reach the provider of that id, over the file's value, typed as the schema types them", async () => {
    const config = await ok(
      env({
        TAVILY_API_KEY: "tvly-0123456789abcdef",
        EXA_API_KEY: "exa-0123456789abcdef",
        EVIDENT_TAVILY_SEARCH_DEPTH: "advanced",
        EVIDENT_TAVILY_INCLUDE_ANSWER: "false",
        EVIDENT_EXA_READ_MAX_CHARACTERS: "1200",
        EVIDENT_DUCKDUCKGO_USER_AGENT: "evident-test/1",
        EVIDENT_CONFIG: JSON.stringify({ providers: { tavily: { type: "tavily", searchDepth: "basic" } } }),
      }),
    );
    assert.equal(config.providers.get("tavily")?.options.searchDepth, "advanced");
    assert.equal(config.providers.get("tavily")?.options.includeAnswer, false);
    assert.equal(config.providers.get("exa")?.options.readMaxCharacters, 1200);
    assert.equal(config.providers.get("duckduckgo")?.options.userAgent, "evident-test/1");
  });

  it("a value the file would refuse is refused naming the variable", async () => {
    const failure = await error(
      env({ TAVILY_API_KEY: "tvly-0123456789abcdef", EVIDENT_TAVILY_SEARCH_DEPTH: "deep" }),
    );
    assert.equal(failure.code, "configuration_error");
    assert.equal(failure.details.key, "EVIDENT_TAVILY_SEARCH_DEPTH");
    assert.match(failure.message, /basic/);
    const count = await error(
      env({ EXA_API_KEY: "exa-0123456789abcdef", EVIDENT_EXA_READ_MAX_CHARACTERS: "-3" }),
    );
    assert.equal(count.details.key, "EVIDENT_EXA_READ_MAX_CHARACTERS");
  });

  it("an option the provider's adapter does not have is refused, naming who has it", async () => {
    const failure = await error(
      env({ BRAVE_API_KEY: "brave-0123456789", EVIDENT_BRAVE_SEARCH_DEPTH: "advanced" }),
    );
    assert.equal(failure.details.key, "EVIDENT_BRAVE_SEARCH_DEPTH");
    assert.match(failure.message, /provider brave \(brave\) has no option searchDepth; tavily has it/);
  });

  it("a provider variable whose id names no provider does nothing, and a notice names the closest", async () => {
    const config = await ok(
      env({ TAVILY_API_KEY: "tvly-0123456789abcdef", EVIDENT_TAVLY_SEARCH_DEPTH: "advanced" }),
    );
    assert.equal(config.providers.get("tavily")?.options.searchDepth, undefined);
    assert.ok(
      config.notices.includes(
        "EVIDENT_TAVLY_SEARCH_DEPTH names no configured provider, so it does nothing; did you mean EVIDENT_TAVILY_SEARCH_DEPTH?",
      ),
      config.notices.join("\n"),
    );
  });

  it("a provider variable for an id nobody configured says which id, without a far-fetched guess", async () => {
    const config = await ok(env({ EVIDENT_SERPER_BASE_URL: "http://127.0.0.1:1" }));
    assert.ok(
      config.notices.includes(
        "EVIDENT_SERPER_BASE_URL names no configured provider (none has the id serper), so it does nothing",
      ),
      config.notices.join("\n"),
    );
  });

  it("EVIDENT_LOCALE sets the interface locale over the file's, and a bad one names the variable", async () => {
    const document = JSON.stringify({ locale: "en" });
    assert.equal(await resolveSettings(env({ EVIDENT_CONFIG: document })).interfaceLocale(), "en");
    assert.equal(
      await resolveSettings(env({ EVIDENT_CONFIG: document, EVIDENT_LOCALE: "zh-CN" })).interfaceLocale(),
      "zh-CN",
    );
    await assert.rejects(
      resolveSettings(env({ EVIDENT_LOCALE: "fr" })).interfaceLocale(),
      (thrown: Error) => {
        assert.equal((thrown as { details?: { key?: string } }).details?.key, "EVIDENT_LOCALE");
        return true;
      },
    );
  });
});

describe("EVIDENT_ variables evident does not read", () => {
  it("an unknown one is reported with the closest known name; known ones and other variables are not", () => {
    const reports = unknownVariables({
      EVIDENT_SEARCH_ROUT: "tavily",
      EVIDENT_TAVILY_SEARCH_DEPT: "advanced",
      EVIDENT_SEARCH_ROUTE: "duckduckgo",
      EVIDENT_MY_SEARX_BASE_URL: "http://127.0.0.1:1",
      TAVILY_API_KEY: "x",
      SOMETHING_ELSE: "y",
      // The test runner's own (CI sets it), read by this repository's scripts, not by evident.
      EVIDENT_TEST_REQUIRE_TOOLS: "1",
    });
    assert.deepEqual(
      reports.map((report) => [report.name, report.kind, report.closest]),
      [
        ["EVIDENT_SEARCH_ROUT", "unknown", "EVIDENT_SEARCH_ROUTE"],
        ["EVIDENT_TAVILY_SEARCH_DEPT", "unknown", "EVIDENT_TAVILY_SEARCH_DEPTH"],
      ],
    );
    assert.equal(
      reports[0]?.message,
      "EVIDENT_SEARCH_ROUT is not a variable evident reads, so it does nothing; did you mean EVIDENT_SEARCH_ROUTE?",
    );
  });

  it("a retired one is reported as retired, not as unknown", () => {
    const [report] = unknownVariables({ EVIDENT_IDLE_COLLECT_MS: "0" });
    assert.equal(report?.kind, "retired");
    assert.match(report?.message ?? "", /^EVIDENT_IDLE_COLLECT_MS is retired and ignored/);
  });

  it("resolved settings carry the reports, and resolution never fails for them", () => {
    const settings = resolveSettings(env({ EVIDENT_LOG_LEVLE: "debug" }));
    assert.deepEqual(
      settings.unknownVariables.map((report) => report.closest),
      ["EVIDENT_LOG_LEVEL"],
    );
  });

  it("edit distance counts insertions, deletions and substitutions", () => {
    assert.equal(editDistance("", "abc"), 3);
    assert.equal(editDistance("kitten", "sitting"), 3);
    assert.equal(editDistance("EVIDENT_ROOT", "EVIDENT_ROOT"), 0);
    assert.equal(closestName("EVIDENT_RG_PAHT", ["EVIDENT_ROOT", "EVIDENT_RG_PATH"]), "EVIDENT_RG_PATH");
  });
});
