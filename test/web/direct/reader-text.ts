/** What the direct reader's tests share: a fixture page, an outcome's text, parts in order. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { readHtml } from "../../../src/web/providers/direct/html.js";

export const fixture = (name: string) => readFileSync(new URL(`fixtures/${name}`, import.meta.url), "utf8");

export const textOf = (outcome: Awaited<ReturnType<typeof readHtml>>) =>
  outcome.content.map((part) => (part.type === "text" ? part.text : "")).join("");

/** Asserts that each of `parts` occurs in `text`, in this order. */
export function inOrder(text: string, parts: readonly string[]): void {
  let at = 0;
  for (const part of parts) {
    const found = text.indexOf(part, at);
    assert.ok(found >= 0, `missing after character ${at}: ${part}\n${text}`);
    at = found + part.length;
  }
}
