/**
 * A real Pi agent session for tests, without a model: Pi's own runtime, resource loader and
 * in-memory session manager, evident's extension loaded from this package's `pi.extensions`,
 * and pi-ai's faux provider scripting the assistant turns that call tools. The UI context is a
 * recorder standing where Pi's TUI would: it keeps status lines and notices, and answers
 * dialogs as a person would.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  type FauxResponseStep,
  fauxAssistantMessage,
  fauxToolCall,
  registerFauxProvider,
} from "@mariozechner/pi-ai";
import {
  type AgentSession,
  type AgentSessionRuntime,
  AuthStorage,
  createAgentSessionFromServices,
  createAgentSessionRuntime,
  createAgentSessionServices,
  type ExtensionUIContext,
  ModelRegistry,
  SessionManager,
  SettingsManager,
  Theme,
} from "@mariozechner/pi-coding-agent";

export const PACKAGE_ROOT = resolve(import.meta.dirname, "../../..");

export interface RecordingUi {
  readonly context: ExtensionUIContext;
  readonly statuses: Array<[string, string | undefined]>;
  readonly notices: Array<{ message: string; type: string | undefined }>;
  /** The option a select dialog picks: chosen from the options by this function. */
  pick: (title: string, options: string[]) => string | undefined;
  /** Keystrokes typed into a custom component, then what its render showed. */
  keys: string[];
  readonly rendered: string[][];
  status(key: string): string | undefined;
}

export function recordingUi(): RecordingUi {
  const ui: RecordingUi = {
    statuses: [],
    notices: [],
    pick: () => undefined,
    keys: [],
    rendered: [],
    status(key) {
      for (let i = this.statuses.length - 1; i >= 0; i--) {
        const entry = this.statuses[i] as [string, string | undefined];
        if (entry[0] === key) return entry[1];
      }
      return undefined;
    },
    context: undefined as unknown as ExtensionUIContext,
  };
  const context = {
    select: async (title: string, options: string[]) => ui.pick(title, options),
    confirm: async () => false,
    input: async () => undefined,
    notify: (message: string, type?: string) => ui.notices.push({ message, type }),
    onTerminalInput: () => () => {},
    setStatus: (key: string, text: string | undefined) => ui.statuses.push([key, text]),
    setWorkingMessage: () => {},
    setWorkingVisible: () => {},
    setWorkingIndicator: () => {},
    setHiddenThinkingLabel: () => {},
    setWidget: () => {},
    setFooter: () => {},
    setHeader: () => {},
    setTitle: () => {},
    custom: <T>(factory: (...args: unknown[]) => unknown) =>
      new Promise<T>((resolveDone) => {
        let finished = false;
        const tui = { requestRender: () => {} };
        const component = factory(tui, testTheme(), {}, (value: T) => {
          finished = true;
          resolveDone(value);
        }) as { handleInput(data: string): void; render(width: number): string[] };
        for (const key of ui.keys) {
          if (finished) break;
          component.handleInput(key);
          ui.rendered.push(component.render(60));
        }
      }),
    pasteToEditor: () => {},
    setEditorText: () => {},
    getEditorText: () => "",
    editor: async () => undefined,
    addAutocompleteProvider: () => {},
    setEditorComponent: () => {},
    getEditorComponent: () => undefined,
    theme: testTheme(),
    getAllThemes: () => [],
    getTheme: () => undefined,
    setTheme: () => ({ success: false }),
    getToolsExpanded: () => false,
    setToolsExpanded: () => {},
  };
  (ui as { context: unknown }).context = context;
  return ui;
}

/** A theme with the colors evident's renderers use; any other color throws, as Pi's does. */
export function testTheme(): Theme {
  const colors = {
    accent: "#00afff",
    muted: "#808080",
    dim: "#666666",
    success: "#00af00",
    warning: "#d7af00",
    error: "#d70000",
    toolTitle: "#ffffff",
  };
  return new Theme(colors as never, {} as never, "truecolor");
}

export interface PiSession {
  readonly runtime: AgentSessionRuntime;
  readonly session: AgentSession;
  readonly ui: RecordingUi;
  /** Scripts the next assistant turns. */
  respond(steps: FauxResponseStep[]): void;
  /** One prompt whose assistant calls `tool` with `args`, then ends; resolves with the tool result. */
  call(tool: string, args: Record<string, unknown>): Promise<ToolOutcome>;
  close(): Promise<void>;
}

export interface ToolOutcome {
  readonly isError: boolean;
  readonly text: string;
  readonly details: unknown;
}

let providers = 0;

export async function startPi(cwd: string, options: { contextWindow?: number } = {}): Promise<PiSession> {
  const faux = registerFauxProvider({
    provider: `evident-faux-${process.pid}-${++providers}`,
    models: [{ id: "faux", contextWindow: options.contextWindow ?? 200_000 }],
  });
  const model = faux.getModel();
  const authStorage = AuthStorage.inMemory();
  authStorage.setRuntimeApiKey(model.provider, "not-a-real-key");
  const modelRegistry = ModelRegistry.create(authStorage);
  // Outside the searched tree, so nothing Pi might write there is ever a search result.
  const agentDir = mkdtempSync(join(tmpdir(), "evident-pi-agent-"));
  const runtime = await createAgentSessionRuntime(
    async ({ cwd: sessionCwd, sessionManager, sessionStartEvent }) => {
      const services = await createAgentSessionServices({
        cwd: sessionCwd,
        agentDir,
        authStorage,
        modelRegistry,
        settingsManager: SettingsManager.inMemory(),
        resourceLoaderOptions: {
          // Only this package: nothing from the machine's own Pi setup.
          noExtensions: true,
          noSkills: true,
          noPromptTemplates: true,
          noThemes: true,
          noContextFiles: true,
          additionalExtensionPaths: [PACKAGE_ROOT],
        },
      });
      const created = await createAgentSessionFromServices({
        services,
        sessionManager,
        ...(sessionStartEvent === undefined ? {} : { sessionStartEvent }),
        model,
      });
      return { ...created, services, diagnostics: services.diagnostics };
    },
    { cwd, agentDir, sessionManager: SessionManager.inMemory(cwd) },
  );
  const ui = recordingUi();
  await runtime.session.bindExtensions({ uiContext: ui.context });
  const outcomes = new Map<string, ToolOutcome>();
  runtime.session.subscribe((event) => {
    if (event.type === "tool_execution_end") {
      const result = event.result as { content: Array<{ type: string; text?: string }>; details?: unknown };
      outcomes.set(event.toolCallId, {
        isError: event.isError,
        text: result.content.map((part) => part.text ?? "").join("\n"),
        details: result.details,
      });
    }
  });
  let calls = 0;
  return {
    runtime,
    session: runtime.session,
    ui,
    respond: (steps) => faux.setResponses(steps),
    async call(tool, args) {
      const id = `call-${++calls}`;
      faux.setResponses([
        fauxAssistantMessage(fauxToolCall(tool, args, { id })),
        fauxAssistantMessage("done"),
      ]);
      await runtime.session.prompt(`call ${tool}`);
      const outcome = outcomes.get(id);
      if (outcome === undefined) throw new Error(`the faux turn did not run ${tool}`);
      return outcome;
    },
    async close() {
      await runtime.dispose();
      faux.unregister();
      rmSync(agentDir, { recursive: true, force: true });
    },
  };
}
