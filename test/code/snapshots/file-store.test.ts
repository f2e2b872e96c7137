/**
 * The CLI's file-backed snapshot store: the shared contract, then what only a store on disk can
 * get wrong (a second process, file modes, tampering, symlinks, racing key creation).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { readdir, readFile, rename, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { after, describe, it } from "node:test";
import { revisionOf } from "../../../src/code/revisions/scan.js";
import { parsedTable } from "../../../src/code/rg/match-table.js";
import { fileSnapshots, type SnapshotBounds } from "../../../src/code/snapshots/backends.js";
import { memorySnapshotStore, selectionSignature, snapshotStore } from "../../../src/code/snapshots/store.js";
import { cacheDir } from "../../../src/config/settings.js";
import { errorOf } from "../../fixtures/errors.js";
import { spawnedFixture } from "../../fixtures/spawned.js";
import { makeTree, removeTree } from "../helpers.js";
import { ctx, errorCode, makeService, walk } from "../service-helpers.js";
import { errorCodeOf, snapshotData, snapshotStoreContract } from "./store.contract.js";

const ROOT = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../../..");
const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A fresh parent directory; the store's own directory is created inside it by the store. */
function tempParent(): string {
  const dir = mkdtempSync(join(tmpdir(), "evident-snapshots-"));
  temps.push(dir);
  return dir;
}

function freshDir(): string {
  return join(tempParent(), "snapshots");
}

/** code_search's results on disk in `dir`, as the CLI keeps them. */
function onDisk(dir: string, bounds: SnapshotBounds = {}) {
  return snapshotStore(fileSnapshots(dir, bounds));
}

snapshotStoreContract("file", (options) => onDisk(freshDir(), options));

