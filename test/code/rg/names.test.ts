/**
 * ripgrep's file listings through the real binary: what is listed, and which failures are the
 * request's (a rejected glob) rather than a partial listing.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { listNames } from "../../../src/code/rg/names.js";
import { RG } from "../helpers.js";

const dir = mkdtempSync(join(tmpdir(), "evident-names-"));
after(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(join(dir, "empty"));
mkdirSync(join(dir, "full"));
writeFileSync(join(dir, "full", "a.ts"), "a\n");

const list = (args: string[]) =>
  listNames({
    rgPath: RG,
    env: { PATH: process.env.PATH },
    args: ["--files", "--null", ...args],
    target: { cwd: dir, root: ".", protectedGlobs: [] },
    signal: new AbortController().signal,
  });

describe("ripgrep file listings", () => {
  it("an entry gone while listed (found by fuzzing: another process's temporary files) leaves the rest of the listing, even an empty one", async () => {
    assert.deepEqual(await list(["removed-meanwhile", "full"]), ["full/a.ts"]);
    assert.deepEqual(await list(["removed-meanwhile", "empty"]), []);
  });

  it("a glob ripgrep rejects is invalid_arguments, not a listing", async () => {
    await assert.rejects(list(["--glob", "{a", "full"]), (error: unknown) => {
      return (error as { code?: string }).code === "invalid_arguments";
    });
  });
});
