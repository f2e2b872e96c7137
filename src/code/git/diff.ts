/**
 * What changed between two sides, from Git's plumbing (`diff-index`, `diff-tree`: no index
 * refresh, so no index write and no hook), as one streamed `--patch-with-raw -z -U0` output
 * (or the raw part alone, when only changed files are wanted):
 * the raw part lists each changed file with its modes, object ids and status (NUL-framed, names
 * exact); the patch part gives each file's hunks. Only header lines of the patch are read:
 * content lines are skipped unbuffered however long they are. A raw entry without a patch
 * section did not change in content or mode (a file whose metadata alone differs from the
 * index): it is dropped. Renames are not detected, so a renamed file is a deletion and an
 * addition.
 */
import type { Readable } from "node:stream";
import { EvidentError } from "../../core/errors.js";
import { GIT_HEADER_LINE_MAX_BYTES } from "../../core/limits.js";
import type { ConsumeResult } from "../process/owned-process.js";
import { feed, type Git, gitFailure } from "./process.js";
import type { Repository } from "./repository.js";

/** Lines `[start, start + count)` of one side, 1-based; count 0 marks a position between lines. */
export interface Hunk {
  readonly oldStart: number;
  readonly oldCount: number;
  readonly newStart: number;
  readonly newCount: number;
}

export interface ChangedFile {
  /** Repository-relative path. */
  readonly path: string;
  /** The name was not valid UTF-8 (it cannot be shown or matched exactly). */
  readonly lossy: boolean;
  readonly status: string;
  readonly oldMode: string;
  readonly newMode: string;
  /** Object ids from the raw part; the new one is all zeros for working-tree content. */
  readonly oldId: string;
  readonly newId: string;
  /**
   * The new side's object id as the patch names it: for working-tree content, the id of the
   * bytes Git compared (used to check that what is searched is what was compared).
   */
  readonly patchNewId: string | undefined;
  readonly binary: boolean;
  readonly hunks: readonly Hunk[];
}

export type DiffSides =
  | { readonly kind: "worktree"; readonly base: string }
  | { readonly kind: "staged"; readonly base: string }
  | { readonly kind: "commits"; readonly base: string; readonly target: string };

const COMMON = [
  "-z",
  "--no-abbrev",
  "--no-renames",
  "--no-ext-diff",
  "--no-textconv",
  "--no-color",
  // A submodule whose recorded commit changed is listed (the caller names it as not covered);
  // edits inside one are not looked for: Git would run inside it, under its own configuration.
  "--ignore-submodules=dirty",
  "--src-prefix=a/",
  "--dst-prefix=b/",
];

/** With the patch (for changed lines), or the raw listing alone (for changed files: cheaper). */
const PATCH = ["--patch-with-raw", "--unified=0", "--full-index"];

export function diffArgs(sides: DiffSides, pathspecs: readonly string[], withPatch = true): string[] {
  const common = [...(withPatch ? PATCH : ["--raw"]), ...COMMON];
  const tail = ["--", ...pathspecs];
  switch (sides.kind) {
    case "worktree":
      return ["diff-index", ...common, sides.base, ...tail];
    case "staged":
      return ["diff-index", "--cached", ...common, sides.base, ...tail];
    case "commits":
      return ["diff-tree", "-r", ...common, sides.base, sides.target, ...tail];
  }
}

/**
 * The changed files, with their hunks when `withPatch`. Without the patch, working-tree entries
 * whose metadata alone differs are listed too (Git has not compared their content): the caller
 * compares content ids itself.
 */
export async function changedFiles(
  git: Git,
  repository: Repository,
  sides: DiffSides,
  pathspecs: readonly string[],
  withPatch: boolean,
  signal?: AbortSignal,
): Promise<ChangedFile[]> {
  const parser = new DiffParser(withPatch);
  const outcome = await git.stream(
    { cwd: repository.root, args: diffArgs(sides, pathspecs, withPatch), config: repository.config, signal },
    (stdout) => readDiff(stdout, parser),
  );
  if (outcome.exitCode !== 0) {
    throw gitFailure(sides.kind === "commits" ? "diff-tree" : "diff-index", outcome.stderr);
  }
  return parser.finish();
}

