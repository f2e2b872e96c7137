/**
 * How a result is written as parts in the shared store (a `KeptCodec`): one header (the per-file
 * index and everything but the matching lines) and the matches in blocks of
 * SNAPSHOT_BLOCK_MATCHES, each compressed, so a page reads the header and only the blocks it
 * shows. A raw table's block keeps ripgrep's own event lines (decoded by the same decoder as in
 * memory when a page shows them); a parsed table's block keeps its matches as JSON lines. Paths
 * are written once, in the header. The store seals every part under a MAC bound to its id and name.
 */
import { promisify } from "node:util";
import { deflateRaw, inflateRawSync } from "node:zlib";
import type { KeptErrors } from "../../core/kept.js";
import { SNAPSHOT_BLOCK_MATCHES } from "../../core/limits.js";
import type { KeptCodec } from "../../core/redis/kept-store.js";
import type { SearchQuery } from "../request.js";
import { type Revision, revisionOf, revisionParts } from "../revisions/scan.js";
import { eventOf } from "../rg/compact.js";
import type { PartialReason } from "../rg/content-search.js";
import type { ParsedMatch } from "../rg/events.js";
import {
  decodeEvent,
  type MatchSource,
  type MatchTable,
  type PagedMatchTable,
  runIndex,
} from "../rg/match-table.js";
import { type AnalysisData, type ChangesSummary, isAnalysisData } from "./analysis.js";
import { displayPath } from "./sequence.js";
import { isAnalysis, type SnapshotFile, type StoredResult, type StructureSnapshot } from "./store.js";

const deflate = promisify(deflateRaw);
const VERSION = 1;

const HEADER_FIELD = "h";
const blockField = (block: number) => `b${block}`;

/** Block contents: ripgrep event lines, or JSON-encoded ParsedMatch lines. */
type BlockForm = "events" | "json";

/** The header as stored (JSON): paths once, everything else by index into them. */
interface StoredHeader {
  readonly v: number;
  readonly query: SearchQuery;
  readonly requestedRoot: string;
  readonly effectiveRoot: string;
  readonly expanded: boolean;
  readonly rgCwd: string;
  readonly totalOccurrences: number;
  readonly partialReason: PartialReason | null;
  /** Absent from headers written before it existed. */
  readonly longLineFile?: string | null;
  readonly searchErrors: number;
  readonly bytes: number;
  /** Written by earlier versions (whether the last page released the snapshot); not read. */
  readonly reusable?: boolean;
  readonly length: number;
  readonly form: BlockForm;
  readonly blockMatches: number;
  readonly paths: string[];
  /** Ranked files: [path index, matches, occurrences]. */
  readonly files: [number, number, number][];
  /** File runs in position order: [path index, number of matches]. */
  readonly runs: [number, number][];
  /** Trusted revisions: [path index, size, mtimeNs, ctimeNs, ino, dev]. */
  readonly trusted: [number, string, string, string, string, string][];
  /** The Git comparison a search was scoped to (code/changes/). */
  readonly changes?: ChangesSummary | null;
  /** A structure search's pattern, nodes (by position) and coverage. */
  readonly structure?: StructureSnapshot;
}

/** An analysis result (snapshots/analysis.ts) is stored whole, as its header. */
interface StoredAnalysis {
  readonly v: number;
  readonly analysis: AnalysisData;
}

/** code_search's results as parts: a header, and blocks of matches read a page at a time. */
export const snapshotCodec: KeptCodec<StoredResult> = {
  encode: encodeSnapshot,
  decode: decodeHeader,
};

