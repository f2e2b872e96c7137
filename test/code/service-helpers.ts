/** Builds a real CodeSearchService over a temp tree and walks its cursors. */

import type { CodeSearchInput } from "../../src/code/schema.js";
import {
  type CallContext,
  type CodeSearchResponse,
  CodeSearchService,
  type CodeSearchServiceOptions,
} from "../../src/code/service.js";
import { EvidentError } from "../../src/core/errors.js";
import { silentLogger } from "../../src/core/logger.js";

export function makeService(cwd: string, extra: Partial<CodeSearchServiceOptions> = {}): CodeSearchService {
  return new CodeSearchService({ cwd, env: { PATH: process.env.PATH }, logger: silentLogger, ...extra });
}

export function ctx(caller = "caller-1", extra: Partial<CallContext> = {}): CallContext {
  return { caller, signal: new AbortController().signal, ...extra };
}

export async function errorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "no error";
  } catch (error) {
    if (error instanceof EvidentError) return error.code;
    throw error;
  }
}

/** Follows match cursors from `first` to the end and returns every shown index in order. */
export async function walk(
  service: CodeSearchService,
  first: CodeSearchResponse,
  input: Partial<CodeSearchInput> = {},
  caller = "caller-1",
): Promise<number[]> {
  const indices = (first.data.matches ?? []).map((m) => m.index);
  let current = first;
  let guard = 0;
  while (current.data.cursorKind === "matches" && current.data.cursor !== undefined) {
    current = await service.run({ cursor: current.data.cursor, ...input }, ctx(caller));
    indices.push(...(current.data.matches ?? []).map((m) => m.index));
    if (++guard > 10_000) throw new Error("cursor walk does not end");
  }
  return indices;
}
