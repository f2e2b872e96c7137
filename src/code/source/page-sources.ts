/**
 * Current-file access while rendering a page. A retained file is `current` only when its
 * revision was trusted at search time and is unchanged now; context lines are read only from
 * such a file, and its revision is checked again after reading, so lines of another version
 * never sit next to the retained matching text.
 */
import { resolve } from "node:path";
import { CONTEXT_FILE_MAX_BYTES } from "../../core/limits.js";
import { type Revision, readRevisionSync, revisionSize, sameRevision } from "../revisions/scan.js";
import { readVersion } from "./document.js";

/** `unverified`: no trusted revision from the search; `changed`: edited since the search. */
export type FileStatus = "current" | "changed" | "unverified";

export class PageSources {
  readonly #status = new Map<string, Promise<FileStatus>>();
  readonly #lines = new Map<string, Promise<readonly string[] | undefined>>();

  /**
   * `justChecked`: the page is part of the answer to the search itself, whose re-check has just
   * observed every retained file; a trusted file was unchanged then, so its status needs no
   * second stat. Context lines are still checked again after they are read.
   */
  constructor(
    private readonly rgCwd: string,
    private readonly trusted: Readonly<Record<string, Revision>>,
    private readonly options: { readonly justChecked?: boolean } = {},
  ) {}

  status(key: string): Promise<FileStatus> {
    let status = this.#status.get(key);
    if (status === undefined) {
      status = Promise.resolve(this.#check(key));
      this.#status.set(key, status);
    }
    return status;
  }

  /** The file's lines (terminators removed), or undefined when they cannot be trusted. */
  lines(key: string): Promise<readonly string[] | undefined> {
    let lines = this.#lines.get(key);
    if (lines === undefined) {
      lines = this.#read(key);
      this.#lines.set(key, lines);
    }
    return lines;
  }

  // Synchronous on purpose: a page checks its files one after another, and a thread-pool stat
  // per file (a round trip each) was most of the cost of rendering a small page.
  #check(key: string): FileStatus {
    const before: Revision | undefined = Object.hasOwn(this.trusted, key) ? this.trusted[key] : undefined;
    if (before === undefined) return "unverified";
    if (this.options.justChecked === true) return "current";
    return sameRevision(before, readRevisionSync(resolve(this.rgCwd, key))) ? "current" : "changed";
  }

  async #read(key: string): Promise<readonly string[] | undefined> {
    if ((await this.status(key)) !== "current") return undefined;
    const revision = this.trusted[key];
    if (revision === undefined || BigInt(revisionSize(revision)) > BigInt(CONTEXT_FILE_MAX_BYTES))
      return undefined;
    const bytes = await readVersion(resolve(this.rgCwd, key), revision);
    if (!Buffer.isBuffer(bytes)) {
      // Changed since it was checked, or while it was read: its lines are not the searched version.
      if (bytes.reason === "changed") this.#status.set(key, Promise.resolve("changed"));
      return undefined;
    }
    const lines = bytes.toString("utf8").split("\n");
    // A final terminator ends the last line; it does not start another.
    if (lines[lines.length - 1] === "") lines.pop();
    return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  }
}