async function encodeSnapshot(data: StoredResult): Promise<Array<[string, Buffer]>> {
  if (isAnalysis(data)) {
    // Items are read a page at a time but are small; the whole result is one compressed value.
    const stored: StoredAnalysis = { v: VERSION, analysis: data };
    return [[HEADER_FIELD, await deflate(Buffer.from(JSON.stringify(stored)))]];
  }
  const table = data.matches;
  if (table.kind === "paged") throw new Error("a paged snapshot is stored already");
  const paths: string[] = [];
  const pathIndex = new Map<string, number>();
  const indexOf = (path: string) => {
    let index = pathIndex.get(path);
    if (index === undefined) {
      index = paths.length;
      paths.push(path);
      pathIndex.set(path, index);
    }
    return index;
  };
  const runs = runsOf(table).map(([path, count]): [number, number] => [indexOf(path), count]);
  const header: StoredHeader = {
    v: VERSION,
    query: data.query,
    requestedRoot: data.requestedRoot,
    effectiveRoot: data.effectiveRoot,
    expanded: data.expanded,
    rgCwd: data.rgCwd,
    totalOccurrences: data.totalOccurrences,
    partialReason: data.partialReason ?? null,
    longLineFile: data.longLineFile ?? null,
    searchErrors: data.searchErrors,
    bytes: data.bytes,
    length: table.length,
    form: table.kind === "parsed" ? "json" : "events",
    blockMatches: SNAPSHOT_BLOCK_MATCHES,
    paths,
    files: data.files.map((f) => [indexOf(f.key), f.matches, f.occurrences]),
    runs,
    trusted: Object.entries(data.trustedRevisions).map(([path, r]) => {
      const { size, mtimeNs, ctimeNs, ino, dev } = revisionParts(r);
      return [indexOf(path), size, mtimeNs, ctimeNs, ino, dev];
    }),
    changes: data.changes ?? null,
    ...(data.structure === undefined ? {} : { structure: data.structure }),
  };
  const plain: Array<[string, Buffer]> = [[HEADER_FIELD, Buffer.from(JSON.stringify(header))]];
  for (let block = 0; block * SNAPSHOT_BLOCK_MATCHES < table.length; block++) {
    const from = block * SNAPSHOT_BLOCK_MATCHES;
    const to = Math.min(table.length, from + SNAPSHOT_BLOCK_MATCHES);
    plain.push([blockField(block), blockBytes(table, from, to)]);
  }
  // Compressed on the thread pool, all blocks at once: a large snapshot does not stall the loop.
  const packed = await Promise.all(plain.map(([, bytes]) => deflate(bytes)));
  return plain.map(([field], i) => [field, packed[i] as Buffer]);
}

/** The header read back, as a snapshot whose matches come from `source` block by block. */
function decodeHeader(
  payload: Buffer,
  readBlocks: (fields: string[]) => Promise<Buffer[]>,
  errors: KeptErrors,
): StoredResult | undefined {
  let header: StoredHeader | StoredAnalysis;
  try {
    header = JSON.parse(inflateRawSync(payload).toString("utf8")) as StoredHeader | StoredAnalysis;
  } catch {
    return undefined;
  }
  if (header.v !== VERSION) return undefined;
  if ("analysis" in header) return isAnalysisData(header.analysis) ? header.analysis : undefined;
  const { paths } = header;
  const path = (index: number) => paths[index] as string;
  const runStarts = new Uint32Array(header.runs.length);
  let position = 0;
  header.runs.forEach(([, count], i) => {
    runStarts[i] = position;
    position += count;
  });
  const trustedRevisions: Record<string, Revision> = {};
  for (const [index, size, mtimeNs, ctimeNs, ino, dev] of header.trusted) {
    const revision = revisionOf({ size, mtimeNs, ctimeNs, ino, dev });
    if (revision !== undefined) trustedRevisions[path(index)] = revision;
  }
  const files: SnapshotFile[] = header.files.map(([index, matches, occurrences]) => ({
    path: displayPath(path(index)),
    key: path(index),
    matches,
    occurrences,
  }));
  const matches: PagedMatchTable = {
    kind: "paged",
    length: header.length,
    runStarts,
    runKeys: header.runs.map(([index]) => path(index)),
    source: new StoredBlocks(header.form, header.blockMatches, readBlocks, errors),
  };
  return {
    query: header.query,
    requestedRoot: header.requestedRoot,
    effectiveRoot: header.effectiveRoot,
    expanded: header.expanded,
    rgCwd: header.rgCwd,
    matches,
    files,
    totalOccurrences: header.totalOccurrences,
    trustedRevisions,
    partialReason: header.partialReason ?? undefined,
    ...(typeof header.longLineFile === "string" ? { longLineFile: header.longLineFile } : {}),
    searchErrors: header.searchErrors,
    bytes: header.bytes,
    changes: header.changes ?? undefined,
    ...(header.structure === undefined ? {} : { structure: header.structure }),
  };
}

