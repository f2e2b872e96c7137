/**
 * The config file's version (issue #34, item 4): a file without one is version 1 (the fixture is
 * what setup wrote before versions existed), setup writes the current one, a newer file is
 * refused saying what to do, unknown keys stay refused, and a key retired after a file's version
 * is ignored with a notice naming it, never a failure and never rewritten.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type ConfigResult, loadConfig, parseConfigDocument } from "../../src/config/load.js";
import { CONFIG_VERSION } from "../../src/config/schema.js";
import { planSetup } from "../../src/config/setup-plan.js";
import { configFileSchema } from "../../src/web/config-schema.js";

const dir = mkdtempSync(join(tmpdir(), "evident-config-version-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** What `evident setup` wrote before the file had a version (a tavily key reference, a preset, routes, an intent, a locale). */
const SETUP_V1 = readFileSync(new URL("fixtures/setup-v1.json", import.meta.url), "utf8");

let count = 0;
async function loadFile(document: unknown): Promise<{ result: ConfigResult; path: string }> {
  const path = join(dir, `config-${count++}.json`);
  writeFileSync(path, typeof document === "string" ? document : JSON.stringify(document), { mode: 0o600 });
  const result = await loadConfig(
    { XDG_CONFIG_HOME: join(dir, "none"), EVIDENT_CONFIG: path, TAVILY_API_KEY: "tvly-0123456789abcdef" },
    { schema: configFileSchema },
  );
  return { result, path };
}

const source = {
  name: "config.json",
  key: "config.json",
  details: { file: "config.json" },
  what: "the file",
};

describe("config file versions", () => {
  it("a file without a version (today's setup's) is version 1 and loads without a notice", async () => {
    const { result } = await loadFile(SETUP_V1);
    if (!result.ok) assert.fail(result.error.message);
    assert.equal(JSON.parse(SETUP_V1).version, undefined);
    assert.deepEqual(result.config.searchRoute, ["tavily", "duckduckgo"]);
    assert.deepEqual(result.config.intentRoutes, { news: ["tavily", "mcp-exa-hosted"] });
    assert.deepEqual(result.config.notices, []);
  });

  it("the same file with version 1 loads the same", async () => {
    const { result } = await loadFile({ version: 1, ...JSON.parse(SETUP_V1) });
    if (!result.ok) assert.fail(result.error.message);
    assert.deepEqual(result.config.searchRoute, ["tavily", "duckduckgo"]);
  });

  it("a file of a newer version is refused, saying so and what to do, before its keys are judged", async () => {
    const newer = CONFIG_VERSION + 1;
    const { result, path } = await loadFile({ version: newer, ...JSON.parse(SETUP_V1), futureKey: true });
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.error.code, "configuration_error");
    assert.equal(result.error.details.key, "version");
    assert.equal(result.error.details.file, path);
    assert.match(result.error.message, new RegExp(`config version ${newer}, written by a newer evident`));
    assert.match(result.error.message, /Upgrade evident/);
    assert.match(result.error.message, /remove the settings this version does not know/);
  });

  it("a version that is no positive integer is a schema error at version", async () => {
    for (const version of [0, "1", 1.5]) {
      const { result } = await loadFile({ version });
      assert.equal(result.ok, false);
      if (!result.ok) assert.equal(result.error.details.key, "version");
    }
  });

  it("unknown keys are still refused (a typo never passes)", async () => {
    const { result } = await loadFile({ version: 1, serach: { route: ["duckduckgo"] } });
    assert.equal(result.ok, false);
    if (!result.ok) assert.equal(result.error.details.key, "serach");
  });

  it("a key retired after the file's version is ignored with a notice naming it; the text is not changed", () => {
    const retired = { 2: ["search.fallback", "providers.*.timeoutMs"] };
    const text = JSON.stringify({
      search: { route: ["duckduckgo"], fallback: true },
      providers: { tav: { type: "tavily", timeoutMs: 5 } },
    });
    const { file, notices } = parseConfigDocument(text, source, configFileSchema, retired);
    assert.deepEqual(file.search, { route: ["duckduckgo"] });
    assert.deepEqual(notices, [
      "config.json: search.fallback was retired in config version 2 and is ignored; remove it",
      "config.json: providers.tav.timeoutMs was retired in config version 2 and is ignored; remove it",
    ]);
    assert.equal(JSON.parse(text).search.fallback, true);
  });

  it("in a file of the version that retired it, the key is unknown and refused", () => {
    const retired = { 1: ["search.fallback"] };
    const text = JSON.stringify({ version: 1, search: { fallback: true } });
    assert.throws(
      () => parseConfigDocument(text, source, configFileSchema, retired),
      (thrown: Error & { details?: { key?: string } }) => thrown.details?.key === "search.fallback",
    );
  });

  it("setup writes the current version, keeps the rest, and refuses to change a newer file", () => {
    const next = planSetup(JSON.parse(SETUP_V1), { locale: "en" });
    assert.equal(next.version, CONFIG_VERSION);
    assert.deepEqual(
      { ...next, version: undefined, locale: undefined },
      {
        ...JSON.parse(SETUP_V1),
        version: undefined,
        locale: undefined,
      },
    );
    assert.throws(() => planSetup({ version: CONFIG_VERSION + 1 }, { locale: "en" }), /newer evident/);
  });
});
