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
import { resolveSettings, type Settings } from "../../config/settings.js";
import { silentLogger } from "../../core/logger.js";
import type { InterfaceLocale } from "../../tools/host-settings.js";
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
  // The environment is read here, once, when Pi loads the extension.
  const settings = resolveSettings(process.env);
  const session = new ExtensionSession(settings);
  registerTools(pi, session.registryFor(process.cwd()), session);
  pi.registerShortcut(SETTINGS_SHORTCUT, {
    description: "evident: see configured providers, enter an API key",
    handler: (ctx) => openSettingsPanel(ctx, settings),
  });
  pi.on("session_start", () => session.restart());
  pi.on("session_shutdown", async (_event, ctx) => {
    ctx.ui.setStatus(STATUS_KEY, undefined);
    await session.shutdown();
  });
}

type PiTool = Parameters<ExtensionAPI["registerTool"]>[0];
type Execute = PiTool["execute"];

/** What one extension instance keeps: a registry per working directory, the session's facts. */
class ExtensionSession {
  readonly #settings: Settings;
  // One registry per working directory (a Pi session has one); code_search's root is that cwd,
  // by the rule every surface follows (EVIDENT_ROOT first; never `/` or the home directory).
  readonly #registries = new Map<string, ToolRegistry>();
  // Cursors are bound to this session's extension instance.
  readonly #caller = `pi:${randomUUID()}`;
  #facts: Facts = NO_FACTS;
  #locale: Promise<InterfaceLocale> | undefined;

  constructor(settings: Settings) {
    this.#settings = settings;
  }

  registryFor(cwd: string): ToolRegistry {
    let registry = this.#registries.get(cwd);
    if (registry === undefined) {
      const settings = this.#settings;
      const root = resolveProjectRoot({ surface: "pi", settings, cwd });
      registry = createProductRegistry({ cwd, settings, logger: silentLogger, root, surface: "pi" });
      this.#registries.set(cwd, registry);
    }
    return registry;
  }

  /** One call in the registry of the session's own directory. */
  async execute(
    name: string,
    ...[_toolCallId, params, signal, onUpdate, ctx]: Parameters<Execute>
  ): ReturnType<Execute> {
    const result = await this.registryFor(ctx.cwd).call(name, params, {
      caller: this.#caller,
      logger: silentLogger,
      ...(signal === undefined ? {} : { signal }),
      progress: (update: ProgressUpdate) =>
        onUpdate?.({ content: [{ type: "text", text: progressText(update) }], details: undefined }),
      ...contextUsage(ctx),
    });
    // Pi marks a thrown call as an error result whose text is the message: the error payload.
    if (result.isError) {
      this.#facts = recordFailure(this.#facts, name, params, errorCode(result.data));
      await this.#showFacts(ctx);
      throw new Error(result.text);
    }
    this.#facts = recordResult(this.#facts, name, params, result.data);
    await this.#showFacts(ctx);
    return { content: [{ type: "text", text: result.text }], details: result.data };
  }

  /** The locale is read again for each session, so an edited config file takes effect. */
  restart(): void {
    this.#locale = undefined;
  }

  async shutdown(): Promise<void> {
    this.#facts = NO_FACTS;
    const closing = [...this.#registries.values()].map((registry) => registry.close());
    this.#registries.clear();
    await Promise.all(closing);
  }

  async #showFacts(ctx: ExtensionContext): Promise<void> {
    if (!hasFacts(this.#facts)) return;
    this.#locale ??= this.#settings.interfaceLocale();
    let line: string;
    try {
      line = statusLine(this.#facts, await this.#locale);
    } catch (thrown) {
      line = `evident: ${(thrown as Error).message}`;
    }
    ctx.ui.setStatus(STATUS_KEY, line);
  }
}

/**
 * Registered once: definitions name no directory (each answer names the root it searched),
 * and every call runs in the registry of the session's own directory.
 */
function registerTools(pi: ExtensionAPI, listing: ToolRegistry, session: ExtensionSession): void {
  const schemas: OutputSchemas = Object.fromEntries(
    listing.names().map((name) => [name, listing.get(name)?.outputSchema]),
  ) as OutputSchemas;
  for (const tool of listing.list()) {
    pi.registerTool({
      name: tool.name,
      label: tool.title,
      description: tool.description,
      // The registry's JSON Schema of the tool's zod input; Pi accepts plain JSON Schema.
      parameters: tool.inputSchema as never,
      execute: (...args) => session.execute(tool.name, ...args),
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