interface Block {
  readonly bytes: Buffer;
  /** Line boundaries within `bytes`: line i is [starts[i], starts[i + 1] - 1). */
  readonly starts: Uint32Array;
}

/** The matches of a stored snapshot, fetched a block at a time and kept for this page. */
class StoredBlocks implements MatchSource {
  readonly #blocks = new Map<number, Block>();

  constructor(
    private readonly form: BlockForm,
    private readonly blockMatches: number,
    private readonly read: (fields: string[]) => Promise<Buffer[]>,
    private readonly errors: KeptErrors,
  ) {}

  async load(positions: Iterable<number>): Promise<void> {
    const wanted = new Set<number>();
    for (const position of positions) {
      const block = Math.floor(position / this.blockMatches);
      if (!this.#blocks.has(block)) wanted.add(block);
    }
    if (wanted.size === 0) return;
    const numbers = [...wanted].sort((a, b) => a - b);
    const values = await this.read(numbers.map(blockField));
    numbers.forEach((block, i) => {
      let bytes: Buffer;
      try {
        bytes = inflateRawSync(values[i] as Buffer);
      } catch {
        throw this.errors.damaged("failed its integrity check");
      }
      this.#blocks.set(block, { bytes, starts: lineStarts(bytes) });
    });
  }

  at(position: number): ParsedMatch | undefined {
    const block = this.#blocks.get(Math.floor(position / this.blockMatches));
    if (block === undefined) return undefined;
    const line = position % this.blockMatches;
    if (line + 1 >= block.starts.length) return undefined;
    const start = block.starts[line] as number;
    const end = (block.starts[line + 1] as number) - 1;
    if (this.form === "events") return decodeEvent(block.bytes, start, end);
    return JSON.parse(block.bytes.toString("utf8", start, end)) as ParsedMatch;
  }
}

/** Offsets where each LF-terminated line starts, plus the end of the last one. */
function lineStarts(bytes: Buffer): Uint32Array {
  const starts = [0];
  for (let at = bytes.indexOf("\n"); at !== -1; at = bytes.indexOf("\n", at + 1)) starts.push(at + 1);
  return Uint32Array.from(starts);
}

/** One block's lines: each match's protocol event (raw) or JSON (parsed), LF-terminated. */
function blockBytes(table: Exclude<MatchTable, PagedMatchTable>, from: number, to: number): Buffer {
  const parts: Uint8Array[] = [];
  const newline = Buffer.from("\n");
  for (let position = from; position < to; position++) {
    if (table.kind === "raw") {
      const chunk = table.chunks[table.chunkOf[position] as number] as Uint8Array;
      parts.push(chunk.subarray(table.starts[position] as number, table.ends[position] as number), newline);
    } else if (table.kind === "compact") {
      // Stored as the event it stands for, so every replica reads one form.
      parts.push(Buffer.from(eventOf(table, position, runIndex(table, position))), newline);
    } else {
      parts.push(Buffer.from(JSON.stringify(table.list[position])), newline);
    }
  }
  return Buffer.concat(parts);
}

/** File runs in position order: [path, number of matches]. */
function runsOf(table: Exclude<MatchTable, PagedMatchTable>): Array<[string, number]> {
  if (table.kind !== "parsed") {
    return table.runKeys.map((key, i) => {
      const end = i + 1 < table.runStarts.length ? (table.runStarts[i + 1] as number) : table.length;
      return [key, end - (table.runStarts[i] as number)];
    });
  }
  const runs: Array<[string, number]> = [];
  for (const match of table.list) {
    const last = runs[runs.length - 1];
    if (last !== undefined && last[0] === match.path) last[1]++;
    else runs.push([match.path, 1]);
  }
  return runs;
}
