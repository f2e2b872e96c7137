import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";

const DIR = new URL("../../../src/web/providers/", import.meta.url);
const ADAPTERS = readdirSync(DIR).filter((name) => name.endsWith(".ts"));

describe("vendor adapters", () => {
  it("reach the network only through context.http, never fetch or a transport of their own", () => {
    assert.ok(ADAPTERS.length >= 9);
    for (const name of ADAPTERS) {
      const source = readFileSync(new URL(name, DIR), "utf8");
      assert.doesNotMatch(source, /\bfetch\s*\(/, `${name} calls fetch`);
      assert.doesNotMatch(
        source,
        /from\s+"(undici|node:http|node:https|node:net)"/,
        `${name} imports a transport`,
      );
    }
  });
});
