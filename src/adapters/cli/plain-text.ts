/**
 * What `--text` prints. code_search's model-facing text is already text; the web tools' is their
 * JSON envelope (agents read it as it is), so for them `--text` lays the same envelope out as
 * lines a person reads: provenance, warnings and what failed, each provider's answer and rows, or
 * the page's title, metadata, content and the links seen on it. Nothing is added; a search's
 * `sources` (its rows' URLs, already shown) is the one field not printed again.
 */
import type { z } from "zod";
import type { ToolSuccess } from "../../core/result.js";
import type { webReadOutputSchema } from "../../tools/web-read.js";
import type { webSearchOutputSchema } from "../../tools/web-search.js";

type SearchEnvelope = z.output<typeof webSearchOutputSchema>;
type ReadEnvelope = z.output<typeof webReadOutputSchema>;

export function textOf(tool: string, result: ToolSuccess<unknown>): string {
  if (tool === "web_search") return searchText(result.data as SearchEnvelope);
  if (tool === "web_read") return readText(result.data as ReadEnvelope);
  return result.text;
}

function provenanceLine(p: SearchEnvelope["provenance"]): string {
  const subject = p.query !== undefined ? `Search ${JSON.stringify(p.query)}` : `Read ${p.url ?? ""}`;
  const facts = [
    `${p.mode}`,
    `used: ${p.used.join(", ") || "none"}`,
    ...(p.attempted.length > p.used.length ? [`attempted: ${p.attempted.join(", ")}`] : []),
    ...(p.anonymous.length > 0 ? [`anonymous (no key): ${p.anonymous.join(", ")}`] : []),
    ...(p.intent === undefined ? [] : [`intent: ${p.intent}`]),
    ...(p.focus === undefined ? [] : [`focus: ${JSON.stringify(p.focus)}`]),
    `retrieved ${p.retrievedAt}`,
  ];
  return `${subject} (${facts.join("; ")})`;
}

function notes(envelope: SearchEnvelope | ReadEnvelope): string[] {
  const lines: string[] = [];
  for (const warning of envelope.warnings) lines.push(`Warning: ${warning}`);
  for (const [id, reason] of Object.entries(envelope.providerErrors ?? {})) {
    lines.push(`Failed: ${id}: ${reason}`);
  }
  return lines;
}

function searchText(envelope: SearchEnvelope): string {
  const lines = [provenanceLine(envelope.provenance), ...notes(envelope)];
  for (const [id, section] of Object.entries(envelope.results)) {
    lines.push("", `== ${id} ==`);
    if (section.answer !== undefined) lines.push(`Answer: ${section.answer}`, "");
    section.results.forEach((row, index) => {
      lines.push(`${index + 1}. ${row.title}`, `   ${row.url}`);
      const byline = [row.publishedAt, row.author].filter((part) => part !== undefined).join(", ");
      if (byline !== "") lines.push(`   (${byline})`);
      if (row.snippet !== undefined) lines.push(...row.snippet.split("\n").map((line) => `   ${line}`));
    });
    if (section.results.length === 0 && section.answer === undefined) lines.push("(no results)");
  }
  if (envelope.truncated) {
    lines.push("", `Cut to fit the budget: ${envelope.omittedResults ?? 0} result(s) left out.`);
  }
  return `${lines.join("\n")}\n`;
}

function readText(envelope: ReadEnvelope): string {
  const lines = [provenanceLine(envelope.provenance)];
  if (envelope.title !== undefined) lines.push(`Title: ${envelope.title}`);
  const metadata = Object.entries(envelope.metadata ?? {});
  if (metadata.length > 0) {
    lines.push(`Metadata: ${metadata.map(([key, value]) => `${key}: ${String(value)}`).join("; ")}`);
  }
  lines.push(...notes(envelope));
  const chars = envelope.contentChars;
  const from = chars.from ?? 0;
  const range = `characters ${from + 1}-${from + chars.kept} of ${chars.total}`;
  lines.push(envelope.truncated ? `Content (${range}; the rest was cut to fit):` : `Content (${range}):`);
  lines.push("");
  for (const part of envelope.content) {
    lines.push(part.type === "text" ? part.text : JSON.stringify(part.value, null, 2));
  }
  const sources = envelope.sources;
  if (sources.length > 0) {
    lines.push("", "Links seen on the page (not fetched or verified):", ...sources.map((url) => `- ${url}`));
  }
  if ((envelope.sourcesOmitted ?? 0) > 0) lines.push(`(${envelope.sourcesOmitted} more left out)`);
  return `${lines.join("\n")}\n`;
}
