/**
 * One MCP server factory for every transport. stdio and Streamable HTTP both build their server
 * instances here, so the tool list, schemas and result mapping cannot drift between them.
 *
 * The low-level SDK `Server` is used rather than `McpServer.registerTool` because validation is
 * ours: the registry turns bad arguments into an `invalid_arguments` tool result naming the
 * field, identically on every surface, instead of a protocol error worded by the SDK.
 */
import { type CallToolResult, ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server";
import { anySignal } from "../../core/abort.js";
import type { Logger } from "../../core/logger.js";
import type { ToolResult } from "../../core/result.js";
import { type TraceContext, traceContext } from "../../core/trace.js";
import type { ToolRegistry } from "../../tools/registry.js";
import type { ProgressUpdate } from "../../tools/tool.js";
import { unknownToolMessage } from "../../tools/validation.js";
import { PACKAGE_VERSION } from "../version.js";
import { ClientRoots } from "./client-roots.js";
import type { TrackedCall } from "./http-calls.js";

export interface McpServerOptions {
  readonly registry: ToolRegistry;
  readonly logger: Logger;
  /**
   * Also carry each result's structured data (`structuredContent`, and `outputSchema` in the
   * tool list). Off by default: some clients (Claude Code among them) give the model the
   * structured JSON in place of the text when both are present, so the budgeted text, with its
   * notes on what was cut, would never reach the model. For programmatic clients.
   */
  readonly structured?: boolean;
}

export interface CallerInfo {
  /** Key that binds per-caller state (cursors): the stdio connection or the HTTP credential. */
  readonly caller: string;
  /** Lets the stateless HTTP layer cancel the calls this instance runs (see http-calls.ts). */
  readonly track?: (requestId: string | number) => TrackedCall;
  /** The HTTP request's id, which its calls' log lines carry (stdio calls get one each). */
  readonly requestId?: string;
  /** The HTTP request's `traceparent` header, valid; a call's own `_meta.traceparent` wins. */
  readonly trace?: TraceContext;
}

export const SERVER_NAME = "evident";

const INSTRUCTIONS =
  "evident returns evidence, not answers: web_search finds sources, web_read reads one page, " +
  "code_search searches the local codebase. Every result says what was cut, skipped or unverified; " +
  "continue with the cursor or follow-up it names instead of repeating a broad call.";

/** Builds one server instance bound to one caller (a stdio connection or one HTTP request). */
export function createMcpServer(options: McpServerOptions, callerInfo: CallerInfo): Server {
  const { registry, logger } = options;
  const structured = options.structured ?? false;
  const server = new Server(
    { name: SERVER_NAME, version: PACKAGE_VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  const roots = new ClientRoots(server, logger);

  server.setRequestHandler("tools/list", async () => ({
    tools: registry.list().map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema as { type: "object"; [key: string]: unknown },
      // A declared output schema obliges every result to carry structured content.
      ...(structured
        ? { outputSchema: tool.outputSchema as { type: "object"; [key: string]: unknown } }
        : {}),
      // The title is the tool's own (every protocol revision served has it); not repeated here.
      annotations: tool.annotations,
    })),
  }));

  server.setRequestHandler("tools/call", async (request, ctx) => {
    const { name, arguments: args } = request.params;
    // The 2025-11-25 specification makes an unknown tool a protocol error, not a tool result.
    if (registry.get(name) === undefined) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, unknownToolMessage(name, registry.names()));
    }
    const progressToken = request.params._meta?.progressToken ?? ctx.mcpReq._meta?.progressToken;
    // Notifications are chained and awaited before the result goes out: a client drops progress
    // that arrives after the response it belongs to.
    let delivered: Promise<void> = Promise.resolve();
    const progress =
      progressToken === undefined
        ? undefined
        : (update: ProgressUpdate) => {
            delivered = delivered
              .then(() =>
                ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, ...update } }),
              )
              .catch((error: unknown) => logger.debug("progress notification not delivered", { error }));
          };
    const tracked = callerInfo.track?.(ctx.mcpReq.id);
    // The call's own trace context (2026-07-28: `_meta.traceparent`) is the more precise one.
    const meta = request.params._meta as Record<string, unknown> | undefined;
    const trace = traceContext(meta?.traceparent, meta?.tracestate) ?? callerInfo.trace;
    const linked = anySignal(
      tracked === undefined ? [ctx.mcpReq.signal] : [ctx.mcpReq.signal, tracked.signal],
    );
    try {
      const clientRoots = await roots.current();
      const result = await registry.call(name, args, {
        signal: linked.signal,
        logger,
        caller: callerInfo.caller,
        ...(callerInfo.requestId === undefined ? {} : { requestId: callerInfo.requestId }),
        ...(trace === undefined ? {} : { trace }),
        ...(clientRoots === undefined ? {} : { clientRoots }),
        ...(progress === undefined ? {} : { progress }),
      });
      await delivered;
      return toCallToolResult(result, structured);
    } finally {
      linked.dispose();
      tracked?.release();
    }
  });

  return server;
}

/**
 * A tool result as MCP carries it: the model-facing text as content and, when `structured`, the
 * structured data as `structuredContent`. Failures carry the shared error payload as text (what
 * every surface shows) and `isError`, so clients do not validate them against the success
 * output schema.
 */
export function toCallToolResult(result: ToolResult<unknown>, structured: boolean): CallToolResult {
  const content: CallToolResult["content"] = [{ type: "text", text: result.text }];
  if (result.isError) return { isError: true, content };
  if (!structured) return { content };
  return { content, structuredContent: result.data as Record<string, unknown> };
}
