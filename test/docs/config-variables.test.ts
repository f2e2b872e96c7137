/**
 * docs/CONFIG.md's tables are checked against the code's one list of variables
 * (src/config/variables.ts) and the config file's schema: every variable evident reads has a
 * row, no row names a variable it does not read, every `EVIDENT_*` name the page mentions is
 * real (or retired), every top-level key of the file has a row and no row names a key the
 * schema refuses, and each provider type's row lists that type's own keys.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, it } from "node:test";
import { z } from "zod";
import { createProviderEntrySchema, HTTP_ADAPTERS } from "../../src/config/schema.js";
import {
  isProviderVariable,
  KNOWN_VARIABLES,
  PROVIDER_VARIABLE_SUFFIXES,
  RETIRED_VARIABLES,
} from "../../src/config/variables.js";
import { configFileSchema } from "../../src/web/config-schema.js";

const CONFIG = readFileSync(resolve(import.meta.dirname, "../../docs/CONFIG.md"), "utf8");

/** The cells of every table row (header and separator rows left out). */
function tableRows(markdown: string): string[][] {
  const rows: string[][] = [];
  const lines = markdown.split("\n");
  lines.forEach((line, index) => {
    if (!line.startsWith("|") || /^\|[\s|:-]+\|$/.test(line)) return;
    // A header row is the one right above a separator.
    if (/^\|[\s|:-]+\|$/.test(lines[index + 1] ?? "")) return;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
  });
  return rows;
}

function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? "");
}

/** Variable names a first cell lists: upper-case names, the lower-case proxy forms, `EVIDENT_<ID>_...`. */
function documentedVariables(): Set<string> {
  const names = new Set<string>();
  for (const [first] of tableRows(CONFIG)) {
    for (const span of codeSpans(first ?? "")) {
      if (/^[A-Z][A-Z0-9]*_[A-Z0-9_]+$|^PORT$|^[a-z]+_proxy$|^EVIDENT_<ID>_[A-Z_]+$/.test(span))
        names.add(span);
    }
  }
  return names;
}

const PROVIDER_FORMS = PROVIDER_VARIABLE_SUFFIXES.map((suffix) => `EVIDENT_<ID>_${suffix}`);

describe("docs/CONFIG.md and the settings", () => {
  it("every variable evident reads has a row", () => {
    const documented = documentedVariables();
    const missing = [...KNOWN_VARIABLES, ...PROVIDER_FORMS].filter((name) => !documented.has(name));
    assert.deepEqual(missing, [], "add a row to docs/CONFIG.md for each");
  });

  it("no row names a variable evident does not read", () => {
    const known = new Set([...KNOWN_VARIABLES, ...PROVIDER_FORMS]);
    const unknown = [...documentedVariables()].filter((name) => !known.has(name));
    assert.deepEqual(unknown, []);
  });

  it("every EVIDENT_ name the page mentions is read by evident, a provider's own variable, or retired", () => {
    const known = new Set(KNOWN_VARIABLES);
    // The page's own example of what is said of a misspelt variable is no mention of a setting.
    const text = CONFIG.replace(/EVIDENT_\w+\s+is not a variable evident reads/g, "");
    const mentioned = new Set([...text.matchAll(/\bEVIDENT_[A-Z0-9_]*[A-Z0-9]\b/g)].map((match) => match[0]));
    const stray = [...mentioned].filter(
      (name) => !known.has(name) && !isProviderVariable(name) && RETIRED_VARIABLES[name] === undefined,
    );
    assert.deepEqual(stray, []);
  });

  it("the top-level keys table lists exactly the file's keys", () => {
    const section = CONFIG.slice(
      CONFIG.indexOf("### Top-level keys"),
      CONFIG.indexOf("### Provider entries"),
    );
    const documented = tableRows(section).flatMap(([first]) => codeSpans(first ?? ""));
    const schemaKeys: string[] = [];
    for (const [key, value] of Object.entries(configFileSchema.shape)) {
      const inner = (value as z.ZodOptional<z.ZodType>).unwrap?.() ?? value;
      if (key === "search" || key === "read") {
        for (const nested of Object.keys((inner as z.ZodObject).shape)) schemaKeys.push(`${key}.${nested}`);
      } else schemaKeys.push(key);
    }
    assert.deepEqual([...documented].sort(), schemaKeys.sort());
  });

  it("each provider type's row lists that type's own keys, and no key another type has instead", () => {
    const section = CONFIG.slice(CONFIG.indexOf("### Provider entries"), CONFIG.indexOf("## Routing"));
    const rows = new Map(
      tableRows(section).map(([type, keys]) => [codeSpans(type ?? "")[0] ?? "", codeSpans(keys ?? "")]),
    );
    const entries = createProviderEntrySchema(z.strictObject({ type: z.literal("mcp") })).options;
    const allKeys = new Set(entries.flatMap((entry) => Object.keys((entry as z.ZodObject).shape)));
    for (const entry of entries) {
      const shape = (entry as z.ZodObject).shape;
      const type = (shape.type as z.ZodLiteral<string>).value;
      if (!(HTTP_ADAPTERS as readonly string[]).includes(type)) continue;
      const own = Object.keys(shape).filter((key) => !["type", "baseUrl", "attemptDeadlineMs"].includes(key));
      const listed = (rows.get(type) ?? []).filter(
        (span) => allKeys.has(span) && span !== "attemptDeadlineMs" && span !== "baseUrl",
      );
      assert.deepEqual(listed.sort(), own.sort(), `the ${type} row`);
    }
  });
});
