/**
 * evident leaves the runtime as Node started it (issue #32, part 2): nothing in src/ changes
 * V8's flags at run time (Node's docs: behaviour after start is undefined) or forces a garbage
 * collection. Memory is bounded by what evident keeps; an operator sizes the heap with NODE_OPTIONS.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, it } from "node:test";

const SRC = resolve(import.meta.dirname, "../../src");

/** What tuning the running VM looks like in source: flags set late, `gc` reached, a context made for it. */
const TUNING = [/setFlagsFromString/, /["']node:vm["']/, /expose[-_]gc/, /\bglobal(This)?\.gc\b/];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("the runtime as Node started it", () => {
  it("no module in src/ sets V8 flags, reaches gc or makes a VM context", () => {
    const found = files(SRC).flatMap((file) => {
      const text = readFileSync(file, "utf8");
      return TUNING.filter((pattern) => pattern.test(text)).map(
        (pattern) => `${relative(SRC, file)}: ${pattern}`,
      );
    });
    assert.deepEqual(found, []);
  });
});
