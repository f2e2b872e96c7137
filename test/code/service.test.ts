import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { renameSync, writeFileSync } from "node:fs";
import { appendFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { resolveBudget } from "../../src/code/render/budget.js";
import { memoryKept, snapshotStore } from "../../src/code/snapshots/store.js";
import { EvidentError } from "../../src/core/errors.js";
import {
  MAX_DISPLAYED_OCCURRENCES,
  RG_MAX_PROTOCOL_LINE_BYTES,
  SUMMARY_FILES_PER_PAGE,
} from "../../src/core/limits.js";
import { gatedRipgrep, isAlive, isRunning, manyFiles, processesIn, treesRemovedAfter } from "./helpers.js";
import { ctx, errorCode, makeService, walk } from "./service-helpers.js";

const tree = treesRemovedAfter(after);

describe("code_search policy", () => {
  it("G22: a compact complete search returns every match directly, with the cursor its numbers belong to", async () => {
    const root = await tree({ "a.ts": "alpha\nbeta alpha\n", "b.ts": "gamma\n" });
    const kept = memoryKept();
    const store = snapshotStore(kept);
    const service = makeService(root, { store });
    const result = await service.run({ pattern: "alpha" }, ctx());
    assert.equal(result.data.view, "details");
    assert.equal(result.data.cursor, undefined, "nothing is left to page");
    const inspectCursor = result.data.inspectCursor as string;
    assert.ok(inspectCursor);
    assert.ok(result.text.includes(`{"cursor":"${inspectCursor}","inspect":n}`), result.text);
    assert.deepEqual(
      result.data.matches?.map((m) => [m.index, m.path, m.line]),
      [
        [1, "a.ts", 1],
        [2, "a.ts", 2],
      ],
    );
    assert.deepEqual(result.data.matches?.[1]?.ranges, [
      { startByte: 5, endByte: 10, startColumn: 6, endColumn: 11 },
    ]);
    assert.match(result.text, /\[2\] 2:6 {2}beta alpha/);
    assert.match(result.text, /: 2 matching lines \(2 occurrences\) in 1 file\./);
    assert.equal(kept.size, 1, "kept for inspection by number, within the store's bounds");
    const one = await service.run({ pattern: "gamma" }, ctx());
    assert.match(one.text, /: 1 matching line \(1 occurrence\) in 1 file\./);
  });

  it("G23: a large result starts with a ranked summary whose samples and cursor are in the text", async () => {
    const root = await tree(manyFiles(40));
    const service = makeService(root);
    const result = await service.run({ pattern: "needle" }, ctx());
    assert.equal(result.data.view, "summary");
    assert.equal(result.data.totalFiles, 40);
    assert.equal(result.data.files?.[0]?.path, "src/f039.ts");
    assert.ok(result.data.cursor !== undefined && result.text.includes(result.data.cursor));
    assert.match(result.text, /not ranked/);
    assert.ok((result.data.summaryPreviewsShown ?? 0) > 0);
    assert.match(result.text, /\[\d+\] \d+:\d+ {2}const needle/);
    assert.ok(result.text.length <= 8 * 1024);
  });

  it("G03: summary pages cover every retained file once, in count-ranked order", async () => {
    const files = manyFiles(70);
    files["src/tie-a.ts"] = "needle\nneedle";
    files["src/tie-b.ts"] = "needle\nneedle";
    const root = await tree(files);
    const service = makeService(root);
    let result = await service.run({ pattern: "needle", mode: "summary" }, ctx());
    const seen = [...(result.data.files ?? [])];
    assert.equal(seen.length, SUMMARY_FILES_PER_PAGE);
    while (result.data.filesTo !== undefined && result.data.filesTo < (result.data.totalFiles ?? 0)) {
      result = await service.run({ cursor: result.data.cursor as string, mode: "summary" }, ctx());
      seen.push(...(result.data.files ?? []));
    }
    assert.equal(seen.length, 72);
    assert.equal(new Set(seen.map((f) => f.path)).size, 72);
    const ranked = [...seen].sort((a, b) => b.matches - a.matches || (a.path < b.path ? -1 : 1));
    assert.deepEqual(seen, ranked);
    const tieA = seen.findIndex((f) => f.path === "src/tie-a.ts");
    assert.equal(seen[tieA + 1]?.path, "src/tie-b.ts");
  });

  it("G01: matches pages walk every retained match exactly once, in order", async () => {
    const root = await tree(manyFiles(25));
    const service = makeService(root);
    const first = await service.run({ pattern: "needle", mode: "matches", limit: 7 }, ctx());
    const indices = await walk(service, first);
    assert.deepEqual(
      indices,
      Array.from({ length: first.data.totalMatches ?? 0 }, (_, i) => i + 1),
    );
  });

  it("G06: a cursor page never reruns the search and ignores files that appear later", async () => {
    const root = await tree(manyFiles(10));
    const spawned: number[] = [];
    const service = makeService(root, { onProcessSpawn: (pid) => spawned.push(pid) });
    const first = await service.run({ pattern: "needle", limit: 5 }, ctx());
    const processes = spawned.length;
    await writeFile(join(root, "src/zzz-new.ts"), "needle needle\n");
    const indices = await walk(service, first);
    assert.equal(spawned.length, processes);
    assert.equal(indices.length, first.data.totalMatches);
    assert.equal(first.data.totalMatches, 55);
  });

  it("G06: a match cursor keeps its bound file selection; other paths are cursor_option_conflict", async () => {
    const root = await tree(manyFiles(40));
    const service = makeService(root);
    const summary = await service.run({ pattern: "needle" }, ctx());
    const cursor = summary.data.cursor as string;
    const chosen = await service.run({ cursor, paths: ["src/f030.ts", "src/f002.ts"], limit: 4 }, ctx());
    assert.deepEqual(chosen.data.selection, ["src/f030.ts", "src/f002.ts"].sort());
    const next = chosen.data.cursor as string;
    assert.equal(
      await errorCode(service.run({ cursor: next, paths: ["src/f001.ts"] }, ctx())),
      "cursor_option_conflict",
    );
    // The same selection, spelled differently, is the same signature.
    const same = await service.run(
      { cursor: next, paths: ["./src/f030.ts", "src/f002.ts", "src/f030.ts"] },
      ctx(),
    );
    assert.ok((same.data.matches ?? []).every((m) => m.path === "src/f002.ts" || m.path === "src/f030.ts"));
    const rest = await walk(service, chosen);
    assert.equal(rest.length, 3 + 31);
  });

  it("G07: the original summary cursor stays reusable after filtered detail walks end", async () => {
    const root = await tree(manyFiles(40));
    const service = makeService(root);
    const summary = await service.run({ pattern: "needle" }, ctx());
    const cursor = summary.data.cursor as string;
    const a = await walk(service, await service.run({ cursor, paths: ["src/f005.ts"], limit: 2 }, ctx()));
    assert.equal(a.length, 6);
    const b = await walk(service, await service.run({ cursor, paths: ["src/f001.ts"] }, ctx()));
    assert.equal(b.length, 2);
    const all = await walk(service, await service.run({ cursor }, ctx()));
    assert.equal(all.length, summary.data.totalMatches);
    assert.equal((await service.run({ cursor, mode: "summary" }, ctx())).data.filesFrom, 31);
  });

  it("G12: cursor errors come in the documented order, cursor validity first", async () => {
    const root = await tree(manyFiles(40));
    const service = makeService(root);
    const summary = await service.run({ pattern: "needle" }, ctx());
    const cursor = summary.data.cursor as string;
    const matches = await service.run({ pattern: "needle", mode: "matches", limit: 3 }, ctx());
    const matchCursor = matches.data.cursor as string;

    assert.equal(
      await errorCode(service.run({ cursor: "garbage", pattern: "x" }, ctx())),
      "cursor_malformed",
    );
    assert.equal(
      await errorCode(service.run({ cursor, pattern: "x" }, ctx("someone-else"))),
      "cursor_not_found",
    );
    assert.equal(
      await errorCode(service.run({ cursor: matchCursor, mode: "summary", pattern: "x" }, ctx())),
      "cursor_wrong_kind",
    );
    assert.equal(await errorCode(service.run({ cursor, pattern: "x" }, ctx())), "cursor_option_conflict");
    assert.equal(await errorCode(service.run({ cursor, glob: ["*.ts"] }, ctx())), "cursor_option_conflict");
    assert.equal(
      await errorCode(service.run({ cursor, mode: "summary", paths: ["src/f001.ts"] }, ctx())),
      "cursor_option_conflict",
    );
    const lastFiles = await service.run({ cursor, mode: "summary" }, ctx());
    assert.equal(
      await errorCode(service.run({ cursor: lastFiles.data.cursor as string, mode: "summary" }, ctx())),
      "cursor_offset_invalid",
    );
    assert.equal(
      await errorCode(service.run({ cursor, paths: ["src/nope.ts"] }, ctx())),
      "invalid_arguments",
    );

    // A walk to the last page keeps the snapshot (its numbers stay inspectable); it expires by
    // time or eviction (the store contract), and another caller never finds it.
    await walk(service, matches);
    assert.equal(await errorCode(service.run({ cursor: matchCursor, inspect: 1 }, ctx())), "no error");
    assert.equal(
      await errorCode(service.run({ cursor: matchCursor }, ctx("someone-else"))),
      "cursor_not_found",
    );
  });

  it("G08: every answer that numbers matches carries their cursor, so [n] works with inspect and matchIndices", async () => {
    const root = await tree({
      ...manyFiles(12),
      "small.ts": "function small() {\n  return tiny;\n}\nconst tiny = 1;\n",
    });
    const service = makeService(root);
    /** Inspects [n] of an answer through the cursor it carries; returns "path:n" as inspected. */
    const inspected = async (answer: { data: { inspectCursor?: string } }, n: number) => {
      const cursor = answer.data.inspectCursor;
      assert.ok(cursor, "the answer carries the cursor of its numbers");
      const one = await service.run({ cursor, inspect: n }, ctx());
      const both = await service.run({ cursor, matchIndices: [n, n] }, ctx());
      assert.equal(both.data.inspections?.length, 2);
      return `${one.data.inspections?.[0]?.path}:${one.data.inspections?.[0]?.target.match}`;
    };
    // Compact and complete: the whole result, no page to follow.
    const compact = await service.run({ pattern: "tiny" }, ctx());
    assert.equal(compact.data.cursor, undefined);
    assert.equal(await inspected(compact, 2), "small.ts:2");
    // An explicit page that holds everything, and one that does not, walked to its last page.
    const fits = await service.run({ pattern: "tiny", mode: "matches" }, ctx());
    assert.equal(fits.data.cursor, undefined);
    assert.equal(await inspected(fits, 1), "small.ts:1");
    let page = await service.run({ pattern: "needle", limit: 30 }, ctx());
    assert.equal(await inspected(page, 30), `${page.data.matches?.[29]?.path}:30`);
    while (page.data.cursor !== undefined) page = await service.run({ cursor: page.data.cursor }, ctx());
    const last = page.data.matches?.at(-1);
    assert.ok(last);
    assert.equal(await inspected(page, last.index), `${last.path}:${last.index}`);
    // A summary's samples: its own cursor.
    const summary = await service.run({ pattern: "needle", mode: "summary" }, ctx());
    assert.equal(summary.data.inspectCursor, summary.data.cursor);
    // The cursor binds the revision the search retained: a file changed since is refused.
    await writeFile(join(root, "small.ts"), "function small() {\n  return 2;\n}\n");
    assert.equal(
      await errorCode(service.run({ cursor: compact.data.inspectCursor, inspect: 2 }, ctx())),
      "source_changed",
    );
  });

  it("G02: an empty subpath is retried from the project root, recording both roots", async () => {
    const root = await tree({ "src/a.ts": "nothing\n", "lib/b.ts": "target here\n" });
    const service = makeService(root);
    const result = await service.run({ pattern: "target", path: "src" }, ctx());
    assert.equal(result.data.expanded, true);
    assert.equal(result.data.requestedRoot, "src");
    assert.equal(result.data.effectiveRoot, ".");
    assert.equal(result.data.totalMatches, 1);
    // Said on the first line, where the count is: never only in a note below it.
    assert.match(
      result.text.split("\n")[0] ?? "",
      /^code_search "target" .* in the project root, widened from "src" where nothing matched \(same filters; "scope": "strict" keeps to the path\): 1 matching line/,
    );

    const strict = await service.run({ pattern: "target", path: "src", scope: "strict" }, ctx());
    assert.equal(strict.data.expanded, false);
    assert.equal(strict.data.view, "empty");
    assert.match(strict.text, /not evidence that the pattern is absent elsewhere/);

    const none = await service.run({ pattern: "absent-everywhere", path: "src", glob: ["*.ts"] }, ctx());
    assert.equal(none.data.expanded, true);
    assert.match(none.text, /nor anywhere under the project root/);
  });

  it("G02: the retry keeps the explicit filters", async () => {
    const root = await tree({ "src/a.ts": "x\n", "lib/b.md": "target\n", "lib/c.ts": "target\n" });
    const result = await makeService(root).run({ pattern: "target", path: "src", glob: ["*.md"] }, ctx());
    assert.deepEqual(
      result.data.matches?.map((m) => m.path),
      ["lib/b.md"],
    );
  });

  it("G04: hitting a retention bound is an explicit partial result in text and data", async () => {
    const root = await tree(manyFiles(20));
    const service = makeService(root, {
      retention: { maxMatches: 30, maxOccurrences: 1_000_000, maxBytes: 1 << 30 },
    });
    const result = await service.run({ pattern: "needle" }, ctx());
    assert.equal(result.data.status, "partial");
    assert.equal(result.data.partialReason, "max_matches");
    assert.equal(result.data.view, "summary");
    assert.equal(result.data.totalMatches, 30);
    assert.match(result.text, /PARTIAL/);
    assert.match(result.text, /at least 30 matching lines/);
    const explicit = await service.run({ pattern: "needle", mode: "matches" }, ctx());
    assert.match(explicit.text, /PARTIAL/);
    assert.equal(explicit.data.status, "partial");
  });

  it("says whether a file's name or a line is not valid UTF-8, and how to select such a name", async () => {
    const root = await tree({ "good.txt": Buffer.from("needle \xff line\n", "latin1") });
    // Names are bytes: one that is not UTF-8 is shown with U+FFFD and cannot be typed back.
    await writeFile(Buffer.from(join(root, "bad\xffname.txt"), "latin1"), "needle in a bad name\n");
    const service = makeService(root);
    const result = await service.run({ pattern: "needle", mode: "matches" }, ctx());
    assert.match(
      result.text,
      /^bad\uFFFDname\.txt {2}\(name not valid UTF-8, shown with U\+FFFD: a glob with \* for each U\+FFFD selects it; revision unverified\)\n\[1\] 1:1 {2}needle in a bad name\n/m,
    );
    assert.match(result.text, /^good\.txt\n\[2\] 1:1 {2}needle \uFFFD line {2}\(line not valid UTF-8\)$/m);
    // The hint holds: the glob selects the file.
    const selected = await service.run({ pattern: "needle", glob: ["bad*name.txt"], mode: "matches" }, ctx());
    assert.deepEqual(
      selected.data.matches?.map((m) => m.path),
      ["bad\uFFFDname.txt"],
    );
    // Its match cannot be inspected by that name, and the refusal says why.
    const summary = await service.run({ pattern: "needle", mode: "summary" }, ctx());
    const refused = await service
      .run({ cursor: summary.data.cursor as string, inspect: 1 }, ctx())
      .catch((e: unknown) => e);
    assert.equal((refused as { code?: string }).code, "invalid_arguments");
    assert.match((refused as Error).message, /name is not valid UTF-8/);
    const impact = await service
      .run({ impact: true, cursor: summary.data.cursor as string, inspect: 1 }, ctx())
      .catch((e: unknown) => e);
    assert.equal((impact as { code?: string }).code, "invalid_arguments");
    assert.match((impact as Error).message, /name is not valid UTF-8/);
    await service.close();
  });

  it("G04: a line beyond the protocol cap stops the search as an explicit partial result", async () => {
    const huge = `needle ${"z".repeat(RG_MAX_PROTOCOL_LINE_BYTES)}`;
    const root = await tree({ "a.txt": "needle small\n", "b.txt": `${huge}\n` });
    const result = await makeService(root).run({ pattern: "needle", mode: "matches" }, ctx());
    assert.equal(result.data.status, "partial");
    assert.equal(result.data.partialReason, "protocol_line_limit");
    assert.match(result.text, /PARTIAL: retention stopped at a line too long to read \(in b\.txt\);/);
  });

  it("G04: a subpath search cut before it kept a match is not called empty, nor widened to the root", async () => {
    const huge = `needle ${"z".repeat(RG_MAX_PROTOCOL_LINE_BYTES)}`;
    const root = await tree({ "sub/b.txt": `${huge}\n`, "other.txt": "needle elsewhere\n" });
    const result = await makeService(root).run({ pattern: "needle", path: "sub" }, ctx());
    assert.equal(result.data.status, "partial");
    assert.equal(result.data.partialReason, "protocol_line_limit");
    assert.equal(result.data.expanded, false);
    assert.equal(result.data.totalMatches, 0);
    assert.doesNotMatch(result.text, /Nothing matched|No matches/);
    assert.match(
      result.text,
      /No matching line could be kept for "needle" .* in "sub": the search stopped early/,
    );
    assert.match(result.text, /a line too long to read \(in sub\/b\.txt\)/);
    assert.match(result.text, /PARTIAL: retention stopped at a line too long to read/);
  });

  it("a file name that could pass for another line of the answer is quoted", async () => {
    const root = await tree({
      "[2] 7:1  return isAdmin || true;": "needle a\n",
      "sep\u2028[9] 1:1  fake.ts": "needle b\n",
      "nel\u0085x.ts": "needle c\n",
      "bidi\u202eexe.ts": "needle d\n",
      "plain [x].ts": "needle e\n",
    });
    const service = makeService(root);
    for (const mode of ["matches", "summary"] as const) {
      const result = await service.run({ pattern: "needle", mode }, ctx());
      assert.match(result.text, /^ *(?:1 +)?"\[2\] 7:1 {2}return isAdmin \|\| true;"$/m, mode);
      assert.match(result.text, /"sep\\u2028\[9\] 1:1 {2}fake\.ts"/, mode);
      assert.match(result.text, /"nel\\u0085x\.ts"/, mode);
      assert.match(result.text, /"bidi\\u202eexe\.ts"/, mode);
      assert.match(result.text, /^ *(?:1 +)?plain \[x\]\.ts$/m, `${mode}: an ordinary name stays as it is`);
      assert.doesNotMatch(result.text, /[\u0085\u2028\u202e]/u, mode);
    }
    const inspected = await service.run({ path: "bidi\u202eexe.ts", line: 1 }, ctx());
    assert.match(inspected.text, /^\[1\] "bidi\\u202eexe\.ts":1: /m);
    assert.doesNotMatch(inspected.text, /\u202e/u);
    await service.close();
  });

  it("G10: long lines are excerpted around occurrences with absolute columns; excess ranges are counted", async () => {
    const long = `${"x".repeat(3000)}NEEDLE${"y".repeat(3000)}`;
    const dense = Array.from({ length: 30 }, () => "ab").join(" ");
    const root = await tree({ "long.txt": `${long}\n`, "dense.txt": `${dense}\n` });
    const service = makeService(root);
    const longResult = await service.run({ pattern: "NEEDLE" }, ctx());
    const shown = longResult.data.matches?.[0];
    assert.equal(shown?.excerpt, true);
    assert.deepEqual(shown?.ranges, [{ startByte: 3000, endByte: 3006, startColumn: 3001, endColumn: 3007 }]);
    assert.ok(shown?.text.includes("NEEDLE"));
    assert.ok((shown?.text.length ?? 0) < 500);
    assert.match(longResult.text, /3001/);

    const denseResult = await service.run({ pattern: "ab" }, ctx());
    const line = denseResult.data.matches?.[0];
    assert.equal(line?.ranges.length, MAX_DISPLAYED_OCCURRENCES);
    assert.equal(line?.rangesOmitted, 10);
    assert.equal(denseResult.data.occurrenceRangesOmitted, 10);
    assert.equal(denseResult.data.occurrenceMatchesTruncated, 1);
    assert.equal(denseResult.data.totalOccurrences, 30);
    assert.match(denseResult.text, /\+10 more ranges/);
  });

  it("G09: context comes from the current file only while it is unchanged; an edited file is flagged, never mixed", async () => {
    const lines = Array.from({ length: 60 }, (_, i) => (i % 10 === 5 ? `hit ${i + 1}` : `plain ${i + 1}`));
    const root = await tree({ "a.txt": `${lines.join("\n")}\n` });
    const service = makeService(root);
    const first = await service.run({ pattern: "hit", mode: "matches", limit: 2, context: 2 }, ctx());
    assert.match(first.text, /\n {4}5- {2}plain 5\n\[1\] 6:1 {2}hit 6\n {4}7- {2}plain 7/);
    assert.equal(first.data.changedFiles, undefined);
    await appendFile(join(root, "a.txt"), "hit appended\n");
    const second = await service.run({ cursor: first.data.cursor as string, context: 2, limit: 2 }, ctx());
    assert.deepEqual(second.data.changedFiles, ["a.txt"]);
    assert.match(second.text, /changed since the search/);
    assert.doesNotMatch(second.text, /plain/);
    assert.deepEqual(
      second.data.matches?.map((m) => m.text),
      ["hit 26", "hit 36"],
    );
  });

  it("G09: context never shows a retained match early, and is not repeated", async () => {
    const root = await tree({ "a.txt": "hit 1\nplain 2\nhit 3\nplain 4\nhit 5\n" });
    const service = makeService(root);
    const first = await service.run({ pattern: "hit", mode: "matches", limit: 1, context: 3 }, ctx());
    assert.doesNotMatch(first.text, /hit 3|hit 5/);
    const second = await service.run({ cursor: first.data.cursor as string, context: 3, limit: 1 }, ctx());
    assert.doesNotMatch(second.text, /hit 1|hit 5/);
    assert.equal((second.text.match(/plain 2/g) ?? []).length, 1);
  });

  it("counts files that change during the search as unverified, and says so", async () => {
    const root = await tree({ "a.txt": "needle\n", "b.txt": "needle\n" });
    let spawns = 0;
    const service = makeService(root, {
      onProcessSpawn: () => {
        // The second child is the content search: the revision scan has already run. Replaced
        // in one step, so ripgrep reads the old text or the new one (both match), never a
        // truncated file that would not match at all.
        if (++spawns === 2) {
          // Written next to the tree, not in it, so no search ever sees the new file itself.
          writeFileSync(`${root}.a.txt`, "needle changed\n");
          renameSync(`${root}.a.txt`, join(root, "a.txt"));
        }
      },
    });
    const result = await service.run({ pattern: "needle" }, ctx());
    assert.equal(result.data.sourceUnverifiedFileCount, 1);
    assert.equal(result.data.totalMatches, 2);
    assert.match(result.text, /1 file\(s\) could not be verified/);
  });

  it("a single-file search observes the file's revision without an enumeration", async () => {
    const root = await tree({ "src/a.ts": "one\nneedle\nthree\n" });
    const spawned: number[] = [];
    const service = makeService(root, { onProcessSpawn: (pid) => spawned.push(pid) });
    const result = await service.run({ pattern: "needle", path: "src/a.ts", context: 1 }, ctx());
    assert.equal(spawned.length, 1);
    assert.equal(result.data.sourceUnverifiedFileCount, 0);
    assert.match(result.text, / {4}1- {2}one\n\[1\] 2:1 {2}needle\n {4}3- {2}three/);
  });

  it("G11: cancelling mid-search rejects as cancelled and leaves no ripgrep process", async () => {
    const root = await tree(manyFiles(30));
    const controller = new AbortController();
    const pids: number[] = [];
    const service = makeService(root, {
      onProcessSpawn: (pid) => {
        pids.push(pid);
        if (pids.length === 2) controller.abort();
      },
    });
    const code = await errorCode(service.run({ pattern: "needle" }, ctx("c", { signal: controller.signal })));
    assert.equal(code, "cancelled");
    assert.equal(pids.length, 2);
    for (const pid of pids) assert.equal(isAlive(pid), false, `rg ${pid} still running`);
    assert.deepEqual(await processesIn(root), []);
  });

  it("G11: a pattern ripgrep rejects is invalid_arguments carrying ripgrep's explanation", async () => {
    const root = await tree({ "a.txt": "x\n" });
    const service = makeService(root);
    const error = await service.run({ pattern: "(unclosed" }, ctx()).catch((e: unknown) => e);
    assert.equal((error as { code?: string }).code, "invalid_arguments");
    assert.match((error as Error).message, /unclosed group/);
    assert.equal(await errorCode(service.run({ pattern: "(unclosed", literal: true }, ctx())), "no error");
  });

  it("G11: a search past its deadline is deadline_exceeded, and its ripgrep is reaped", async () => {
    const root = await tree({ "a.txt": "hello\n" });
    // Held at a gate nobody opens: only the deadline ends this search.
    const rg = await gatedRipgrep(await tree({}));
    const pids: number[] = [];
    const deadlineMs = 200;
    const service = makeService(root, {
      env: {},
      rgPath: rg.path,
      settings: { deadlineMs },
      onProcessSpawn: (pid) => pids.push(pid),
    });
    const error = await service.run({ pattern: "hello" }, ctx()).catch((e: unknown) => e);
    assert.ok(error instanceof EvidentError, String(error));
    assert.equal(error.code, "deadline_exceeded");
    assert.equal(error.details.deadline_ms, deadlineMs);
    for (const pid of pids) assert.equal(isRunning(pid), false, `rg ${pid} still running`);
    assert.deepEqual(await processesIn(root), []);
  });

  it("G11: the deadline counts from the call's receipt: a call whose time went before it ran starts nothing", async () => {
    const root = await tree({ "a.txt": "hello\n" });
    const pids: number[] = [];
    const deadlineMs = 5_000;
    const service = makeService(root, { settings: { deadlineMs }, onProcessSpawn: (pid) => pids.push(pid) });
    // Received a deadline ago (the service was loading, say): over its deadline before it starts.
    const late = await service
      .run({ pattern: "hello" }, ctx("c", { receivedAt: Date.now() - deadlineMs }))
      .catch((e: unknown) => e);
    assert.ok(late instanceof EvidentError, String(late));
    assert.equal(late.code, "deadline_exceeded");
    assert.equal(late.details.deadline_ms, deadlineMs);
    assert.deepEqual(pids, []);
    // Received just now, the same call answers.
    const now = await service.run({ pattern: "hello" }, ctx("c", { receivedAt: Date.now() }));
    assert.equal(now.data.totalMatches, 1);
  });

  it("a FIFO, socket or device as path is invalid_arguments, never a search that waits forever", async () => {
    const root = await tree({ "a.txt": "hello\n" });
    execFileSync("mkfifo", [join(root, "pipe")]);
    await symlink(join(root, "pipe"), join(root, "to-pipe"));
    const service = makeService(root);
    for (const path of ["pipe", "to-pipe"]) {
      const error = await service.run({ pattern: "x", path }, ctx()).catch((e: unknown) => e);
      assert.equal((error as EvidentError).code, "invalid_arguments", path);
      assert.match((error as Error).message, /not a regular file or directory/);
    }
    // Inside a directory, ripgrep passes it by: the search answers.
    assert.equal((await service.run({ pattern: "hello" }, ctx())).data.totalMatches, 1);
  });

  it("G25: the context budget shrinks only implicit auto answers", async () => {
    const root = await tree(manyFiles(12));
    const service = makeService(root);
    const critical = { usedTokens: 95, contextWindowTokens: 100 };
    const full = await service.run({ pattern: "needle" }, ctx());
    assert.equal(full.data.view, "details");
    const shrunk = await service.run({ pattern: "needle" }, ctx("c", { contextUsage: critical }));
    assert.equal(shrunk.data.view, "summary");
    for (const input of [{ limit: 50 }, { mode: "matches" as const }, { mode: "auto" as const }]) {
      const r = await service.run({ pattern: "needle", ...input }, ctx("c", { contextUsage: critical }));
      assert.equal(r.data.view, "details", JSON.stringify(input));
      assert.equal(r.data.budget?.adjusted, false);
    }
    const page = await service.run(
      { cursor: shrunk.data.cursor as string },
      ctx("c", { contextUsage: critical }),
    );
    assert.equal(page.data.budget?.tier, "default");
    assert.equal(page.data.shownTo, 50);
  });

  it("G27: a known context adjustment is in the data, and tight or critical ones in the text", async () => {
    assert.deepEqual(
      resolveBudget(undefined),
      resolveBudget({ usedTokens: Number.NaN, contextWindowTokens: 10 }),
    );
    assert.equal(resolveBudget({ usedTokens: 50, contextWindowTokens: 100 }).tier, "full");
    assert.equal(resolveBudget({ usedTokens: 60, contextWindowTokens: 100 }).tier, "tight");
    assert.equal(resolveBudget({ usedTokens: 90, contextWindowTokens: 100 }).targetTokens, 500);
    const root = await tree(manyFiles(3));
    const service = makeService(root);
    const tight = await service.run(
      { pattern: "needle" },
      ctx("c", { contextUsage: { usedTokens: 70, contextWindowTokens: 100 } }),
    );
    assert.deepEqual(tight.data.budget, { tier: "tight", targetTokens: 1000, adjusted: true });
    assert.match(tight.text, /Context is tight: this answer was sized for about 1000 tokens/);
    const roomy = await service.run(
      { pattern: "needle" },
      ctx("c", { contextUsage: { usedTokens: 10, contextWindowTokens: 100 } }),
    );
    assert.deepEqual(roomy.data.budget, { tier: "full", targetTokens: 2000, adjusted: false });
  });

  it("G26: redaction masks only what is shown; counts, ranges and paging are unchanged", async () => {
    const secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyz";
    const files: Record<string, string> = {};
    for (let i = 0; i < 8; i++)
      files[`c${i}.env`] = `TOKEN=${secret}\napi_key = "abcdef123456"\npassword: hunter2hunter2\n`;
    const root = await tree(files);
    const service = makeService(root);
    for (const mode of ["matches", "summary"] as const) {
      const plain = await service.run({ pattern: "TOKEN|api_key|password", mode, limit: 5 }, ctx());
      const masked = await service.run(
        { pattern: "TOKEN|api_key|password", mode, limit: 5, redact: true },
        ctx(),
      );
      assert.ok(plain.text.includes(secret));
      assert.ok(
        !masked.text.includes(secret) &&
          !masked.text.includes("hunter2") &&
          !masked.text.includes("abcdef123456"),
      );
      const strip = (d: typeof plain.data) => ({
        ...d,
        cursor: undefined,
        inspectCursor: undefined,
        redacted: undefined,
        matches: d.matches?.map((m) => ({ ...m, text: undefined })),
      });
      assert.deepEqual(strip(masked.data), strip(plain.data));
      if (mode === "matches") {
        const a = await walk(service, plain);
        const b = await walk(service, masked, { redact: true });
        assert.deepEqual(a, b);
      }
    }
  });

  it("G22: the match set does not depend on the budget tier", async () => {
    const root = await tree(manyFiles(12));
    const service = makeService(root);
    const a = await service.run(
      { pattern: "needle" },
      ctx("c", { contextUsage: { usedTokens: 99, contextWindowTokens: 100 } }),
    );
    const b = await service.run({ pattern: "needle" }, ctx());
    assert.equal(a.data.totalMatches, b.data.totalMatches);
    assert.equal(a.data.totalOccurrences, b.data.totalOccurrences);
  });
});
