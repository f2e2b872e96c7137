/**
 * Configuration inside Pi without a command: a keyboard shortcut opens a panel that lists the
 * providers evident would use (and why one cannot be used), and choosing a provider that takes
 * an API key asks for the key in a masked field. The key goes to the same private config file
 * `evident setup` writes, through the config layer's one write path; it is never echoed, logged
 * or put in the conversation.
 */
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { type Component, type Focusable, Input, truncateToWidth } from "@mariozechner/pi-tui";
import type { Settings } from "../../config/settings.js";
import { configView, type ProviderView } from "../../tools/doctor.js";
import { KEYED_ADAPTERS, type KeyedAdapter, saveProviderKey } from "../../tools/host-settings.js";

/** The shortcut that opens the panel (ctrl+alt+e: "e" for evident; no Pi default uses it). */
export const SETTINGS_SHORTCUT = "ctrl+alt+e";

export async function openSettingsPanel(ctx: ExtensionContext, settings: Settings): Promise<void> {
  if (!ctx.hasUI) return;
  const view = await configView(settings);
  const configured = view.providers ?? [];
  if (view.error !== undefined) ctx.ui.notify(`evident: ${view.error.message}`, "error");

  const choices = new Map<string, { id: string; keyed?: KeyedAdapter }>();
  for (const line of configured) {
    const keyed = (KEYED_ADAPTERS as readonly string[]).includes(line.adapter)
      ? (line.adapter as KeyedAdapter)
      : undefined;
    choices.set(describe(line), { id: line.id, ...(keyed === undefined ? {} : { keyed }) });
  }
  for (const adapter of KEYED_ADAPTERS) {
    if (configured.some((line) => line.id === adapter)) continue;
    choices.set(`${adapter}: not configured (choose to enter a key)`, { id: adapter, keyed: adapter });
  }
  const title =
    view.routes === undefined
      ? "evident providers (the configuration has an error)"
      : `evident providers - search: ${view.routes.search.ids.join(" > ")}; read: ${view.routes.read.ids.join(" > ")}`;
  const picked = await ctx.ui.select(title, [...choices.keys()]);
  const choice = picked === undefined ? undefined : choices.get(picked);
  if (choice === undefined) return;
  if (choice.keyed === undefined) {
    ctx.ui.notify(
      `evident: ${choice.id} takes no API key here; see docs/CONFIG.md for its settings.`,
      "info",
    );
    return;
  }
  const key = await askKey(ctx, choice.id);
  if (key === undefined || key.trim() === "") return;
  try {
    const { path } = await saveProviderKey(settings, choice.id, choice.keyed, key);
    ctx.ui.notify(`evident: saved the ${choice.id} API key to ${path} (readable only by you).`, "info");
  } catch (thrown) {
    ctx.ui.notify(`evident: ${(thrown as Error).message}`, "error");
  }
}

function describe(line: ProviderView): string {
  const kind = line.id === line.adapter ? line.id : `${line.id} (${line.adapter})`;
  if (line.unavailable !== undefined) return `${kind}: cannot be used - ${line.unavailable}`;
  const origin =
    line.source === "environment"
      ? "from the environment"
      : line.source === "config-file"
        ? "from the config file"
        : "built in";
  return `${kind}: ${line.key === undefined ? "" : "key set, "}${origin}`;
}

function askKey(ctx: ExtensionContext, id: string): Promise<string | undefined> {
  return ctx.ui.custom<string | undefined>((tui, _theme, _keybindings, done) => {
    const field = new MaskedKeyField(`API key for ${id}`, done);
    field.onChange = () => tui.requestRender();
    return field;
  });
}

/** A one-line field that edits like Pi's own input (paste included) but shows only dots. */
export class MaskedKeyField implements Component, Focusable {
  readonly #input = new Input();
  readonly #label: string;
  onChange: (() => void) | undefined;

  constructor(label: string, done: (value: string | undefined) => void) {
    this.#label = label;
    this.#input.onSubmit = (value) => done(value);
    this.#input.onEscape = () => done(undefined);
  }

  get focused(): boolean {
    return this.#input.focused;
  }

  set focused(value: boolean) {
    this.#input.focused = value;
  }

  handleInput(data: string): void {
    this.#input.handleInput(data);
    this.onChange?.();
  }

  render(width: number): string[] {
    const length = [...this.#input.getValue()].length;
    return [
      this.#label,
      `> ${"•".repeat(length)}`,
      "Enter saves it to the evident config file; Esc cancels.",
    ].map((line) => truncateToWidth(line, Math.max(1, width)));
  }

  invalidate(): void {}
}
