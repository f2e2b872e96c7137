/**
 * Imports flow downward only: adapters -> tools -> web | code -> net | config -> core; adapters
 * also hand their environment to config/ (settings are resolved there, once).
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
  adapters: ["tools", "config", "core"],
  tools: ["web", "code", "net", "config", "core"],
  web: ["net", "config", "core"],
  code: ["core"],
  net: ["core"],
  config: ["core"],
  core: [],
};

/**
 * Inside code/: each subsystem (a folder, or a module at code/'s top) may import only the ones
 * listed, so the folders stack without cycles: process and rg at the bottom, the service on top.
 */
const CODE_ALLOWED: Record<string, readonly string[]> = {
  schema: [],
  request: ["schema"],
  "path-policy": ["request"],
  process: [],
  "bounded-cache": [],
  rg: ["process", "path-policy", "request"],
  revisions: ["rg", "process", "path-policy", "request"],
  source: ["revisions", "path-policy", "request"],
  syntax: ["source", "revisions", "process", "rg", "bounded-cache"],
  snapshots: ["rg", "revisions", "path-policy", "request", "schema"],
  render: ["snapshots", "source", "rg", "request", "schema"],
  search: [
    "structure",
    "changes",
    "render",
    "source",
    "syntax",
    "snapshots",
    "revisions",
    "rg",
    "process",
    "path-policy",
    "request",
  ],
  "cursor-pages": ["analysis", "render", "snapshots", "request"],
  git: ["process"],
  changes: [
    "git",
    "rg",
    "revisions",
    "source",
    "snapshots",
    "process",
    "path-policy",
    "request",
    "bounded-cache",
  ],
  analysis: [
    "changes",
    "inspect",
    "render",
    "snapshots",
    "revisions",
    "rg",
    "request",
    "schema",
    "syntax",
    "source",
    "git",
    "path-policy",
  ],
  structure: [
    "syntax",
    "source",
    "snapshots",
    "revisions",
    "rg",
    "process",
    "path-policy",
    "request",
    "schema",
  ],
  inspect: ["syntax", "source", "snapshots", "render", "revisions", "rg", "path-policy", "request", "schema"],
  service: [
    "process",
    "analysis",
    "changes",
    "git",
    "cursor-pages",
    "inspect",
    "structure",
    "search",
    "render",
    "snapshots",
    "source",
    "syntax",
    "path-policy",
    "request",
    "schema",
  ],
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

/** The code/ subsystem a path belongs to: its folder, or its module name at code/'s top. */
function subsystemOf(path: string): string {
  const [first = ""] = relative(join(SRC, "code"), path).split("/");
  return first.replace(/\.(ts|js)$/, "");
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

  it("inside code/, every subsystem imports only the subsystems below it", () => {
    const violations: string[] = [];
    const unknown = new Set<string>();
    for (const file of files(join(SRC, "code"))) {
      const from = subsystemOf(file);
      if (CODE_ALLOWED[from] === undefined) unknown.add(from);
      const source = readFileSync(file, "utf8");
      for (const match of source.matchAll(/(?:import|export)[^"']*?from\s+["'](\.[^"']+)["']/g)) {
        const target = resolve(dirname(file), match[1] as string);
        if (layerOf(target) !== "code") continue;
        const to = subsystemOf(target);
        if (to === from) continue;
        if (!(CODE_ALLOWED[from] ?? []).includes(to)) violations.push(`${relative(SRC, file)} -> ${to}`);
      }
    }
    assert.deepEqual([...unknown], [], "every code/ subsystem has a place in CODE_ALLOWED");
    assert.deepEqual(violations, []);
  });
});
