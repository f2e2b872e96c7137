/**
 * `createMcpProvider`: an upstream MCP server as a `web_search` / `web_read` provider, through the
 * operator's binding (or a preset). This file only translates: our request into the bound tool's
 * arguments, its result into native content, rows and validated metadata. Routing, fallback,
 * budgets and the forwarded-focus warning belong to the router.
 */

import { abortReason, withDeadline } from "../../../core/abort.js";
import { EvidentError } from "../../../core/errors.js";
import { PROVIDER_ATTEMPT_DEADLINE_MS } from "../../../core/limits.js";
import { type Logger, silentLogger } from "../../../core/logger.js";
import { traceHeaders } from "../../../core/trace.js";
import {
  type Provider,
  type ProviderContext,
  ProviderError,
  type ProviderReadOutcome,
  type ProviderReadRequest,
  type ProviderSearchOutcome,
  type ProviderSearchRequest,
} from "../../provider.js";
import { bindingUses, mapArguments } from "./arguments.js";
import type { McpConnection, McpProviderConfig, OutputFormat, ToolBinding } from "./binding.js";
import { UpstreamConnection } from "./connection.js";
import {
  firecrawlMetadata,
  firecrawlTitle,
  nativeContent,
  type ToolResultLike,
  upstreamErrorReason,
} from "./output.js";
import { MCP_PRESETS } from "./presets.js";
import { parseSearch, yamlScalars } from "./rows.js";

