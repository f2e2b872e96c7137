/**
 * Functions in src/ stay short enough to read whole: at most 80 lines (issue #32, part 8).
 * Parsed with ast-grep's TypeScript grammar (a runtime dependency already), so a function's
 * span is its node's, comments and blank lines included.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { Lang, parse } from "@ast-grep/napi";

const SRC = resolve(import.meta.dirname, "../../src");
const MAX_LINES = 80;
const FUNCTION_KINDS = [
  "function_declaration",
  "generator_function_declaration",
  "method_definition",
  "arrow_function",
  "function_expression",
];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** Every function over the bound, named by its file and its own name (or "(arrow)"). */
function longFunctions(): Map<string, number> {
  const found = new Map<string, number>();
  for (const file of files(SRC)) {
    const root = parse(Lang.TypeScript, readFileSync(file, "utf8")).root();
    for (const kind of FUNCTION_KINDS) {
      for (const node of root.findAll({ rule: { kind } })) {
        const { start, end } = node.range();
        const lines = end.line - start.line + 1;
        if (lines <= MAX_LINES) continue;
        const name = node.field("name")?.text() ?? "(arrow)";
        const key = `${relative(SRC, file)} ${name}`;
        found.set(key, Math.max(lines, found.get(key) ?? 0));
      }
    }
  }
  return found;
}

describe("function length", () => {
  const found = longFunctions();

  it(`no function in src/ is over ${MAX_LINES} lines`, () => {
    assert.deepEqual([...found], [], `split these to at most ${MAX_LINES} lines`);
  });
});
