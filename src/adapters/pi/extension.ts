/**
 * The Pi extension (`@mariozechner/pi-coding-agent` has no MCP client): registers web_search,
 * web_read and code_search as native Pi tools over the same registry every surface uses, and
 * nothing else that the model or the command line sees: no commands, no replacement of Pi's own
 * tools. Names, descriptions and parameter schemas are the registry's own listings; the
 * registry validates every call as on any surface.
 *
 * What Pi adds, and only Pi can: its abort signal reaches ripgrep and the providers; its context
 * usage before a call sizes code_search's first answer (see code/budget.ts); the session's facts
 * appear as one status line; results render compactly in the TUI; a shortcut opens the
 * provider settings. Package.json's `pi.extensions` points Pi at the built file.
 */
import { randomUUID } from "node:crypto";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { silentLogger } from "../../core/logger.js";
import { type InterfaceLocale, readInterfaceLocale } from "../../tools/host-settings.js";
import { createProductRegistry } from "../../tools/product.js";
import { resolveProjectRoot } from "../../tools/project-root.js";
import type { ToolRegistry } from "../../tools/registry.js";
import type { ContextUsage, ProgressUpdate } from "../../tools/tool.js";
import { type OutputSchemas, renderCall, renderResult } from "./render.js";
import { type Facts, hasFacts, NO_FACTS, recordFailure, recordResult, statusLine } from "./session-facts.js";
import { openSettingsPanel, SETTINGS_SHORTCUT } from "./settings-panel.js";

/** The footer status key this extension owns. */
export const STATUS_KEY = "evident";

export default function evidentExtension(pi: ExtensionAPI): void {
  const env = process.env;
  // One registry per working directory (a Pi session has one); code_search's root is that cwd,
  // by the rule every surface follows (EVIDENT_ROOT first; never `/` or the home directory).
  const registries = new Map<string, ToolRegistry>();
  const registryFor = (cwd: string): ToolRegistry => {
    let registry = registries.get(cwd);
    if (registry === undefined) {
      const root = resolveProjectRoot({ surface: "pi", env, cwd });
      registry = createProductRegistry({ cwd, env, logger: silentLogger, root, surface: "pi" });
      registries.set(cwd, registry);
    }
    return registry;
  };
  // Cursors are bound to this session's extension instance.
  const caller = `pi:${randomUUID()}`;
  let facts: Facts = NO_FACTS;
  let locale: Promise<InterfaceLocale> | undefined;

  const listing = registryFor(process.cwd());
  const schemas: OutputSchemas = Object.fromEntries(
    listing.names().map((name) => [name, listing.get(name)?.outputSchema]),
  ) as OutputSchemas;

  const showFacts = async (ctx: ExtensionContext) => {
    if (!hasFacts(facts)) return;
    locale ??= readInterfaceLocale(env);
    let line: string;
    try {
      line = statusLine(facts, await locale);
    } catch (thrown) {
      line = `evident: ${(thrown as Error).message}`;
    }
    ctx.ui.setStatus(STATUS_KEY, line);
  };

  // Registered once: definitions name no directory (each answer names the root it searched),
  // and every call runs in the registry of the session's own directory.
  const registerTools = (registry: ToolRegistry) => {
    for (const tool of registry.list()) {
      pi.registerTool({
        name: tool.name,
        label: tool.title,
        description: tool.description,
        // The registry's JSON Schema of the tool's zod input; Pi accepts plain JSON Schema.
        parameters: tool.inputSchema as never,
        async execute(_toolCallId, params, signal, onUpdate, ctx) {
          const result = await registryFor(ctx.cwd).call(tool.name, params, {
            caller,
            logger: silentLogger,
            ...(signal === undefined ? {} : { signal }),
            progress: (update: ProgressUpdate) =>
              onUpdate?.({ content: [{ type: "text", text: progressText(update) }], details: undefined }),
            ...contextUsage(ctx),
          });
          // Pi marks a thrown call as an error result whose text is the message: the error payload.
          if (result.isError) {
            facts = recordFailure(facts, tool.name, params, errorCode(result.data));
            await showFacts(ctx);
            throw new Error(result.text);
          }
          facts = recordResult(facts, tool.name, params, result.data);
          await showFacts(ctx);
          return { content: [{ type: "text", text: result.text }], details: result.data };
        },
        renderCall: (args, theme) => renderCall(tool.name, args, theme),
        renderResult: (result, options, theme, context) =>
          renderResult(
            tool.name,
            result,
            { expanded: options.expanded, isPartial: options.isPartial, isError: context.isError },
            theme,
            schemas,
          ),
      });
    }
  };
  registerTools(listing);

  pi.registerShortcut(SETTINGS_SHORTCUT, {
    description: "evident: see configured providers, enter an API key",
    handler: (ctx) => openSettingsPanel(ctx, env),
  });

  pi.on("session_start", () => {
    // The locale is read again for each session, so an edited config file takes effect.
    locale = undefined;
  });
  pi.on("session_shutdown", async (_event, ctx) => {
    ctx.ui.setStatus(STATUS_KEY, undefined);
    facts = NO_FACTS;
    const closing = [...registries.values()].map((registry) => registry.close());
    registries.clear();
    await Promise.all(closing);
  });
}

/** The code of an error result's payload (`{"error": {"code": ...}}`). */
function errorCode(data: unknown): string | undefined {
  const code = (data as { error?: { code?: unknown } } | null)?.error?.code;
  return typeof code === "string" ? code : undefined;
}

/** Pi's pre-call context usage, when it knows the token count (unknown right after compaction). */
function contextUsage(ctx: ExtensionContext): { contextUsage?: ContextUsage } {
  const usage = ctx.getContextUsage();
  if (usage === undefined || usage.tokens === null) return {};
  return { contextUsage: { usedTokens: usage.tokens, contextWindowTokens: usage.contextWindow } };
}

function progressText(update: ProgressUpdate): string {
  return (
    update.message ?? `working (${update.progress}${update.total === undefined ? "" : `/${update.total}`})`
  );
}
