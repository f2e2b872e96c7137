/**
 * Every code_search answer starts with the project root it searched, and that line is part of
 * the answer's byte bound: a page or an inspection that fills its budget under a very deep root
 * still fits CODE_ANSWER_MAX_BYTES, the text shortening the root and the data keeping it whole.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { resolveSettings } from "../../src/config/settings.js";
import { CODE_ANSWER_MAX_BYTES, PROJECT_ROOT_LINE_MAX_BYTES } from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";
import { createCodeSearchTool } from "../../src/tools/code-search.js";
import { projectRootLine } from "../../src/tools/project-root.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { makeTree, removeTree } from "../code/helpers.js";

// 14 directories of 100 characters: a root path of about 1,450 bytes (PATH_MAX is 4,096).
const DEEP = Array.from({ length: 14 }, (_, i) => `${String.fromCharCode(97 + i)}`.repeat(100)).join("/");
// Lines of three-byte characters, so a detail page reaches its byte bound before its character one.
const MANY = Array.from({ length: 300 }, (_, i) => `const needle${i} = "${"日".repeat(150)}";`).join("\n");
const BIG_FUNCTION = `export function big() {\n${Array.from({ length: 900 }, (_, i) => `  const v${i} = ${i}; // needle padding padding\n`).join("")}}\n`;

describe("the project root line", () => {
  let tree: string;
  let root: string;
  let registry: ToolRegistry;
  before(async () => {
    tree = await makeTree({ [`${DEEP}/many.ts`]: MANY, [`${DEEP}/big.ts`]: BIG_FUNCTION });
    root = `${tree}/${DEEP}`;
    registry = new ToolRegistry().register(
      createCodeSearchTool({ cwd: root, settings: resolveSettings(process.env), logger: silentLogger }),
    );
  });
  after(async () => {
    await registry.close();
    await removeTree(tree);
  });

  const call = async (args: Record<string, unknown>) => {
    const result = await registry.call("code_search", args, { caller: "root-line" });
    assert.equal(result.isError, false, result.text);
    return result;
  };

  it("is the root as it is when it fits its share of the budget", () => {
    assert.equal(projectRootLine("/work/project"), "Project root: /work/project\n");
  });

  it("shortens a deep root in the text, within its share, keeping both ends; the data has it whole", async () => {
    const line = projectRootLine(root);
    assert.ok(Buffer.byteLength(line) <= PROJECT_ROOT_LINE_MAX_BYTES, `${Buffer.byteLength(line)} bytes`);
    assert.ok(line.startsWith(`Project root: ${tree}`));
    assert.match(line, /…n{40,} \(shortened; see projectRoot\)\n$/u);
    const result = await call({ pattern: "needle", path: "many.ts", mode: "matches" });
    assert.ok(result.text.startsWith(line));
    assert.equal((result.data as { projectRoot: string }).projectRoot, root);
  });

  it("a full detail page under a deep root stays within the answer's byte bound", async () => {
    const result = await call({ pattern: "needle", path: "many.ts", mode: "matches", limit: 100 });
    assert.ok((result.data as { cursor?: string }).cursor !== undefined, "the page was cut by its budget");
    const bytes = Buffer.byteLength(result.text);
    assert.ok(bytes <= CODE_ANSWER_MAX_BYTES, `${bytes} bytes`);
    assert.ok(bytes > CODE_ANSWER_MAX_BYTES - 2_048, `the page used its budget (${bytes} bytes)`);
  });

  it("a full inspection under a deep root stays within the answer's byte bound", async () => {
    const result = await call({ targets: [{ path: "big.ts", line: 2 }] });
    assert.ok((result.data as { sourceCursor?: string }).sourceCursor !== undefined, "the symbol was cut");
    const bytes = Buffer.byteLength(result.text);
    assert.ok(bytes <= CODE_ANSWER_MAX_BYTES, `${bytes} bytes`);
  });
});
