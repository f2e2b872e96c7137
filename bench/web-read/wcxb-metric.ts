/**
 * Where the WCXB split lies (`EVIDENT_WCXB`, else ../shared/wcxb from the project or from a
 * worktree beside it) and the benchmark's word metric as its scorer counts it, for the bench
 * scripts that score readings of its pages in process.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const near = resolve("..", "shared", "wcxb");
export const wcxbRoot =
  process.env.EVIDENT_WCXB ?? (existsSync(near) ? near : resolve("..", "..", "shared", "wcxb"));

/** The shared scorer's Markdown reduction to the text it counts. */
export const { markdownToText } = (await import(
  pathToFileURL(join(wcxbRoot, "..", "web-read-eval", "score.mjs")).href
)) as {
  markdownToText(markdown: string): string;
};

/** The benchmark's words, as score.mjs counts them. */
export const tokens = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
