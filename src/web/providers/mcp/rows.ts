/**
 * Search rows read from an upstream tool's documented output layout. Each reader knows exactly one
 * layout (see docs/CONFIG.md, "Upstream MCP providers", for where each comes from) and returns
 * rows in the upstream's order. A layout it does not recognise yields no rows, never guessed ones;
 * the provider then keeps the native text as the answer so nothing the upstream said is lost.
 */
import type { SearchRow } from "../../provider.js";
import { toRow } from "../shared/outcome.js";
import { isRecord, parseJson } from "../shared/values.js";
import type { OutputFormat } from "./binding.js";
import { type ToolResultLike, textBlocks } from "./output.js";

export interface ParsedSearch {
  readonly rows: SearchRow[];
  readonly answer?: string;
}

export function parseSearch(format: OutputFormat, result: ToolResultLike): ParsedSearch {
  switch (format) {
    case "exa":
      return { rows: textBlocks(result).flatMap(exaRows) };
    case "tavily":
      return tavilyRows(textBlocks(result).join("\n"));
    case "jina":
      return { rows: textBlocks(result).flatMap(jinaRows) };
    case "firecrawl":
    case "json":
      return { rows: jsonRows(result) };
    case "none":
      return { rows: [] };
  }
}

function defined<T>(value: T | undefined): value is T {
  return value !== undefined;
}

/**
 * Exa (`web_search_exa`): results separated by a line holding only `---`, each with `Title:`,
 * `URL:` and optionally `Published:` / `Author:` lines; the text after `Highlights:` (or any
 * remaining body) is the snippet.
 */
function exaRows(text: string): SearchRow[] {
  return text
    .split(/\r?\n[ \t]*---[ \t]*\r?\n/)
    .map((block) => {
      const fields: Record<string, string> = {};
      const body: string[] = [];
      let inBody = false;
      for (const line of block.split(/\r?\n/)) {
        const match = inBody
          ? null
          : /^(Title|URL|Published|Author|Highlights|Text|Summary):\s?(.*)$/.exec(line);
        if (match?.[1] !== undefined) {
          const key = match[1];
          if (key === "Highlights" || key === "Text" || key === "Summary") {
            inBody = true;
            if (match[2]) body.push(match[2]);
          } else {
            fields[key] = match[2] ?? "";
          }
        } else if (inBody) {
          body.push(line);
        }
      }
      return toRow({
        title: fields.Title,
        url: fields.URL,
        snippet: body.join("\n"),
        publishedAt: fields.Published,
        author: fields.Author,
      });
    })
    .filter(defined);
}

/**
 * Tavily (`tavily_search`): an optional `Answer:` line, then `Title:` / `URL:` / `Content:` groups
 * (`Raw Content:` and `Favicon:` lines are not row fields).
 */
function tavilyRows(text: string): ParsedSearch {
  const rows: SearchRow[] = [];
  let answer: string | undefined;
  let current: { title?: string; url?: string; snippet?: string } | undefined;
  let field: "answer" | "snippet" | "other" | undefined;
  const flush = () => {
    const made = current === undefined ? undefined : toRow(current);
    if (made !== undefined) rows.push(made);
    current = undefined;
  };
  for (const line of text.split(/\r?\n/)) {
    const match = /^(Answer|Title|URL|Content|Raw Content|Favicon|Detailed Results):\s?(.*)$/.exec(line);
    const key = match?.[1];
    const value = match?.[2] ?? "";
    if (key === "Answer") {
      answer = value;
      field = "answer";
    } else if (key === "Title") {
      flush();
      current = { title: value };
      field = "other";
    } else if (key === "URL") {
      current = { ...current, url: value };
      field = "other";
    } else if (key === "Content") {
      current = { ...current, snippet: value };
      field = "snippet";
    } else if (key !== undefined) {
      field = key === "Detailed Results" ? undefined : "other";
    } else if (field === "answer" && line.trim().length > 0) {
      answer = `${answer ?? ""}\n${line}`;
    } else if (field === "snippet" && current !== undefined) {
      current.snippet = `${current.snippet ?? ""}\n${line}`;
    }
  }
  flush();
  const trimmed = answer?.trim();
  return trimmed ? { rows, answer: trimmed } : { rows };
}

/**
 * Jina (`search_web`): one text block per result, a YAML mapping with `title`, `url` and a
 * `snippet` / `description` / `content`, plus `date` when known. Only top-level scalar keys are
 * read; quoted and folded scalars are unwrapped.
 */
function jinaRows(text: string): SearchRow[] {
  const fields = yamlScalars(text);
  const made = toRow({
    title: fields.title,
    url: fields.url,
    snippet: fields.snippet ?? fields.description ?? fields.content,
    publishedAt: fields.date ?? fields.publishedTime,
  });
  return made === undefined ? [] : [made];
}

/** Top-level `key: value` scalars of a small YAML mapping (enough for Jina's flat results). */
export function yamlScalars(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index += 1) {
    const match = /^([A-Za-z_][\w-]*):(?:\s+(.*))?$/.exec(lines[index] ?? "");
    if (match?.[1] === undefined) continue;
    const key = match[1];
    const raw = (match[2] ?? "").trim();
    if (/^[|>][+-]?$/.test(raw)) {
      // A block scalar: the following indented lines, folded (`>`) or kept (`|`).
      const block: string[] = [];
      while (index + 1 < lines.length && /^(\s+\S|\s*$)/.test(lines[index + 1] ?? "")) {
        index += 1;
        block.push((lines[index] ?? "").trim());
      }
      out[key] = raw.startsWith(">") ? block.join(" ").trim() : block.join("\n").trim();
    } else if (raw.startsWith('"')) {
      try {
        out[key] = JSON.parse(raw) as string;
      } catch {
        out[key] = raw.slice(1, raw.endsWith('"') ? -1 : undefined);
      }
    } else if (raw.startsWith("'")) {
      out[key] = raw.slice(1, raw.endsWith("'") ? -1 : undefined).replaceAll("''", "'");
    } else if (raw.length > 0) {
      out[key] = raw;
    }
  }
  return out;
}

/**
 * JSON results (Firecrawl `firecrawl_search`, generic bindings): the first array of objects with
 * a `url` found at the root, under `web`, `results` or `data` (or `data.web`). Structured content
 * is read first, then each JSON text block.
 */
function jsonRows(result: ToolResultLike): SearchRow[] {
  const roots = [result.structuredContent, ...textBlocks(result).map(parseJson)];
  for (const root of roots) {
    const items = resultArray(root);
    if (items === undefined) continue;
    return items
      .map((item) =>
        isRecord(item)
          ? toRow({
              title: stringField(item, "title"),
              url: stringField(item, "url") ?? stringField(item, "link"),
              snippet:
                stringField(item, "description") ??
                stringField(item, "snippet") ??
                stringField(item, "content"),
              publishedAt: stringField(item, "publishedDate") ?? stringField(item, "date"),
              author: stringField(item, "author"),
            })
          : undefined,
      )
      .filter(defined);
  }
  return [];
}

function resultArray(root: unknown): readonly unknown[] | undefined {
  const candidates: unknown[] = [root];
  if (isRecord(root)) {
    candidates.push(root.web, root.results, root.data);
    if (isRecord(root.data)) candidates.push(root.data.web, root.data.results);
  }
  return candidates.find(
    (candidate): candidate is unknown[] =>
      Array.isArray(candidate) && candidate.some((item) => isRecord(item) && typeof item.url === "string"),
  );
}

function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === "string" ? value : undefined;
}
