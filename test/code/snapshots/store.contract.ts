/**
 * The contract every SnapshotStore implementation passes: the memory store, the CLI's file store
 * and the Redis store shared by replicas. Implementation-specific behaviour, such as how eviction
 * picks a victim, is tested next to each implementation.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SearchTarget } from "../../../src/code/path-policy.js";
import type { SearchQuery } from "../../../src/code/request.js";
import { EMPTY_TABLE } from "../../../src/code/rg/match-table.js";
import type { AnalysisData } from "../../../src/code/snapshots/analysis.js";
import {
  type SnapshotData,
  type SnapshotStore,
  selectionSignature,
} from "../../../src/code/snapshots/store.js";
import { EvidentError } from "../../../src/core/errors.js";
import { CURSOR_RANDOM_BITS } from "../../../src/core/limits.js";

/** A plain query for fixtures; the stores never look inside it. */
export const query: SearchQuery = {
  pattern: "x",
  literal: false,
  caseMode: "smart",
  wholeWord: false,
  hidden: true,
  globs: [],
  excludes: [],
};

/** A directory to search, for snapshots built from fixtures; nothing is read from it. */
export const target: SearchTarget = {
  requested: ".",
  absolute: "/p",
  canonical: "/p",
  isDirectory: true,
  isSubpath: false,
  rg: { cwd: "/p", root: ".", protectedGlobs: [] },
};

export function snapshotData(bytes = 100): SnapshotData {
  return {
    query,
    requestedRoot: ".",
    effectiveRoot: ".",
    expanded: false,
    rgCwd: "/",
    matches: EMPTY_TABLE,
    files: [],
    totalOccurrences: 0,
    trustedRevisions: {},
    partialReason: undefined,
    searchErrors: 0,
    bytes,
  };
}

/** An analysis result: kept by the same stores under the same rules. */
export function analysisData(bytes = 100): AnalysisData {
  return {
    kind: "analysis",
    operation: "anyOf",
    subject: "anyOf 2 terms (exact text, smart case per term)",
    requestedRoot: ".",
    effectiveRoot: ".",
    expanded: false,
    rgCwd: "/",
    items: [
      {
        kind: "occurrence",
        path: "./a.ts",
        line: 3,
        startByte: 0,
        endByte: 1,
        startColumn: 0,
        endColumn: 1,
        text: 0,
        term: 1,
      },
    ],
    texts: ["x = é"],
    terms: ["y", "x"],
    termsComplete: [true, false],
    coverage: { occurrences: { status: "complete" }, retention: { status: "partial", detail: "cut" } },
    notes: ["binding unproven"],
    changes: {
      comparison: "working tree vs HEAD (0123456789ab)",
      side: "new",
      scope: "lines",
      source: "worktree",
      filesChanged: 2,
      notCovered: [{ path: "b.ts", reason: "it changed while it was read" }],
    },
    searchErrors: 0,
    unverifiedFiles: 0,
    bytes,
  };
}

export function errorCodeOf(fn: () => unknown): Promise<string> {
  return Promise.resolve()
    .then(fn)
    .then(
      () => "no error",
      (error: unknown) => (error instanceof EvidentError ? error.code : String(error)),
    );
}

export interface StoreFactoryOptions {
  readonly ttlMs: number;
  readonly now: () => number;
}