export interface McpProviderDeps {
  /**
   * The caller's environment as config/ handed it over: a stdio upstream inherits its proxies,
   * and credential references (`{"env": "NAME"}`) resolve in it at connect time. Default: none.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly logger?: Logger;
  /** The identity evident gives upstream servers in `initialize`. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
}

/** A Provider that owns an upstream connection, with a few read-only facts for diagnostics. */
export interface McpProvider extends Provider {
  readonly adapter: "mcp";
  close(): Promise<void>;
  /** The stdio child's pid while connected, else null. */
  readonly upstreamPid: number | null;
  /** Connects started so far (lazy: 0 until the first call). */
  readonly connectCount: number;
}

interface ResolvedBinding {
  readonly connection: McpConnection;
  readonly search?: ToolBinding;
  readonly read?: ToolBinding;
  readonly anonymous: boolean;
  readonly attemptDeadlineMs?: number;
}

/** Preset values, overridden key by key (each key replaced whole) by the entry's own. */
export function resolveBinding(id: string, config: McpProviderConfig): ResolvedBinding {
  const preset = config.preset === undefined ? undefined : MCP_PRESETS[config.preset];
  const connection = config.connection ?? preset?.connection;
  if (connection === undefined) {
    throw new EvidentError("configuration_error", `Provider ${id} (mcp) needs a connection or a preset.`, {
      details: { provider: id, field: "connection" },
    });
  }
  const search = config.search ?? preset?.search;
  const read = config.read ?? preset?.read;
  if (search === undefined && read === undefined) {
    throw new EvidentError("configuration_error", `Provider ${id} (mcp) binds neither search nor read.`, {
      details: { provider: id, field: "search" },
    });
  }
  return {
    connection,
    ...(search === undefined ? {} : { search }),
    ...(read === undefined ? {} : { read }),
    anonymous: config.anonymous ?? preset?.anonymous ?? false,
    ...(config.attemptDeadlineMs === undefined ? {} : { attemptDeadlineMs: config.attemptDeadlineMs }),
  };
}

export function createMcpProvider(
  id: string,
  config: McpProviderConfig,
  deps: McpProviderDeps = {},
): McpProvider {
  const binding = resolveBinding(id, config);
  const deadlineMs = binding.attemptDeadlineMs ?? PROVIDER_ATTEMPT_DEADLINE_MS;
  const upstream = new UpstreamConnection({
    providerId: id,
    connection: binding.connection,
    env: deps.env ?? {},
    logger: deps.logger ?? silentLogger,
    requestTimeoutMs: deadlineMs,
    clientInfo: deps.clientInfo ?? { name: "evident", version: "0.1.0" },
  });
  const focus = bindingUses(binding.read, "$focus");
  const call = boundCall(id, upstream, deadlineMs);
  return {
    id,
    adapter: "mcp",
    anonymous: binding.anonymous,
    capabilities: { search: binding.search !== undefined, read: binding.read !== undefined, focus },
    ...(binding.attemptDeadlineMs === undefined ? {} : { attemptDeadlineMs: binding.attemptDeadlineMs }),
    get upstreamPid() {
      return upstream.pid;
    },
    get connectCount() {
      return upstream.connectCount;
    },
    close: () => upstream.close(),
    ...(binding.search === undefined ? {} : { search: searchThrough(id, binding.search, call) }),
    ...(binding.read === undefined ? {} : { read: readThrough(id, binding.read, focus, call) }),
  };
}

/** Calls one bound tool of the upstream. */
type BoundCall = (
  tool: string,
  args: Record<string, unknown>,
  context: ProviderContext,
) => Promise<ToolResultLike>;

/** One bound tool call within this provider's attempt deadline, connection included. */
function boundCall(id: string, upstream: UpstreamConnection, deadlineMs: number): BoundCall {
  return async (tool, args, context) => {
    const deadline = withDeadline(context.signal, deadlineMs, `${id} attempt`);
    try {
      // The 2026-07-28 revision reserves `_meta.traceparent` and `tracestate` for W3C trace context.
      const meta = context.trace === undefined ? undefined : traceHeaders(context.trace);
      const result = await upstream.callTool(tool, args, deadline.signal, context.http, meta);
      if (result.isError === true) {
        throw new ProviderError(id, "upstream", upstreamErrorReason(id, tool, result));
      }
      return result;
    } catch (thrown) {
      throw attemptError(id, thrown, context.signal, deadline.signal);
    } finally {
      deadline.dispose();
    }
  };
}

function searchThrough(id: string, search: ToolBinding, call: BoundCall): NonNullable<Provider["search"]> {
  return async (request: ProviderSearchRequest, context): Promise<ProviderSearchOutcome> => {
    const args = mapArguments(search, {
      query: request.query,
      maxResults: request.maxResults,
      ...(request.timeRange === undefined ? {} : { timeRange: request.timeRange }),
    });
    const result = await call(search.tool, args, context);
    return searchOutcome(id, search, request, result);
  };
}

function readThrough(
  id: string,
  read: ToolBinding,
  focus: boolean,
  call: BoundCall,
): NonNullable<Provider["read"]> {
  return async (request: ProviderReadRequest, context): Promise<ProviderReadOutcome> => {
    // The binding check comes before any connection or call: no mapping, no call.
    if (request.focus !== undefined && !focus) {
      throw new EvidentError(
        "focus_unsupported",
        `Provider ${id} cannot apply a focus: its binding maps no $focus argument. Read without focus or choose another reader.`,
        { details: { provider: id } },
      );
    }
    const args = mapArguments(read, {
      url: request.url,
      ...(request.focus === undefined ? {} : { focus: request.focus }),
    });
    const result = await call(read.tool, args, context);
    return readOutcome(id, read.format ?? "none", result);
  };
}

function searchOutcome(
  id: string,
  binding: ToolBinding,
  request: ProviderSearchRequest,
  result: ToolResultLike,
): ProviderSearchOutcome {
  const native = nativeContent(result);
  const parsed = parseSearch(binding.format ?? "none", result);
  const warnings: string[] = [];
  if (request.timeRange !== undefined && !bindingUses(binding, "$timeRange")) {
    warnings.push(`${id} cannot filter by time; timeRange "${request.timeRange}" was not applied`);
  }
  if (native.skipped > 0)
    warnings.push(`${id} returned ${native.skipped} non-text block(s) that were left out`);
  let answer = parsed.answer;
  if (parsed.rows.length === 0 && answer === undefined) {
    // No documented row layout matched: the upstream's own text is still what it said.
    const text = native.parts
      .map((part) => (part.type === "text" ? part.text : JSON.stringify(part.value)))
      .join("\n\n")
      .trim();
    if (text.length > 0) answer = text;
  }
  return {
    ...(answer === undefined ? {} : { answer }),
    results: parsed.rows.slice(0, request.maxResults),
    ...(warnings.length === 0 ? {} : { warnings }),
  };
}

function readOutcome(id: string, format: OutputFormat, result: ToolResultLike): ProviderReadOutcome {
  const native = nativeContent(result);
  const hasText = native.parts.some((part) => part.type === "json" || part.text.trim().length > 0);
  if (!hasText) {
    throw new ProviderError(id, "upstream", `${id} returned no content for the page`);
  }
  const metadata = format === "firecrawl" ? firecrawlMetadata(result) : undefined;
  const title = readTitle(format, result, native.parts);
  const warnings =
    native.skipped > 0 ? [`${id} returned ${native.skipped} non-text block(s) that were left out`] : [];
  return {
    ...(title === undefined ? {} : { title }),
    content: native.parts,
    ...(native.links.length === 0 ? {} : { links: native.links }),
    ...(metadata === undefined ? {} : { metadata }),
    ...(warnings.length === 0 ? {} : { warnings }),
  };
}

function readTitle(
  format: OutputFormat,
  result: ToolResultLike,
  parts: readonly { type: string; text?: string }[],
): string | undefined {
  const first = parts.find((part) => part.type === "text")?.text;
  switch (format) {
    case "firecrawl":
      return firecrawlTitle(result);
    case "jina":
      return first === undefined ? undefined : yamlScalars(first).title?.trim() || undefined;
    case "exa": {
      const heading = first === undefined ? undefined : /^# (.+)$/m.exec(first)?.[1]?.trim();
      return heading && heading !== "(no title)" ? heading : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * The caller's own cancellation or deadline keeps its reason (the router reports it); our attempt
 * deadline becomes a `timeout` ProviderError like any adapter's.
 */
function attemptError(id: string, thrown: unknown, caller: AbortSignal, attempt: AbortSignal): unknown {
  if (caller.aborted) {
    const reason = abortReason(caller);
    return reason.code === "deadline_exceeded"
      ? new ProviderError(id, "timeout", `${id} did not answer within the deadline`, { cause: reason })
      : new ProviderError(id, "cancelled", `${id} request was cancelled`, { cause: reason });
  }
  if (attempt.aborted) {
    return new ProviderError(id, "timeout", `${id} did not answer within the deadline`, {
      cause: abortReason(attempt),
    });
  }
  return thrown;
}
