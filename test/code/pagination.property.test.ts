import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { CodeSearchResponse, CodeSearchService } from "../../src/code/service.js";
import { DETAIL_PAGE_MAX_BYTES } from "../../src/core/limits.js";
import { makeTree, RG, removeTree } from "./helpers.js";
import { ctx, makeService, walk } from "./service-helpers.js";

/** A random tree: per file, which of its lines match. */
const treeArbitrary = fc.array(fc.array(fc.boolean(), { minLength: 1, maxLength: 30 }), {
  minLength: 1,
  maxLength: 12,
});

function materialize(shape: boolean[][]): Record<string, string> {
  const files: Record<string, string> = {};
  shape.forEach((lines, i) => {
    // The match moves along the line, so its column is evidence too.
    files[`d${i % 3}/file-${i}.txt`] = lines
      .map((hit, j) => (hit ? `${"x".repeat((i + j) % 7)} needle ${j}` : `plain ${j}`))
      .join("\n");
  });
  return files;
}

/** `path:line:column` of every match ripgrep itself reports, in path then line order. */
function ripgrepMatches(root: string): string[] {
  const run = spawnSync(RG, ["--json", "--no-config", "--sort", "path", "needle", "."], {
    cwd: root,
    encoding: "utf8",
  });
  const found: string[] = [];
  for (const line of run.stdout.split("\n")) {
    if (line === "") continue;
    const event = JSON.parse(line) as {
      type: string;
      data: { path?: { text: string }; line_number?: number; submatches?: { start: number }[] };
    };
    if (event.type !== "match") continue;
    const path = (event.data.path?.text ?? "").replace(/^\.\//, "");
    found.push(`${path}:${event.data.line_number}:${(event.data.submatches?.[0]?.start ?? -1) + 1}`);
  }
  return found;
}

/** Index and `path:line:column` of every match shown while walking the cursors from `first`. */
async function walkedMatches(
  service: CodeSearchService,
  first: CodeSearchResponse,
  input: Record<string, unknown>,
): Promise<{ index: number; place: string }[]> {
  const shown: { index: number; place: string }[] = [];
  let page = first;
  for (let guard = 0; guard < 10_000; guard++) {
    for (const m of page.data.matches ?? []) {
      shown.push({ index: m.index, place: `${m.path}:${m.line}:${m.ranges[0]?.startColumn}` });
    }
    if (page.data.cursorKind !== "matches" || page.data.cursor === undefined) return shown;
    page = await service.run({ cursor: page.data.cursor, ...input }, ctx());
  }
  throw new Error("cursor walk does not end");
}

describe("pagination (property-based)", () => {
  it("G01: walking match cursors yields every retained match exactly once, in order", async () => {
    await fc.assert(
      fc.asyncProperty(
        treeArbitrary,
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 3 }),
        async (shape, limit, context) => {
          const total = shape.flat().filter(Boolean).length;
          const root = await makeTree(materialize(shape));
          try {
            const service = makeService(root);
            const first = await service.run({ pattern: "needle", mode: "matches", limit, context }, ctx());
            if (total === 0) {
              assert.equal(first.data.view, "empty");
              return;
            }
            // Every match ripgrep reports, each once, at its place, in path then line order.
            const shown = await walkedMatches(service, first, { limit, context });
            assert.deepEqual(
              shown.map((m) => m.index),
              Array.from({ length: total }, (_, i) => i + 1),
            );
            assert.deepEqual(
              shown.map((m) => m.place),
              ripgrepMatches(root),
            );
          } finally {
            await removeTree(root);
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it("G01: a file selection from the summary cursor walks exactly its files' matches, in order", async () => {
    await fc.assert(
      fc.asyncProperty(
        treeArbitrary,
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.nat(11), { minLength: 1, maxLength: 4 }),
        async (shape, limit, picks) => {
          const root = await makeTree(materialize(shape));
          try {
            const service = makeService(root);
            const summary = await service.run({ pattern: "needle", mode: "summary" }, ctx());
            if (summary.data.view === "empty") return;
            const all = await walk(
              service,
              await service.run({ cursor: summary.data.cursor as string, limit: 100 }, ctx()),
            );
            assert.equal(all.length, summary.data.totalMatches);
            const files = (summary.data.files ?? []).map((f) => f.path);
            const chosen = [...new Set(picks.map((p) => files[p % files.length] as string))];
            const page = await service.run(
              { cursor: summary.data.cursor as string, paths: chosen, limit },
              ctx(),
            );
            const walked = await walk(service, page);
            const expected = (page.data.selection ?? []).length;
            assert.equal(expected, chosen.length);
            const perFile = new Map((summary.data.files ?? []).map((f) => [f.path, f.matches]));
            assert.equal(
              walked.length,
              chosen.reduce((sum, path) => sum + (perFile.get(path) ?? 0), 0),
            );
            assert.deepEqual(
              walked,
              [...walked].sort((a, b) => a - b),
            );
            assert.equal(new Set(walked).size, walked.length);
          } finally {
            await removeTree(root);
          }
        },
      ),
      { numRuns: 15 },
    );
  });

  it("every page stays within the hard byte bound, whatever the line lengths and context", async () => {
    const line = fc.tuple(fc.boolean(), fc.nat(3000), fc.constantFrom("a", "é", "日", "😀", "x "));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(line, { minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 1, max: 100 }),
        async (shape, context, limit) => {
          const files: Record<string, string> = {};
          shape.forEach((lines, i) => {
            files[`f${i}.txt`] = lines
              .map(([hit, length, unit]) => `${hit ? "needle " : ""}${unit.repeat(length)}`)
              .join("\n");
          });
          const root = await makeTree(files);
          try {
            const service = makeService(root);
            let page = await service.run({ pattern: "needle", mode: "matches", context, limit }, ctx());
            for (;;) {
              assert.ok(
                Buffer.byteLength(page.text) <= DETAIL_PAGE_MAX_BYTES,
                `${Buffer.byteLength(page.text)} bytes`,
              );
              if (page.data.cursorKind !== "matches" || page.data.cursor === undefined) break;
              page = await service.run({ cursor: page.data.cursor, context, limit }, ctx());
            }
          } finally {
            await removeTree(root);
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});