describe("code_search's results on disk", () => {
  it("G06: a second store on the same directory (the next process) continues the first one's cursors", async () => {
    const dir = freshDir();
    const first = onDisk(dir);
    const data = {
      ...snapshotData(),
      matches: parsedTable([
        {
          path: "a.ts",
          pathLossy: false,
          line: 3,
          absoluteOffset: 10,
          text: "x = 1",
          textLossy: false,
          occurrences: [{ startByte: 0, endByte: 1, startColumn: 0, endColumn: 1 }],
        },
      ]),
      files: [{ path: "a.ts", key: "a.ts", matches: 1, occurrences: 1 }],
      trustedRevisions: { "a.ts": revisionOf({ size: "5", mtimeNs: "1", ctimeNs: "2", ino: "3", dev: "4" }) },
    };
    const id = await first.put("cli:1", data);
    const sig = selectionSignature(["a.ts"]);
    await first.rememberSelection("cli:1", id, sig, ["a.ts"]);
    const cursor = first.encodeCursor({ snapshotId: id, offset: 1, kind: "matches", selection: sig });
    await first.close();

    const second = onDisk(dir);
    const state = second.decodeCursor(cursor);
    assert.deepEqual(state, { snapshotId: id, offset: 1, kind: "matches", selection: sig });
    assert.deepEqual(await second.get("cli:1", id), data);
    assert.deepEqual(await second.selection("cli:1", id, sig), ["a.ts"]);
    assert.equal(await errorCodeOf(() => second.get("cli:2", id)), "cursor_not_found");
    await second.release("cli:1", id);

    const third = onDisk(dir);
    assert.equal(await errorCodeOf(() => third.get("cli:1", id)), "cursor_expired");
    assert.equal(await errorCodeOf(() => third.get("cli:2", id)), "cursor_not_found");
    assert.equal(await third.selection("cli:1", id, sig), undefined);
  });

  it("G01: a real search pages to the end across store instances, every match exactly once", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) {
      files[`src/f${String(i).padStart(3, "0")}.ts`] = Array.from(
        { length: i + 1 },
        (_, j) => `const needle${j} = ${j};`,
      ).join("\n");
    }
    const root = await makeTree(files);
    try {
      const dir = freshDir();
      const one = makeService(root, { store: onDisk(dir) });
      const summary = await one.run({ pattern: "needle" }, ctx("cli:1"));
      assert.equal(summary.data.view, "summary");
      assert.equal(summary.data.totalMatches, 465);
      await one.close();

      const two = makeService(root, { store: onDisk(dir) });
      const cursor = summary.data.cursor as string;
      const first = await two.run({ cursor, limit: 40 }, ctx("cli:1"));
      await two.close();
      const three = makeService(root, { store: onDisk(dir) });
      const indices = await walk(three, first, { limit: 40 }, "cli:1");
      assert.deepEqual(
        indices,
        Array.from({ length: 465 }, (_, i) => i + 1),
      );
      // The summary cursor stays reusable (G07), also for a chosen file, from yet another instance.
      const four = makeService(root, { store: onDisk(dir) });
      const chosen = await four.run({ cursor, paths: ["src/f004.ts"], limit: 2 }, ctx("cli:1"));
      const rest = await walk(four, chosen, {}, "cli:1");
      assert.equal(rest.length, 5);
      assert.equal(await errorCode(four.run({ cursor }, ctx("cli:2"))), "cursor_not_found");
      await four.close();
      await three.close();
    } finally {
      await removeTree(root);
    }
  });

  it("creates the directory 0700 and every file 0600", async () => {
    const dir = freshDir();
    const store = onDisk(dir);
    const id = await store.put("a", snapshotData());
    const sig = selectionSignature(["x"]);
    await store.rememberSelection("a", id, sig, ["x"]);
    const released = await store.put("a", snapshotData());
    await store.release("a", released);
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    const names = (await readdir(dir)).sort();
    assert.deepEqual(names, [`${id}.s${sig}.part`, `${id}.kept`, `${released}.gone`, "cursor.key"].sort());
    for (const name of names) {
      assert.equal((await stat(join(dir, name))).mode & 0o777, 0o600, name);
    }
    assert.equal((await stat(join(dir, "cursor.key"))).size, 32);
  });

  it("resolves EVIDENT_CACHE_DIR, else XDG_CACHE_HOME, else ~/.cache", () => {
    const snapshotCacheDir = (env: Record<string, string>, cwd: string) => cacheDir(env, cwd, "snapshots");
    assert.equal(
      snapshotCacheDir({ EVIDENT_CACHE_DIR: "/c/e", XDG_CACHE_HOME: "/x" }, "/w"),
      "/c/e/snapshots",
    );
    assert.equal(snapshotCacheDir({ EVIDENT_CACHE_DIR: "rel" }, "/w"), "/w/rel/snapshots");
    assert.equal(snapshotCacheDir({ XDG_CACHE_HOME: "/x", HOME: "/h" }, "/w"), "/x/evident/snapshots");
    assert.equal(
      snapshotCacheDir({ XDG_CACHE_HOME: "relative", HOME: "/h" }, "/w"),
      "/h/.cache/evident/snapshots",
    );
    assert.equal(
      snapshotCacheDir({ HOME: "/h", EVIDENT_CACHE_DIR: "" }, "/w"),
      "/h/.cache/evident/snapshots",
    );
  });

  it("G12: a tampered, truncated, swapped or garbage snapshot file is cursor_expired, never other evidence", async () => {
    const dir = freshDir();
    const store = onDisk(dir);
    const damage: Array<[string, (path: string, id: string, other: string) => Promise<void>]> = [
      [
        "a flipped payload byte",
        async (path) => {
          const bytes = await readFile(path);
          bytes[bytes.length - 3] = (bytes[bytes.length - 3] ?? 0) ^ 0x20;
          await writeFile(path, bytes);
        },
      ],
      ["truncation", async (path) => writeFile(path, (await readFile(path)).subarray(0, 20))],
      ["another snapshot's file", async (path, _id, other) => rename(join(dir, `${other}.kept`), path)],
      ["garbage", async (path) => writeFile(path, "not a snapshot")],
    ];
    for (const [what, corrupt] of damage) {
      const id = await store.put("a", snapshotData());
      const other = await store.put("a", snapshotData(7));
      const path = join(dir, `${id}.kept`);
      await corrupt(path, id, other);
      const fresh = onDisk(dir);
      const error = await errorOf(() => fresh.get("a", id));
      assert.equal(error.code, "cursor_expired", what);
      assert.match(error.message, /stored result for this cursor .*run the search again/, what);
      // The damaged file is gone; the id now reads as unknown.
      assert.equal(await errorCodeOf(() => fresh.get("a", id)), "cursor_not_found", what);
    }
  });

  it("a snapshot written under the other runtime (Node.js vs Bun) says so", async () => {
    const dir = freshDir();
    const store = onDisk(dir);
    const id = await store.put("a", snapshotData());
    const path = join(dir, `${id}.kept`);
    const bytes = await readFile(path);
    bytes[4] = bytes[4] === 0x4e ? 0x42 : 0x4e; // "N" <-> "B"
    await writeFile(path, bytes);
    const error = await errorOf(() => store.get("a", id));
    assert.equal(error.code, "cursor_expired");
    assert.match(error.message, /another JavaScript runtime/);
  });

  it("never follows a symlink inside the directory", async () => {
    const dir = freshDir();
    const store = onDisk(dir);
    const real = await store.put("a", snapshotData());
    const planted = "cd".repeat(16);
    await symlink(join(dir, `${real}.kept`), join(dir, `${planted}.kept`));
    const error = await errorOf(() => store.get("a", planted));
    assert.equal(error.code, "cursor_expired");
    assert.equal(await errorCodeOf(() => store.get("a", real)), "no error");
  });

  it("refuses a symlinked cache directory with configuration_error naming EVIDENT_CACHE_DIR", async () => {
    const parent = tempParent();
    const target = join(parent, "real");
    mkdirSync(target, { mode: 0o700 });
    const link = join(parent, "link");
    symlinkSync(target, link);
    const store = onDisk(link);
    const error = await errorOf(() => store.put("a", snapshotData()));
    assert.equal(error.code, "configuration_error");
    assert.match(error.message, /symbolic link/);
    assert.match(error.message, /EVIDENT_CACHE_DIR/);
    assert.equal(error.details.key, "EVIDENT_CACHE_DIR");
    // Cursor decoding needs the key from the same directory, so it is refused too.
    assert.equal(await errorCodeOf(() => store.decodeCursor("AAAA")), "configuration_error");
    assert.deepEqual(await readdir(target), []);
  });

  it("refuses a cache directory writable by others, or owned by another user", async () => {
    const open = join(tempParent(), "open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    const error = await errorOf(() => onDisk(open).put("a", snapshotData()));
    assert.equal(error.code, "configuration_error");
    assert.match(error.message, /writable by other users.*EVIDENT_CACHE_DIR/);
    if (process.getuid?.() === 0) {
      const foreign = join(tempParent(), "foreign");
      mkdirSync(foreign, { mode: 0o700 });
      chownSync(foreign, 65534, 65534);
      const refused = await errorOf(() => onDisk(foreign).put("a", snapshotData()));
      assert.equal(refused.code, "configuration_error");
      assert.match(refused.message, /not owned by the current user/);
    }
  });

  it("G12: a cursor of another directory's key (or of a memory store) is cursor_malformed", async () => {
    const store = onDisk(freshDir());
    const other = onDisk(freshDir());
    const id = await store.put("a", snapshotData());
    for (const foreign of [
      other.encodeCursor({ snapshotId: id, offset: 0, kind: "summary" }),
      memorySnapshotStore().encodeCursor({ snapshotId: id, offset: 0, kind: "summary" }),
    ]) {
      assert.equal(await errorCodeOf(() => store.decodeCursor(foreign)), "cursor_malformed");
    }
  });

  it("evicts the least recently used beyond the byte bound, counting the files, as cursor_expired", async () => {
    const probe = freshDir();
    const size = (await stat(join(probe, `${await onDisk(probe).put("a", snapshotData())}.kept`))).size;
    const dir = freshDir();
    let now = 1_000_000;
    // Four files fit, five do not.
    const bounds = { maxBytes: Math.floor(size * 4.5), now: () => now };
    const store = onDisk(dir, bounds);
    const first = await store.put("a", snapshotData());
    now += 10;
    const second = await store.put("a", snapshotData());
    for (let i = 0; i < 2; i++) {
      now += 10;
      await store.put("a", snapshotData());
    }
    now += 10;
    await store.get("a", first);
    now += 10;
    await store.put("a", snapshotData());
    const later = onDisk(dir, bounds);
    assert.equal(await errorCodeOf(() => later.get("a", second)), "cursor_expired");
    assert.equal(await errorCodeOf(() => later.get("a", first)), "no error");
  });

  it("removes timed-out snapshots on put, leaving tombstones so they read as expired", async () => {
    const dir = freshDir();
    let now = 1_000_000;
    const store = onDisk(dir, { ttlMs: 1000, now: () => now });
    const idle = await store.put("a", snapshotData());
    now += 5000;
    await store.put("a", snapshotData());
    const names = await readdir(dir);
    assert.ok(!names.includes(`${idle}.kept`));
    assert.ok(names.includes(`${idle}.gone`));
    assert.equal(await errorCodeOf(() => store.get("a", idle)), "cursor_expired");
  });

  it("bounds the number of tombstones", async () => {
    const dir = freshDir();
    const store = onDisk(dir, { maxTombstones: 3 });
    for (let i = 0; i < 6; i++) await store.release("a", await store.put("a", snapshotData()));
    await store.put("a", snapshotData());
    assert.equal((await readdir(dir)).filter((n) => n.endsWith(".gone")).length, 3);
  });

  it("processes racing to create the key all end up with the same one", async () => {
    const dir = freshDir();
    mkdirSync(dir, { mode: 0o700 });
    const contenders = Array.from({ length: 6 }, () =>
      spawn(process.execPath, [spawnedFixture("test/fixtures/key-race.ts"), dir], {
        cwd: ROOT,
        stdio: ["pipe", "pipe", "inherit"],
      }),
    );
    const outputs = contenders.map((child) => {
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      return { child, lines };
    });
    // A barrier: everyone has loaded before anyone touches the directory.
    for (const { lines } of outputs) assert.equal((await lines.next()).value, "ready");
    for (const { child } of outputs) child.stdin.write("go\n");
    const cursors: string[] = [];
    for (const { lines } of outputs) cursors.push((await lines.next()).value as string);
    assert.equal(new Set(cursors).size, 1, cursors.join("\n"));
    const state = onDisk(dir).decodeCursor(cursors[0] as string);
    assert.deepEqual(state, {
      snapshotId: "ab".repeat(16),
      offset: 7,
      kind: "summary",
      selection: undefined,
    });
    assert.deepEqual(await readdir(dir), ["cursor.key"]);
  });
});