/** Feeds Git's output to `parser` until it ends; fails if it is destroyed first. */
export function readDiff(stdout: Readable, parser: DiffParser): Promise<ConsumeResult> {
  return feed(stdout, (chunk) => void parser.push(chunk));
}

interface RawEntry {
  readonly oldMode: string;
  readonly newMode: string;
  readonly oldId: string;
  readonly newId: string;
  readonly status: string;
  readonly path: string;
  readonly lossy: boolean;
}

interface Section {
  readonly path: string;
  patchNewId: string | undefined;
  binary: boolean;
  readonly hunks: Hunk[];
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const INDEX = /^index ([0-9a-f]+)\.\.([0-9a-f]+)/;

/** Parses the combined output incrementally; see the module comment for its shape. */
export class DiffParser {
  /** `withPatch` false: the output is the raw listing alone, every entry of it a change. */
  constructor(private readonly withPatch = true) {}

  readonly #raw: RawEntry[] = [];
  readonly #sections = new Map<string, Section>();
  #phase: "raw" | "patch" = "raw";
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** The meta part of a raw record whose path has not been read yet. */
  #meta: string | undefined;
  #section: Section | undefined;
  #inHunks = false;
  /** Inside a content line being skipped; `#lineStart` is true at the first byte of a line. */
  #skipping = false;
  #lineStart = true;

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.#phase === "raw") {
        if (this.#pendingBytes === 0 && this.#meta === undefined) {
          const first = chunk[at];
          if (first === 0) {
            at++;
            continue;
          }
          if (first !== 0x3a /* : */) {
            this.#phase = "patch";
            continue;
          }
        }
        const end = chunk.indexOf(0, at);
        if (end === -1) {
          this.#keep(chunk.subarray(at));
          return;
        }
        this.#rawToken(this.#take(chunk.subarray(at, end)));
        at = end + 1;
        continue;
      }
      if (this.#lineStart && this.#inHunks && this.#pendingBytes === 0) {
        const first = chunk[at];
        // Content lines (+, -, context, "\ No newline") are skipped, never buffered.
        this.#skipping = first === 0x2b || first === 0x2d || first === 0x20 || first === 0x5c;
      }
      const end = chunk.indexOf(0x0a, at);
      if (this.#skipping) {
        if (end === -1) {
          this.#lineStart = false;
          return;
        }
        at = end + 1;
        this.#skipping = false;
        this.#lineStart = true;
        continue;
      }
      if (end === -1) {
        this.#keep(chunk.subarray(at));
        this.#lineStart = false;
        return;
      }
      this.#header(this.#take(chunk.subarray(at, end)).toString("latin1"));
      at = end + 1;
      this.#lineStart = true;
    }
  }

  finish(): ChangedFile[] {
    if (this.#pendingBytes > 0 && this.#phase === "patch" && !this.#skipping) {
      this.#header(this.#take(Buffer.alloc(0)).toString("latin1"));
    }
    const files: ChangedFile[] = [];
    for (const entry of this.#raw) {
      const section = this.withPatch
        ? this.#sections.get(entry.path)
        : { path: entry.path, patchNewId: undefined, binary: false, hunks: [] };
      // No patch section: the content and mode are the same (only metadata differed).
      if (section === undefined) continue;
      files.push({
        path: entry.path,
        lossy: entry.lossy,
        status: entry.status,
        oldMode: entry.oldMode,
        newMode: entry.newMode,
        oldId: entry.oldId,
        newId: entry.newId,
        patchNewId: section.patchNewId,
        binary: section.binary,
        hunks: section.hunks,
      });
    }
    return files;
  }

  #keep(piece: Buffer): void {
    this.#pendingBytes += piece.length;
    if (this.#pendingBytes > GIT_HEADER_LINE_MAX_BYTES) {
      throw new EvidentError(
        "internal_error",
        `a line of Git's diff header exceeded ${GIT_HEADER_LINE_MAX_BYTES} bytes.`,
      );
    }
    // Copied: the stream may reuse its chunk.
    this.#pending.push(Buffer.from(piece));
  }

  #take(tail: Buffer): Buffer {
    if (this.#pendingBytes === 0) return tail;
    const whole = Buffer.concat([...this.#pending, tail]);
    this.#pending = [];
    this.#pendingBytes = 0;
    return whole;
  }

  #rawToken(token: Buffer): void {
    if (this.#meta === undefined) {
      this.#meta = token.toString("latin1");
      return;
    }
    const fields = this.#meta.slice(1).split(" ");
    this.#meta = undefined;
    const [oldMode = "", newMode = "", oldId = "", newId = "", status = ""] = fields;
    const path = token.toString("utf8");
    this.#raw.push({
      oldMode,
      newMode,
      oldId,
      newId,
      status: status.slice(0, 1),
      path,
      lossy: !Buffer.from(path, "utf8").equals(token),
    });
  }

  #header(line: string): void {
    if (line.startsWith("diff --git ")) {
      const path = headerPath(line.slice("diff --git ".length));
      // A type change comes as a deletion and an addition of the same path: one file.
      let section = this.#sections.get(path);
      if (section === undefined) {
        section = { path, patchNewId: undefined, binary: false, hunks: [] };
        this.#sections.set(path, section);
      }
      this.#section = section;
      this.#inHunks = false;
      return;
    }
    const section = this.#section;
    if (section === undefined) return;
    const hunk = HUNK.exec(line);
    if (hunk !== null) {
      section.hunks.push({
        oldStart: Number(hunk[1]),
        oldCount: hunk[2] === undefined ? 1 : Number(hunk[2]),
        newStart: Number(hunk[3]),
        newCount: hunk[4] === undefined ? 1 : Number(hunk[4]),
      });
      this.#inHunks = true;
      return;
    }
    const index = INDEX.exec(line);
    if (index !== null) {
      const id = index[2] as string;
      if (!/^0+$/.test(id)) section.patchNewId = id;
      return;
    }
    if (line.startsWith("Binary files ")) section.binary = true;
  }
}

