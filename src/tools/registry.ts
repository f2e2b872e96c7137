/**
 * The registry: the one place where a call becomes a result. Every adapter lists tools and calls
 * them through it, so validation, error mapping and result shape cannot differ by surface.
 */
import { randomUUID } from "node:crypto";
import { abortReason } from "../core/abort.js";
import { EvidentError } from "../core/errors.js";
import { silentLogger, withFields } from "../core/logger.js";
import { Metrics } from "../core/metrics.js";
import { type Phrasing, phrasingFor } from "../core/phrasing.js";
import { failure, type ToolResult } from "../core/result.js";
import { traceFields } from "../core/trace.js";
import { publishedInputSchema, publishedOutputSchema } from "./published-schema.js";
import type { ToolContext, ToolDefinition } from "./tool.js";
import { parseArguments, unknownToolMessage } from "./validation.js";

/** What `tools/list` advertises for one tool, derived once from its definition. */
export interface ToolListing {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema: Record<string, unknown>;
  readonly annotations: ToolDefinition["annotations"];
}

export class ToolRegistry {
  readonly #tools = new Map<string, ToolDefinition>();
  #listings: ToolListing[] | undefined;
  #closing: Promise<void> | undefined;
  readonly #phrasing: Phrasing;
  /** What every call through this registry is counted in (`/metrics` on HTTP). */
  readonly metrics: Metrics;

  /**
   * `phrasing`: the surface's wording of the advice the registry itself gives (internal errors);
   * its surface labels the calls counted in `metrics`.
   */
  constructor(phrasing: Phrasing = phrasingFor("mcp"), metrics: Metrics = new Metrics()) {
    this.#phrasing = phrasing;
    this.metrics = metrics;
  }

  register<T extends ToolDefinition>(definition: T): this {
    if (this.#tools.has(definition.name)) throw new Error(`tool ${definition.name} registered twice`);
    this.#tools.set(definition.name, definition as unknown as ToolDefinition);
    this.#listings = undefined;
    return this;
  }

  get(name: string): ToolDefinition | undefined {
    return this.#tools.get(name);
  }

  names(): string[] {
    return [...this.#tools.keys()];
  }

  list(): readonly ToolListing[] {
    this.#listings ??= [...this.#tools.values()].map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: publishedInputSchema(tool.inputSchema),
      outputSchema: publishedOutputSchema(tool.outputSchema),
      annotations: tool.annotations,
    }));
    return this.#listings;
  }

  /**
   * Validates and runs one call. Never throws for anything the agent or a provider did: every
   * failure becomes an error result with a stable code. An unknown tool name is the caller's
   * bug, reported as `invalid_arguments`.
   */
  async call(
    name: string,
    rawArguments: unknown,
    context: Partial<ToolContext> = {},
  ): Promise<ToolResult<unknown>> {
    const started = performance.now();
    const requestId = context.requestId ?? randomUUID();
    const logger = withFields(context.logger ?? silentLogger, { requestId, ...traceFields(context.trace) });
    const result = await this.#run(name, rawArguments, { ...context, requestId, logger });
    // Counted here, the one path every surface's calls take; an unknown name is one label, so a
    // caller cannot grow the series.
    const tool = this.#tools.has(name) ? name : "unknown";
    const outcome = result.isError ? result.error.code : "ok";
    const seconds = (performance.now() - started) / 1000;
    this.metrics.toolCalls.inc({ tool, surface: this.#phrasing.surface, outcome });
    this.metrics.toolDuration.observe({ tool }, seconds);
    logger.info("tool call", { tool, outcome, durationMs: Math.round(seconds * 1000) });
    return result;
  }

  async #run(
    name: string,
    rawArguments: unknown,
    context: Partial<ToolContext>,
  ): Promise<ToolResult<unknown>> {
    // A closed registry runs nothing: a late call would start what nothing closes again.
    if (this.#closing !== undefined) {
      return failure(new EvidentError("cancelled", "This evident instance is closed: create a new one."));
    }
    const tool = this.#tools.get(name);
    if (tool === undefined) {
      return failure(
        new EvidentError("invalid_arguments", unknownToolMessage(name, this.names()), {
          details: { field: "name" },
        }),
      );
    }
    const full: ToolContext = {
      signal: context.signal ?? new AbortController().signal,
      progress: context.progress ?? (() => {}),
      logger: context.logger ?? silentLogger,
      caller: context.caller ?? "anonymous",
      ...(context.contextUsage === undefined ? {} : { contextUsage: context.contextUsage }),
      ...(context.clientRoots === undefined ? {} : { clientRoots: context.clientRoots }),
      ...(context.requestId === undefined ? {} : { requestId: context.requestId }),
      ...(context.trace === undefined ? {} : { trace: context.trace }),
    };
    try {
      const input = parseArguments(tool.inputSchema, rawArguments);
      if (full.signal.aborted) throw abortReason(full.signal);
      return await tool.handler(input, full);
    } catch (thrown) {
      const result = failure(thrown, this.#phrasing.internalError());
      if (result.error.code === "internal_error") {
        // The agent reads a fixed or short message; the operator's log gets what caused it.
        full.logger.error(`tool ${name} failed`, {
          code: result.error.code,
          message: result.error.message,
          cause: describeCause(result.error.cause),
        });
      }
      return result;
    }
  }

  /** Closes every tool once; concurrent calls await the same teardown. */
  close(): Promise<void> {
    this.#closing ??= Promise.allSettled([...this.#tools.values()].map((tool) => tool.close?.())).then(
      () => undefined,
    );
    return this.#closing;
  }
}

function describeCause(cause: unknown): unknown {
  if (cause instanceof Error) return { name: cause.name, message: cause.message, stack: cause.stack };
  return cause;
}