export function snapshotStoreContract(
  name: string,
  make: (options: StoreFactoryOptions) => SnapshotStore,
  /** A store on a server that may be absent passes the test's `missing(...)`. */
  skip: string | false = false,
): void {
  const fresh = () => make({ ttlMs: 60_000, now: Date.now });

  describe(`SnapshotStore contract: ${name}`, { skip }, () => {
    it("keeps analysis results and change scopes as they were put, under analysis cursors", async () => {
      const store = fresh();
      const analysis = analysisData();
      const id = await store.put("a", analysis);
      assert.deepEqual(await store.get("a", id), analysis);
      const state = { snapshotId: id, offset: 30, kind: "analysis" as const, selection: undefined };
      assert.deepEqual(store.decodeCursor(store.encodeCursor(state)), state);
      assert.equal(await errorCodeOf(() => store.get("b", id)), "cursor_not_found");
      const scoped = { ...snapshotData(), changes: analysis.changes };
      const searchId = await store.put("a", scoped);
      assert.deepEqual(((await store.get("a", searchId)) as SnapshotData).changes, analysis.changes);
      // The file whose line was too long to read is kept with the stop it caused.
      const cut = { ...snapshotData(), partialReason: "protocol_line_limit" as const, longLineFile: "b.txt" };
      const kept = (await store.get("a", await store.put("a", cut))) as SnapshotData;
      assert.deepEqual([kept.partialReason, kept.longLineFile], ["protocol_line_limit", "b.txt"]);
      await store.close();
    });

    it("G12: cursors round-trip and carry only id, offset, kind and selection", async () => {
      const store = fresh();
      const id = await store.put("a", snapshotData());
      assert.equal(id.length, CURSOR_RANDOM_BITS / 4);
      const sig = selectionSignature(["b", "a", "a"]);
      assert.equal(sig, selectionSignature(["a", "b"]));
      for (const state of [
        { snapshotId: id, offset: 0, kind: "summary" as const, selection: undefined },
        { snapshotId: id, offset: 4_000_000, kind: "matches" as const, selection: sig },
      ]) {
        assert.deepEqual(store.decodeCursor(store.encodeCursor(state)), state);
      }
      await store.close();
    });

    it("seals other tokens for one purpose and one caller, and refuses any other", async () => {
      const store = fresh();
      const payload = Buffer.from("exact bytes");
      const token = store.seal("source-continuation", "a", payload);
      assert.deepEqual(store.open("source-continuation", "a", token), payload);
      assert.equal(store.open("source-continuation", "b", token), undefined);
      assert.equal(store.open("another-purpose", "a", token), undefined);
      const raw = Buffer.from(token, "base64url");
      raw[0] = (raw[0] ?? 0) ^ 1;
      assert.equal(store.open("source-continuation", "a", raw.toString("base64url")), undefined);
      assert.equal(store.open("source-continuation", "a", "not a token!"), undefined);
      await store.close();
    });

    it("G12: ids are random and distinct", async () => {
      const store = fresh();
      const ids = new Set<string>();
      for (let i = 0; i < 50; i++) ids.add(await store.put("a", snapshotData(1)));
      assert.equal(ids.size, 50);
      await store.close();
    });

    it("G12: altered, truncated or foreign text is cursor_malformed", async () => {
      const store = fresh();
      const id = await store.put("a", snapshotData());
      const good = store.encodeCursor({ snapshotId: id, offset: 3, kind: "matches" });
      const raw = Buffer.from(good, "base64url");
      const flipped = Buffer.from(raw);
      flipped[22] = (flipped[22] ?? 0) ^ 1; // the offset, edited
      for (const bad of [
        "",
        "not a cursor!",
        "AAAA",
        good.slice(0, -2),
        `${good}AA`,
        flipped.toString("base64url"),
        good.replace(/^./, good[0] === "A" ? "B" : "A"),
      ]) {
        assert.equal(await errorCodeOf(() => store.decodeCursor(bad)), "cursor_malformed", bad);
      }
      await store.close();
    });

    it("G12: another caller's snapshot is cursor_not_found, exactly like an unknown id", async () => {
      const store = fresh();
      const id = await store.put("alice", snapshotData());
      assert.equal(await errorCodeOf(() => store.get("mallory", id)), "cursor_not_found");
      assert.equal(await errorCodeOf(() => store.get("alice", "00".repeat(16))), "cursor_not_found");
      await store.release("mallory", id);
      await store.rememberSelection("mallory", id, "ab".repeat(16), ["x"]);
      assert.equal(await store.selection("mallory", id, "ab".repeat(16)), undefined);
      assert.equal(await store.selection("alice", id, "ab".repeat(16)), undefined);
      assert.equal(await errorCodeOf(() => store.get("alice", id)), "no error");
      await store.release("alice", id);
      assert.equal(await errorCodeOf(() => store.get("alice", id)), "cursor_expired");
      assert.equal(await errorCodeOf(() => store.get("mallory", id)), "cursor_not_found");
      await store.close();
    });

    it("G12: a snapshot past its time to live is cursor_expired; use keeps it alive", async () => {
      let now = 0;
      const store = make({ ttlMs: 1000, now: () => now });
      const kept = await store.put("a", snapshotData());
      const idle = await store.put("a", snapshotData());
      now = 900;
      await store.get("a", kept);
      now = 1500;
      assert.equal(await errorCodeOf(() => store.get("a", kept)), "no error");
      assert.equal(await errorCodeOf(() => store.get("a", idle)), "cursor_expired");
      await store.close();
    });

    it("G06: remembers a selection's files for its owner only", async () => {
      const store = fresh();
      const id = await store.put("a", snapshotData());
      const sig = selectionSignature(["x", "y"]);
      await store.rememberSelection("a", id, sig, ["x", "y"]);
      assert.deepEqual(await store.selection("a", id, sig), ["x", "y"]);
      assert.equal(await store.selection("b", id, sig), undefined);
      await store.close();
    });

    it("after close, no snapshot is served", async () => {
      const store = fresh();
      const id = await store.put("a", snapshotData());
      await store.close();
      assert.notEqual(await errorCodeOf(() => store.get("a", id)), "no error");
    });
  });
}
