/**
 * Settings are resolved once (issue #32, part 5): the adapters hand their environment to
 * config/, which resolves the settings object; nothing below config/ (code, web, core, net,
 * tools) reads the environment, neither `process.env` nor config's env helpers. Parsed with
 * ast-grep's TypeScript grammar, so a comment or a string that names `process.env` is no read.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { Lang, parse } from "@ast-grep/napi";

const SRC = resolve(import.meta.dirname, "../../src");
const BELOW_CONFIG = ["code", "web", "core", "net", "tools"];
/** The modules that read environment variables: only config/ and the adapters may import them. */
const ENV_READERS = ["config/env.ts", "config/logging.ts"];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** Every read of the environment in one module's source, as `line: text`. */
export function environmentReads(source: string, file: string): string[] {
  const root = parse(Lang.TypeScript, source).root();
  const found: string[] = [];
  const at = (node: { range(): { start: { line: number } }; text(): string }) =>
    `${node.range().start.line + 1}: ${node.text()}`;
  for (const node of root.findAll("process.env")) found.push(at(node));
  for (const node of root.findAll("process[$KEY]")) {
    if (/env/.test(node.getMatch("KEY")?.text() ?? "")) found.push(at(node));
  }
  // `const { env } = process` and its `let`/`var` forms.
  for (const node of root.findAll({
    rule: { kind: "variable_declarator", has: { field: "value", pattern: "process" } },
  })) {
    if (node.field("name")?.kind() === "object_pattern" && /\benv\b/.test(node.field("name")?.text() ?? "")) {
      found.push(at(node));
    }
  }
  for (const node of root.findAll({
    rule: { kind: "string_fragment", inside: { kind: "import_statement", stopBy: "end" } },
  })) {
    const spec = node.text();
    if (!spec.startsWith(".")) continue;
    const target = relative(SRC, resolve(dirname(file), spec)).replace(/\.js$/, ".ts");
    if (ENV_READERS.includes(target)) found.push(at(node));
  }
  for (const node of root.findAll("import($SPEC)")) {
    const spec = node.getMatch("SPEC")?.text().slice(1, -1) ?? "";
    if (!spec.startsWith(".")) continue;
    const target = relative(SRC, resolve(dirname(file), spec)).replace(/\.js$/, ".ts");
    if (ENV_READERS.includes(target)) found.push(at(node));
  }
  return found;
}

describe("settings are resolved once, in config/", () => {
  it("no module below config/ reads the environment or imports the env helpers", () => {
    const violations: string[] = [];
    for (const layer of BELOW_CONFIG) {
      for (const file of files(join(SRC, layer))) {
        for (const read of environmentReads(readFileSync(file, "utf8"), file)) {
          violations.push(`${relative(SRC, file)}:${read}`);
        }
      }
    }
    assert.deepEqual(violations, []);
  });

  it("the check sees every form of a read, and no comment or string", () => {
    const file = join(SRC, "code", "example.ts");
    const reads = environmentReads(
      [
        "// process.env.HOME in a comment is no read",
        'const text = "process.env";',
        "const a = process.env.HOME;",
        'const b = process["env"];',
        "const { env } = process;",
        'import { envValue } from "../config/env.js";',
        'const helpers = await import("../config/logging.js");',
      ].join("\n"),
      file,
    );
    assert.deepEqual(
      reads.map((read) => read.split(":")[0]),
      ["3", "4", "5", "6", "7"],
    );
  });
});
