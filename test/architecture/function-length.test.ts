/**
 * Functions in src/ stay short enough to read whole: at most 80 lines (issue #32, part 8). The
 * functions listed below were longer when the rule came; each may shrink, none may grow, and a
 * function that reaches the bound leaves the list. Any other function over the bound fails.
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

/** Longer than the bound when the rule came (file and name): their lines then. */
const TO_SPLIT: Record<string, number> = {
  "config/load.ts resolve": 161,
  "code/analysis/impact.ts impactOf": 151,
  "code/changes/scope.ts openChangeScope": 147,
  "tools/code-search.ts createCodeSearchTool": 126,
  "code/structure/search.ts structureSearch": 132,
  "adapters/cli/setup-ui.ts runSetupPrompts": 127,
  "code/analysis/impact.ts selectTarget": 122,
  "code/rg/events.ts scanMatch": 122,
  "adapters/mcp/stdio-framing.ts frameStdin": 118,
  "adapters/cli/cli.ts runMcp": 113,
  "code/render/detail-page.ts renderDetailPage": 113,
  "code/analysis/navigation.ts navigate": 112,
  "adapters/cli/flags.ts parseCommand": 111,
  "adapters/cli/cli.ts runCli": 107,
  "web/router.ts read": 106,
  "adapters/cli/setup.ts parseSetupFlags": 103,
  "code/changes/scope.ts buildTree": 103,
  "code/inspect/answer.ts compose": 102,
  "web/providers/direct/json-indent.ts indentJson": 98,
  "adapters/pi/extension.ts evidentExtension": 96,
  "net/client.ts #exchange": 94,
  "code/git/objects.ts readBatch": 91,
  "web/envelope.ts buildSearchEnvelope": 87,
  "code/git/objects.ts (arrow)": 84,
  "web/providers/mcp/provider.ts createMcpProvider": 83,
  "code/inspect/inspection.ts rangeOf": 82,
  "web/providers/direct/pdf.ts readPdf": 82,
};

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

  it(`no function in src/ is over ${MAX_LINES} lines but those still to split, and none of those grew`, () => {
    const unlisted = [...found].filter(([key]) => TO_SPLIT[key] === undefined);
    assert.deepEqual(unlisted, [], `split these to at most ${MAX_LINES} lines`);
    const grown = [...found].filter(([key, lines]) => lines > (TO_SPLIT[key] ?? 0));
    assert.deepEqual(grown, [], "a function still to split grew");
  });

  it("a listed function that reached the bound leaves the list", () => {
    const done = Object.keys(TO_SPLIT).filter((key) => !found.has(key));
    assert.deepEqual(done, [], "remove these from TO_SPLIT");
  });
});