/**
 * The path of a `diff --git a/P b/P` header (both sides name the same path: renames are off).
 * Quoted names are C-style quoted as Git writes them; others are split by length.
 */
function headerPath(rest: string): string {
  if (rest.startsWith('"')) {
    const [bytes] = unquote(rest);
    return stripPrefix(bytes.toString("utf8"));
  }
  // "a/" + P + " b/" + P: both halves have the same length.
  const length = (rest.length - 5) / 2;
  return Buffer.from(rest.slice(2, 2 + length), "latin1").toString("utf8");
}

function stripPrefix(name: string): string {
  return name.startsWith("a/") || name.startsWith("b/") ? name.slice(2) : name;
}

const ESCAPES: Readonly<Record<string, number>> = {
  a: 7,
  b: 8,
  t: 9,
  n: 10,
  v: 11,
  f: 12,
  r: 13,
  '"': 34,
  "\\": 92,
};

/** A C-style quoted string at the start of `text` (latin1, one character per byte): its bytes. */
function unquote(text: string): [Buffer, number] {
  const bytes: number[] = [];
  let i = 1;
  while (i < text.length && text[i] !== '"') {
    const c = text[i] as string;
    if (c !== "\\") {
      bytes.push(c.charCodeAt(0));
      i++;
      continue;
    }
    const next = text[i + 1] ?? "";
    if (/[0-7]/.test(next)) {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 4), 8));
      i += 4;
    } else {
      bytes.push(ESCAPES[next] ?? next.charCodeAt(0));
      i += 2;
    }
  }
  return [Buffer.from(bytes), i + 1];
}
