/**
 * Universal Ctags writes its tags to a temporary file even when it prints them (`-f -`), and a
 * ctags that is stopped (a cancelled or timed-out call) leaves that file where TMPDIR says.
 * This file points TMPDIR at a directory of its own to see what is left there.
 */
import assert from "node:assert/strict";
import { type FSWatcher, mkdirSync, mkdtempSync, readdirSync, rmSync, watch, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ctagsSymbols } from "../../../src/code/syntax/ctags.js";
import { missing, toolPath } from "../../fixtures/optional-tools.js";

const base = mkdtempSync(join(tmpdir(), "evident-ctags-test-"));
const temporary = join(base, "tmp");
after(() => rmSync(base, { recursive: true, force: true }));

describe("ctags", { skip: missing("ctags") }, () => {
  it("a ctags stopped mid-run leaves no temporary file behind", async () => {
    // Long enough to parse that the stop lands while ctags is still writing its tags.
    const source = join(base, "big.c");
    writeFileSync(
      source,
      Array.from({ length: 100_000 }, (_, i) => `int f${i}(int x) { return x + ${i}; }\n`).join(""),
    );
    mkdirSync(temporary);
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = temporary;
    const controller = new AbortController();
    let watcher: FSWatcher | undefined;
    try {
      // Stopped as soon as ctags has made its temporary file, wherever under TMPDIR it is.
      watcher = watch(temporary, { recursive: true }, (_event, name) => {
        if (name !== null && /(^|\/)tags\.\w+$/.test(String(name))) controller.abort();
      });
      const outcome = await ctagsSymbols(toolPath("ctags"), source, process.env, controller.signal).catch(
        (e: unknown) => e,
      );
      assert.ok(controller.signal.aborted, `ctags was stopped, not finished (${JSON.stringify(outcome)})`);
    } finally {
      watcher?.close();
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
    }
    assert.deepEqual(readdirSync(temporary, { recursive: true }), []);
  });
});
