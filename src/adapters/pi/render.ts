/**
 * How the evident tools look in Pi's interactive TUI: a one-line call row, a compact collapsed
 * result (what was asked, counts, status) and, expanded, the complete original text.
 *
 * Presentation only. Renderers read the result and never change it: the text and details the
 * model got, cursors and session facts are the same whether or not anything is drawn, and Pi
 * calls none of this outside the TUI. A result this module does not recognize (its details do
 * not parse with the tool's own output schema), or any failure while drawing, shows the
 * original text. Widths come from pi-tui, so ANSI sequences take no columns and CJK takes two.
 */
import { type Component, Text, truncateToWidth } from "@mariozechner/pi-tui";
import type { z } from "zod";

/** The part of Pi's theme used here. */
export interface RenderTheme {
  fg(color: "accent" | "muted" | "dim" | "success" | "warning" | "error" | "toolTitle", text: string): string;
  bold(text: string): string;
}

export interface RenderedResult {
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>;
  readonly details?: unknown;
}

/** The result's text exactly as the model received it. */
export function originalText(result: RenderedResult): string {
  return result.content
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");
}

/** A component that draws `lines` at each width, or the original text if drawing fails. */
class Lines implements Component {
  readonly #draw: (width: number) => string[];
  readonly #fallback: string;

  constructor(draw: (width: number) => string[], fallback: string) {
    this.#draw = draw;
    this.#fallback = fallback;
  }

  render(width: number): string[] {
    try {
      return this.#draw(width).map((line) => truncateToWidth(line, Math.max(1, width)));
    } catch {
      return new Text(this.#fallback, 0, 0).render(width);
    }
  }

  invalidate(): void {}
}

const quote = (value: unknown) => JSON.stringify(String(value));

/** The call row: tool name and what it was asked. */
export function renderCall(tool: string, args: unknown, theme: RenderTheme): Component {
  const fallback = tool;
  return new Lines(() => {
    const input = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
    let what: string;
    if (input.cursor !== undefined) {
      const selection = Array.isArray(input.paths) ? ` ${input.paths.length} file(s)` : "";
      what = `next page${selection}${input.mode === "summary" ? " (files)" : ""}`;
    } else if (tool === "code_search" && input.guide === true) {
      what = "guide";
    } else if (tool === "code_search") {
      const where = input.path === undefined ? "" : ` in ${String(input.path)}`;
      what = `${theme.fg("accent", quote(input.pattern ?? ""))}${where}`;
    } else if (tool === "web_search") {
      what = theme.fg("accent", quote(input.query ?? ""));
    } else if (tool === "web_read") {
      what = theme.fg("accent", String(input.url ?? ""));
    } else {
      what = "";
    }
    return [`${theme.fg("toolTitle", theme.bold(tool))} ${what}`.trimEnd()];
  }, fallback);
}

/** Output schemas by tool, so a result is recognized only when it has the shape its tool declares. */
export type OutputSchemas = Readonly<Record<string, z.ZodType>>;

export function renderResult(
  tool: string,
  result: RenderedResult,
  state: { readonly expanded: boolean; readonly isPartial: boolean; readonly isError: boolean },
  theme: RenderTheme,
  schemas: OutputSchemas,
): Component {
  const text = originalText(result);
  if (state.expanded) return new Text(text, 0, 0);
  let summary: string | undefined;
  try {
    if (state.isPartial) summary = theme.fg("muted", text.length > 0 ? text : "working...");
    else if (state.isError) summary = errorSummary(text, theme);
    else summary = collapsedSummary(tool, result.details, theme, schemas);
  } catch {
    summary = undefined;
  }
  // Unrecognized, or the theme failed: the original text, as Pi shows it without a renderer.
  if (summary === undefined) return new Text(text, 0, 0);
  if (state.isPartial) return new Lines(() => [summary], text);
  const lines = text.split("\n").length;
  const hint = theme.fg("dim", `(${lines} line${lines === 1 ? "" : "s"} of text; expand to read them all)`);
  return new Lines(() => [summary, hint], text);
}

function errorSummary(text: string, theme: RenderTheme): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const error = (parsed as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (typeof error?.code !== "string" || typeof error.message !== "string") return undefined;
  return `${theme.fg("error", error.code)} ${error.message.split("\n")[0]}`;
}

function collapsedSummary(
  tool: string,
  details: unknown,
  theme: RenderTheme,
  schemas: OutputSchemas,
): string | undefined {
  const schema = schemas[tool];
  if (schema === undefined) return undefined;
  const parsed = schema.safeParse(details);
  if (!parsed.success) return undefined;
  const data = parsed.data as Record<string, unknown>;
  const parts: string[] = [];
  if (tool === "code_search") {
    const code = data as {
      status: string;
      view: string;
      effectiveRoot: string;
      totalMatches: number;
      totalFiles: number;
      cursor?: string;
      budget: { tier: string; adjusted: boolean };
    };
    if (code.view === "guide") return "the guide to every option";
    parts.push(
      code.status === "complete" ? theme.fg("success", "complete") : theme.fg("warning", code.status),
    );
    parts.push(`${code.totalMatches} matching line(s) in ${code.totalFiles} file(s)`);
    if (code.view === "summary") parts.push("summary by file");
    if (code.cursor !== undefined) parts.push("more behind a cursor");
    if (code.budget.adjusted) parts.push(theme.fg("warning", `context ${code.budget.tier}`));
    parts.push(`root ${code.effectiveRoot}`);
  } else if (tool === "web_search") {
    const web = data as {
      provenance: { used: string[] };
      results: Record<string, { results: unknown[] }>;
      providerErrors?: Record<string, string>;
      truncated: boolean;
      warnings: string[];
    };
    const rows = Object.values(web.results).reduce((sum, entry) => sum + entry.results.length, 0);
    parts.push(`${rows} result(s) from ${web.provenance.used.join(", ") || "no provider"}`);
    const failed = Object.keys(web.providerErrors ?? {}).length;
    if (failed > 0) parts.push(theme.fg("warning", `${failed} provider(s) failed`));
    if (web.truncated) parts.push(theme.fg("warning", "cut to fit"));
    if (web.warnings.length > 0) parts.push(`${web.warnings.length} warning(s)`);
  } else if (tool === "web_read") {
    const page = data as {
      title?: string;
      provenance: { url?: string; used: string[] };
      contentChars: { kept: number; total: number };
      truncated: boolean;
    };
    parts.push(page.title ?? page.provenance.url ?? "");
    parts.push(`${page.contentChars.kept} of ${page.contentChars.total} chars`);
    if (page.truncated) parts.push(theme.fg("warning", "cut to fit"));
    parts.push(`via ${page.provenance.used.join(", ")}`);
  } else {
    return undefined;
  }
  return parts.join(theme.fg("dim", " · "));
}
