/**
 * Every cursor kind is accepted only in the exact form it was issued in (issue #31, section 7).
 * Base64url decoding drops a trailing partial character and the unused low bits of the last
 * one, so "cursor + x" (a token of a multiple of 3 bytes) or a last character with other unused
 * bits (any other length) decoded to the same bytes and passed the MAC. Each kind is taken from
 * a real answer: code_search's summary cursor, its file-bound match cursor, its inspectCursor
 * and sourceCursor, and web_read's page cursor.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { resolveSettings } from "../../src/config/settings.js";
import { silentLogger } from "../../src/core/logger.js";
import { createCodeSearchTool } from "../../src/tools/code-search.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { createWebReadTool } from "../../src/tools/web-read.js";
import { makeTree, removeTree } from "../code/helpers.js";
import { type Loopback, startLoopback } from "../net/loopback.js";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Every one-character append and every other last character: none is the issued token. */
function altered(token: string): string[] {
  const forms = new Set<string>();
  for (const c of ALPHABET) {
    forms.add(`${token}${c}`);
    forms.add(`${token.slice(0, -1)}${c}`);
  }
  forms.add(`${token}=`);
  forms.add(`${token}==`);
  forms.delete(token);
  return [...forms];
}

// biome-ignore lint/suspicious/noExplicitAny: payloads are read loosely; their shapes are asserted.
type Json = Record<string, any>;

describe("cursors are accepted only in their exact canonical form", () => {
  let root: string;
  let dir: string;
  let site: Loopback;
  let tools: ToolRegistry;

  before(async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`f${i}.ts`] = "needle\n".repeat(i + 1);
    // A symbol larger than one inspection answer, so it continues with a sourceCursor.
    const body = Array.from({ length: 2000 }, (_, i) => `  n += ${i};`).join("\n");
    files["big.ts"] = `function big() {\n${body}\n}\n`;
    root = await makeTree(files);
    dir = await mkdtemp(join(tmpdir(), "evident-canonical-cursors-"));
    site = await startLoopback((_req, res) => {
      res.setHeader("content-type", "text/plain");
      res.end("word ".repeat(200_000));
    });
    const env = {
      cwd: root,
      settings: resolveSettings({ PATH: process.env.PATH ?? "" }),
      logger: silentLogger,
    };
    tools = new ToolRegistry()
      .register(createCodeSearchTool(env))
      .register(
        createWebReadTool(
          { ...env, settings: resolveSettings({ XDG_CONFIG_HOME: join(dir, "no-config") }) },
          { treatAsPublic: ["127.0.0.1"] },
        ),
      );
  });
  after(async () => {
    await tools.close();
    await site.close();
    await removeTree(root);
    await rm(dir, { recursive: true, force: true });
  });

  const caller = { caller: "alice" };

  /** Each altered form of `token` in `field` is cursor_malformed; the issued token still works. */
  async function assertCanonicalOnly(
    tool: string,
    field: string,
    token: string,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    for (const form of altered(token)) {
      const result = await tools.call(tool, { ...extra, [field]: form }, caller);
      assert.equal(result.isError, true, `${field} ${form} was accepted for ${token}`);
      assert.equal((result.data as Json).error.code, "cursor_malformed", `${form}: ${result.text}`);
    }
    const issued = await tools.call(tool, { ...extra, [field]: token }, caller);
    assert.equal(issued.isError, false, issued.text);
  }

  it("G12: code_search's summary and file-bound match cursors", async () => {
    const first = await tools.call("code_search", { pattern: "needle", mode: "summary" }, caller);
    assert.equal(first.isError, false, first.text);
    const summary = (first.data as Json).cursor as string;
    assert.ok(summary);
    await assertCanonicalOnly("code_search", "cursor", summary);
    const detail = await tools.call("code_search", { cursor: summary, paths: ["f39.ts"], limit: 2 }, caller);
    assert.equal(detail.isError, false, detail.text);
    const bound = (detail.data as Json).cursor as string;
    assert.ok(bound, detail.text);
    // A different length from the summary cursor's: the other way base64url leaves spare bits.
    assert.notEqual(bound.length % 4, summary.length % 4);
    await assertCanonicalOnly("code_search", "cursor", bound);
  });

  it("G12: code_search's inspectCursor and sourceCursor", async () => {
    const small = await tools.call("code_search", { pattern: "needle", path: "f1.ts" }, caller);
    const inspectCursor = (small.data as Json).inspectCursor as string;
    assert.ok(inspectCursor, small.text);
    await assertCanonicalOnly("code_search", "cursor", inspectCursor, { inspect: 1 });
    const inspected = await tools.call("code_search", { path: "big.ts", symbol: "big" }, caller);
    const sourceCursor = (inspected.data as Json).sourceCursor as string;
    assert.ok(sourceCursor, inspected.text);
    await assertCanonicalOnly("code_search", "sourceCursor", sourceCursor);
  });

  it("web_read's page cursor", async () => {
    const first = await tools.call("web_read", { url: `${site.url}/long` }, caller);
    assert.equal(first.isError, false, first.text);
    const cursor = (first.data as Json).cursor as string;
    assert.ok(cursor);
    await assertCanonicalOnly("web_read", "cursor", cursor);
  });
});
