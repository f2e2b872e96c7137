/**
 * What a tool is: one definition that every surface (MCP stdio, MCP HTTP, CLI, SDK, Pi) serves
 * unchanged. The input schema is the only validation; the handler receives parsed input.
 */
import type { z } from "zod";
import type { Settings } from "../config/settings.js";
import type { ContextUsage, ProgressUpdate } from "../core/context.js";
import type { Logger } from "../core/logger.js";
import type { Metrics } from "../core/metrics.js";
import type { Surface } from "../core/phrasing.js";
import type { ToolSuccess } from "../core/result.js";
import type { TraceContext } from "../core/trace.js";
import type { RootSetting } from "./project-root.js";

export type { ContextUsage, ProgressUpdate } from "../core/context.js";

export interface ToolContext {
  /** Aborts when the caller cancels or its transport goes away. */
  readonly signal: AbortSignal;
  /** Reports progress of long work; surfaces without a progress channel ignore it. */
  readonly progress: (update: ProgressUpdate) => void;
  readonly logger: Logger;
  /**
   * Who is calling, as an opaque key: state a tool keeps between calls (code_search cursors) is
   * bound to it, so one caller can never continue another's results.
   */
  readonly caller: string;
  readonly contextUsage?: ContextUsage;
  /** The client's root directories (MCP roots), when it offers them; code_search searches the first. */
  readonly clientRoots?: readonly string[];
  /**
   * The id the call's log lines carry: the HTTP request's, else one the registry draws. Handlers
   * receive a `logger` that adds it already.
   */
  readonly requestId?: string;
  /** The caller's W3C trace context, passed on to web providers' requests. */
  readonly trace?: TraceContext;
}

export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly openWorldHint: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
}

export interface ToolDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly title: string;
  /** Written for a model: what the tool does and when to use which option. */
  readonly description: string;
  /** Strict: unknown fields are rejected. */
  readonly inputSchema: I;
  readonly outputSchema: O;
  readonly annotations: ToolAnnotations;
  readonly handler: (input: z.output<I>, context: ToolContext) => Promise<ToolSuccess<z.output<O>>>;
  /** Releases what the tool holds (processes, connections, snapshots). */
  readonly close?: () => Promise<void>;
}

/** Helps TypeScript keep each tool's own input and output types while storing them together. */
export function defineTool<I extends z.ZodType, O extends z.ZodType>(
  definition: ToolDefinition<I, O>,
): ToolDefinition<I, O> {
  return definition;
}

/**
 * What a tool factory receives when the product registry is built: the working directory
 * (code_search's default root), the settings (credentials, overrides) and the logger.
 * Factories stay cheap: heavy modules load on the first call, not at registration.
 */
export interface ToolEnvironment {
  readonly cwd: string;
  /**
   * Who shows the tools' text (default "mcp"): advice in answers and errors is worded for it
   * (core/phrasing.ts), `evident grep --cursor C` on the CLI where MCP reads a JSON call.
   */
  readonly surface?: Surface;
  /** The operator's settings, resolved once by the adapter from its environment (config/). */
  readonly settings: Settings;
  readonly logger: Logger;
  /**
   * Where state kept between calls (code_search snapshots behind cursors) lives. "memory"
   * (the default) suits surfaces that outlive one call: MCP connections, HTTP servers, SDK
   * instances. One-shot surfaces, whose process ends after each call (the `evident grep`
   * command), ask for "persistent" so the next process can continue a cursor: snapshots then
   * live in a private cache directory (`EVIDENT_CACHE_DIR`).
   */
  readonly snapshots?: "memory" | "persistent";
  /**
   * The project root code_search searches, as the surface resolved it (tools/project-root.ts),
   * or why there is none. Default: `cwd`, which the host states (Pi, the SDK, a shell).
   */
  readonly root?: RootSetting;
  /**
   * The surface serves remote callers (MCP over HTTP): code_search searches only inside the
   * project root, refusing absolute or `..` targets outside it, and ignores client roots.
   * Local surfaces (stdio, the CLI, the SDK, Pi) may name targets outside the root.
   */
  readonly confined?: boolean;
  /**
   * Where calls, provider attempts and kept bytes are counted (`/metrics` on HTTP). The product
   * registry makes one when none is given; every tool of a registry counts into the same one.
   */
  readonly metrics?: Metrics;
}
