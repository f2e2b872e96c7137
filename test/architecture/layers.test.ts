/**
 * Imports flow downward only: adapters -> tools -> web | code -> net | config -> core.
 * web/ and code/ never import each other or any adapter; core/ imports nothing of ours.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";

const SRC = resolve(import.meta.dirname, "../../src");

/** Which layers each layer may import (besides itself). */
const ALLOWED: Record<string, readonly string[]> = {
  root: ["adapters", "tools", "web", "code", "net", "config", "core"], // index.ts, sdk.ts
  adapters: ["tools", "core"],
  tools: ["web", "code", "net", "config", "core"],
  web: ["net", "config", "core"],
  code: ["core"],
  net: ["core"],
  config: ["core"],
  core: [],
};

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

function layerOf(path: string): string {
  const rel = relative(SRC, path);
  return rel.includes("/") ? (rel.split("/")[0] as string) : "root";
}

describe("layering", () => {
  it("every relative import goes to an allowed layer", () => {
    const violations: string[] = [];
    for (const file of files(SRC)) {
      const from = layerOf(file);
      const source = readFileSync(file, "utf8");
      for (const match of source.matchAll(
        /(?:import|export)[^"']*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g,
      )) {
        const spec = match[1] ?? match[2];
        if (spec === undefined) continue;
        const target = resolve(dirname(file), spec);
        const to = layerOf(target);
        if (to === from) continue;
        const allowed = ALLOWED[from] ?? [];
        if (!allowed.includes(to)) violations.push(`${relative(SRC, file)} (${from}) -> ${spec} (${to})`);
      }
    }
    assert.deepEqual(violations, []);
  });
});
