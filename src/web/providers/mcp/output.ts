/**
 * An upstream tool result as native content: the upstream's own blocks, in its order, never
 * summarized, merged or re-ranked. Three narrow readings sit on top, each documented where it
 * happens: the Firecrawl usage projection, the structured-copy dedup, and the sanitized reason of
 * an `isError` result. Nothing here searches page text for facts.
 */
import type { ContentPart, ReadMetadata } from "../../provider.js";
import { deepEqual, isRecord, parseJson } from "../shared/values.js";

/** The subset of an MCP `CallToolResult` we read; everything else is ignored. */
export interface ToolResultLike {
  readonly content?: readonly unknown[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}

/** The text of every text block, in order (resources with inline text count as text). */
export function textBlocks(result: ToolResultLike): string[] {
  const texts: string[] = [];
  for (const block of result.content ?? []) {
    const text = blockText(block);
    if (text !== undefined) texts.push(text);
  }
  return texts;
}

function blockText(block: unknown): string | undefined {
  if (!isRecord(block)) return undefined;
  if (block.type === "text" && typeof block.text === "string") return block.text;
  if (block.type === "resource" && isRecord(block.resource) && typeof block.resource.text === "string") {
    return block.resource.text;
  }
  return undefined;
}

export interface NativeContent {
  readonly parts: ContentPart[];
  /** URIs of `resource_link` blocks and embedded resources: sources, not content. */
  readonly links: string[];
  /** Blocks evident cannot carry (images, audio, binary resources), counted for a warning. */
  readonly skipped: number;
}

/**
 * Text blocks become text parts in order; `structuredContent` becomes one trailing JSON part,
 * unless a single JSON text block already holds every one of its fields with deeply equal
 * values, in which case the copy would only repeat evidence already present.
 */
export function nativeContent(result: ToolResultLike): NativeContent {
  const parts: ContentPart[] = [];
  const links: string[] = [];
  let skipped = 0;
  for (const block of result.content ?? []) {
    const text = blockText(block);
    if (text !== undefined) {
      parts.push({ type: "text", text });
      if (isRecord(block) && block.type === "resource" && isRecord(block.resource)) {
        pushUri(links, block.resource.uri);
      }
      continue;
    }
    if (isRecord(block) && block.type === "resource_link") {
      pushUri(links, block.uri);
      continue;
    }
    skipped += 1;
  }
  const structured = result.structuredContent;
  if (structured !== undefined && !textAlreadyHolds(textBlocks(result), structured)) {
    parts.push({ type: "json", value: structured });
  }
  return { parts, links, skipped };
}

function pushUri(links: string[], uri: unknown): void {
  if (typeof uri === "string" && /^https?:\/\//i.test(uri) && !links.includes(uri)) links.push(uri);
}

/** Whether one text block, read as JSON, already contains the structured value. */
export function textAlreadyHolds(texts: readonly string[], structured: unknown): boolean {
  return texts.some((text) => {
    const parsed = parseJson(text);
    if (parsed === undefined) return false;
    if (isRecord(structured) && isRecord(parsed)) {
      return Object.keys(structured).every(
        (key) => Object.hasOwn(parsed, key) && deepEqual(parsed[key], structured[key]),
      );
    }
    return deepEqual(parsed, structured);
  });
}

/**
 * Firecrawl's `firecrawl_scrape` answers with a root `{ markdown, metadata }`. Only three usage
 * facts are projected, each validated: `creditsUsed` (a finite number >= 0), `cacheState`
 * (`hit` or `miss`) and `cachedAt` (a parseable date). Valid structured content wins; the JSON
 * text is a fallback, never merged with it and never summed. Any other layout stays opaque.
 */
export function firecrawlMetadata(result: ToolResultLike): ReadMetadata | undefined {
  const fromStructured = projectUsage(result.structuredContent);
  if (fromStructured !== undefined) return fromStructured;
  for (const text of textBlocks(result)) {
    const fromText = projectUsage(parseJson(text));
    if (fromText !== undefined) return fromText;
  }
  return undefined;
}

function projectUsage(root: unknown): ReadMetadata | undefined {
  if (!isFirecrawlDocument(root)) return undefined;
  const metadata = root.metadata as Record<string, unknown>;
  const out: { creditsUsed?: number; cacheState?: "hit" | "miss"; cachedAt?: string } = {};
  const credits = metadata.creditsUsed;
  if (typeof credits === "number" && Number.isFinite(credits) && credits >= 0) out.creditsUsed = credits;
  const cacheState = metadata.cacheState;
  if (cacheState === "hit" || cacheState === "miss") out.cacheState = cacheState;
  const cachedAt = metadata.cachedAt;
  if (typeof cachedAt === "string" && cachedAt.length <= 64 && !Number.isNaN(Date.parse(cachedAt))) {
    out.cachedAt = cachedAt;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function isFirecrawlDocument(root: unknown): root is { markdown: string; metadata: Record<string, unknown> } {
  return isRecord(root) && typeof root.markdown === "string" && isRecord(root.metadata);
}

/** The page title Firecrawl reported in the document's own metadata, when it is a string. */
export function firecrawlTitle(result: ToolResultLike): string | undefined {
  const roots = [result.structuredContent, ...textBlocks(result).map(parseJson)];
  for (const root of roots) {
    if (isFirecrawlDocument(root) && typeof root.metadata.title === "string") {
      const title = root.metadata.title.trim();
      if (title.length > 0) return title;
    }
  }
  return undefined;
}

/**
 * The agent-facing reason for an upstream `isError` result. The upstream's text may hold a key,
 * a raw body or an internal host name, so it never reaches the agent: only the tool name and,
 * when the text names one, an HTTP status number.
 */
export function upstreamErrorReason(providerId: string, tool: string, result: ToolResultLike): string {
  const status = textBlocks(result)
    .map((text) => /\b(?:HTTP|status|error)\s*\(?\s*([45]\d\d)\b/i.exec(text)?.[1])
    .find((found) => found !== undefined);
  return status === undefined
    ? `${providerId} upstream tool ${tool} reported an error`
    : `${providerId} upstream tool ${tool} reported HTTP ${status}`;
}
